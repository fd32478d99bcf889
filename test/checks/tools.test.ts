import { describe, expect, it } from 'vitest';
import tools from '../../checks/tools.js';
import { STANDARD_DIRS, TOOLS, toolsCollector, type ToolName, type Tools } from '../../src/collectors/tools.js';
import { FactStore } from '../../src/contracts/collector.js';
import type { HostIO } from '../../src/hostio/types.js';
import { silentLogger } from '../../src/util/log.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';

const tester = checkTester(tools);
import { fakeHost, type FakeHost } from '../helpers/fake-host.js';

const PACKAGES: Record<ToolName, [string, string]> = {
  ethtool: ['ethtool', 'ethtool'],
  lspci: ['pciutils', 'pciutils'],
  iperf3: ['iperf3', 'iperf3'],
  numactl: ['numactl', 'numactl'],
  taskset: ['util-linux', 'util-linux'],
  irqbalance: ['irqbalance', 'irqbalance'],
  tc: ['iproute2', 'iproute-tc'],
  ip: ['iproute2', 'iproute'],
};

function toolsFact(missing: ToolName[] = []): Tools {
  return {
    searchedDirs: ['/usr/sbin', '/usr/bin'],
    tools: TOOLS.map((name) => ({
      name,
      path: missing.includes(name) ? null : `/usr/sbin/${name}`,
      debianPackage: PACKAGES[name][0],
      rpmPackage: PACKAGES[name][1],
    })),
  };
}

describe('tools check', () => {
  it('passes when every tool is installed', async () => {
    const result = await tester.run({ tools: toolsFact() });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails when ethtool is missing (warning) and names the packages; tc is optional (info)', async () => {
    const result = await tester.run({ tools: toolsFact(['ethtool', 'tc']) });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.subject, finding.severity, finding.data.tool])).toEqual([
      ['tool-missing', 'host', 'warning', 'ethtool'],
      ['tool-missing', 'host', 'info', 'tc'],
    ]);
    expect(result.findings[0]!.fix).toBe('apt-get install ethtool (Debian/Ubuntu) or dnf install ethtool (RHEL/Fedora)');
    expect(result.findings[1]!.fix).toBe('apt-get install iproute2 (Debian/Ubuntu) or dnf install iproute-tc (RHEL/Fedora)');
    expect(result.findings[0]!.message).toContain('ethtool is not installed');
    expect(result.findings[0]!.evidence[0]).toMatchObject({
      label: 'ethtool in /usr/sbin:/usr/bin',
      observed: 'not found',
      expected: 'installed',
    });
  });

  it('warns about a missing iperf3: the bench needs it', async () => {
    const result = await tester.run({ tools: toolsFact(['iperf3']) });
    expect(result.status).toBe('fail');
    expect(result.findings[0]).toMatchObject({ severity: 'warning', data: { tool: 'iperf3', package: 'iperf3' } });
    expect(result.findings[0]!.message).toContain('bench');
  });

  it('passes with notes when only optional tools are missing', async () => {
    const result = await tester.run({ tools: toolsFact(['numactl', 'taskset', 'irqbalance']) });
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => [finding.data.tool, finding.data.package, finding.severity])).toEqual([
      ['numactl', 'numactl', 'info'],
      ['taskset', 'util-linux', 'info'],
      ['irqbalance', 'irqbalance', 'info'],
    ]);
  });

  it('takes the list of needed tools from its options', async () => {
    const result = await tester.run({ tools: toolsFact(['numactl']) }, { options: { needed: ['ethtool', 'iperf3', 'numactl'] } });
    expect(result.findings[0]?.severity).toBe('warning');
  });

  it('is not applicable when a capture lists no tool directory: the analysing machine is not the host', async () => {
    const result = await tester.run({ tools: failed('not-captured', 'none of /usr/sbin, /usr/bin could be listed') });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain("does not list the host's tool directories");
  });

  it('is unknown when the directories could not be listed on the host itself', async () => {
    const result = await tester.run({ tools: failed('failed', 'none of /usr/sbin, /usr/bin could be listed') });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('could be listed');
  });
});

/** Directory listings only, like a snapshot: /usr/sbin and /usr/bin exist, the rest does not. */
function listingIO(listings: Record<string, string[]>, mode: HostIO['mode'] = 'snapshot'): FakeHost {
  return fakeHost({ mode, dirs: listings, missing: mode === 'snapshot' ? 'not-captured' : 'not-found' });
}

describe('tools collector', () => {
  it('finds tools by listing the standard directories, first match wins, with packages', async () => {
    const io = listingIO({ '/usr/sbin': ['ethtool', 'ip', 'irqbalance', 'tc'], '/usr/bin': ['ip', 'iperf3', 'lspci', 'taskset', 'ls'] });
    const result = await new FactStore(io, [toolsCollector], silentLogger()).get('tools');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.searchedDirs).toEqual(['/usr/sbin', '/usr/bin']);
    expect(Object.fromEntries(result.value.tools.map((tool) => [tool.name, tool.path]))).toEqual({
      ethtool: '/usr/sbin/ethtool',
      lspci: '/usr/bin/lspci',
      iperf3: '/usr/bin/iperf3',
      numactl: null,
      taskset: '/usr/bin/taskset',
      irqbalance: '/usr/sbin/irqbalance',
      tc: '/usr/sbin/tc',
      ip: '/usr/sbin/ip',
    });
    expect(result.value.tools.find((tool) => tool.name === 'tc')).toMatchObject({ debianPackage: 'iproute2', rpmPackage: 'iproute-tc' });
    // Listings are recorded as sources, so a snapshot replays them.
    expect(result.sources).toEqual(STANDARD_DIRS.map((path) => ({ kind: 'file', path })));
    // Listings only: the tools collector never runs a command.
    expect(io.commandsRun).toEqual([]);
  });

  it('fails, rather than calling every tool missing, when no directory can be listed', async () => {
    const result = await new FactStore(listingIO({}), [toolsCollector], silentLogger()).get('tools');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.kind).toBe('not-captured');
  });
});
