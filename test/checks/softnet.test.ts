import { describe, expect, it } from 'vitest';
import softnet from '../../checks/softnet.js';
import { softnetCollector } from '../../src/collectors/softnet.js';
import { FactStore } from '../../src/contracts/collector.js';
import { parseSoftnetStat } from '../../src/parsers/softnet-stat.js';
import { parseSysctlAll, sysctlNetFrom, type SysctlNet } from '../../src/parsers/sysctl.js';
import { silentLogger } from '../../src/util/log.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { fakeHost } from '../helpers/fake-host.js';
import { realCapture } from '../helpers/fixtures.js';

const tester = checkTester(softnet);

function softnetFrom(file: string) {
  return { cpus: parseSoftnetStat(realCapture(file)) };
}

/** net.core.netdev_max_backlog 1000, netdev_budget 300, netdev_budget_usecs 2000 (real Ubuntu 18.04 capture). */
function ubuntuSysctl(): SysctlNet {
  const values = parseSysctlAll(realCapture('sysctl/ubuntu1804-sysctl-a-jc.txt'));
  return sysctlNetFrom((key) => values.get(key));
}

const CLEAN =
  '0030b54a 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n';

describe('softnet check', () => {
  it('passes when no CPU dropped or ran out of budget', async () => {
    const result = await tester.run({ softnet: { cpus: parseSoftnetStat(CLEAN) }, 'sysctl.net': ubuntuSysctl() });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('notes a little time squeeze on the local VM capture without failing', async () => {
    const result = await tester.run({ softnet: softnetFrom('local-vm/softnet_stat-2cpu.txt'), 'sysctl.net': ubuntuSysctl() });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'budget-exhausted',
        severity: 'info',
        subject: 'host',
        data: expect.objectContaining({ totalSqueeze: 6, cpuCount: 2, budget: 300, budgetUsecs: 2000 }),
      }),
    ]);
    expect(result.findings[0]!.fix).toContain('net.core.netdev_budget=600');
    expect(result.findings[0]!.fix).toContain('net.core.netdev_budget_usecs=4000');
  });

  it('fails on backlog drops: node_exporter capture, 0x29 on the second row (no CPU column before 5.10)', async () => {
    const result = await tester.run({ softnet: softnetFrom('softnet/nodeexporter-1.txt'), 'sysctl.net': ubuntuSysctl() });
    expect(result.status).toBe('fail');
    const drops = result.findings.find((finding) => finding.symptom === 'backlog-drops')!;
    expect(drops).toMatchObject({
      severity: 'warning',
      data: { totalDropped: 41, cpuCount: 1, cpus: '1', cpuIds: 'row', backlog: 1000, suggestedBacklog: 2000 },
    });
    expect(drops.message).toContain('on softnet row 1:');
    expect(drops.message).toContain('41 packets dropped since boot');
    expect(drops.message).toContain('netdev_max_backlog = 1000');
    expect(drops.fix).toContain('sysctl -w net.core.netdev_max_backlog=2000');
    expect(drops.fix).toContain('RPS');
    expect(drops.evidence).toEqual([
      { label: 'softnet row 1 backlog drops', observed: 41, expected: 0, unit: 'packets' },
      { label: 'net.core.netdev_max_backlog', observed: 1000 },
    ]);
    // Squeeze on every row, but at most 1.6e-5 per packet: info.
    const squeeze = result.findings.find((finding) => finding.symptom === 'budget-exhausted')!;
    expect(squeeze).toMatchObject({
      severity: 'info',
      data: expect.objectContaining({ totalSqueeze: 146, cpuCount: 4, worstCpu: 3, cpuIds: 'row' }),
    });
    expect(squeeze.message).toContain('per packet on softnet row 3:');
  });

  it('fails on the RHEL 9 capture with drops on every CPU, named by the CPU column', async () => {
    const result = await tester.run({ softnet: softnetFrom('softnet/rhel9-13col-insights-1.txt'), 'sysctl.net': failed('not-found') });
    const drops = result.findings.find((finding) => finding.symptom === 'backlog-drops')!;
    expect(drops.data).toMatchObject({
      totalDropped: 0x6283 + 0x446 + 0x4bc7 + 0x7e2e + 0x2db94,
      cpuCount: 5,
      cpus: '0,1,2,3,0',
      cpuIds: 'cpu',
      backlog: null,
      suggestedBacklog: 2000,
    });
    expect(drops.message).toContain('(net.core.netdev_max_backlog = not read, kernel default 1000), on CPU 0, CPU 1, CPU 2, CPU 3, CPU 0:');
  });

  it('makes budget exhaustion a warning when squeezes are frequent per packet (rhel8 capture: 18 per 142307)', async () => {
    const result = await tester.run(
      { softnet: softnetFrom('softnet/rhel8-11col-insights-1.txt'), 'sysctl.net': ubuntuSysctl() },
      { options: { squeezeWarningRatio: 0.0001 } },
    );
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['backlog-drops', 'warning'],
      ['budget-exhausted', 'warning'],
    ]);
    const defaults = await tester.run({ softnet: softnetFrom('softnet/rhel8-11col-insights-1.txt'), 'sysctl.net': ubuntuSysctl() });
    expect(defaults.findings.find((finding) => finding.symptom === 'budget-exhausted')?.severity).toBe('info');
  });

  it('warns on 2 M backlog drops since boot although they are below one in a million processed packets (count or rate)', async () => {
    // 4 CPUs, 500000 (0x7a120) drops each; processed is a 32-bit column, so the long uptime is scaled in.
    const row = 'fff00000 0007a120 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n';
    const cpus = parseSoftnetStat(row.repeat(4)).map((cpu) => ({ ...cpu, processed: cpu.processed * 1000 }));
    const result = await tester.run({ softnet: { cpus }, 'sysctl.net': ubuntuSysctl() });
    const drops = result.findings.find((finding) => finding.symptom === 'backlog-drops')!;
    expect(drops).toMatchObject({ severity: 'warning', data: { totalDropped: 2_000_000 } });
    expect(drops.data.dropRate as number).toBeLessThan(1e-6);
  });

  it('only notes a few squeezes without a backlog drop, however high their share of few packets; warns on a sustained count or rate', async () => {
    // 3000 packets, 9 squeezes, no drops: the softirq resumed on its next round and lost nothing.
    const few = parseSoftnetStat('00000bb8 00000000 00000009 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n'.repeat(2));
    const quiet = await tester.run({ softnet: { cpus: few }, 'sysctl.net': ubuntuSysctl() });
    expect(quiet.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['budget-exhausted', 'info']]);
    // 5e6 packets, 20000 squeezes on one CPU, no drops: nothing lost; with no uptime, or over a
    // day of uptime (833 an hour), a note.
    const many = parseSoftnetStat('004c4b40 00000000 00004e20 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n');
    const severityOf = async (uptime?: number) =>
      (
        await tester.run({
          softnet: { cpus: many },
          'sysctl.net': ubuntuSysctl(),
          ...(uptime === undefined ? {} : { 'host.uptime': { seconds: uptime } }),
        })
      ).findings.map((finding) => [finding.symptom, finding.severity]);
    expect(await severityOf()).toEqual([['budget-exhausted', 'info']]);
    expect(await severityOf(86_400)).toEqual([['budget-exhausted', 'info']]);
    // The same 20000 in 15 minutes of uptime (80000 an hour): the budget runs out all the time under load.
    expect(await severityOf(900)).toEqual([['budget-exhausted', 'warning']]);
    // 2 M squeezes since boot on one CPU (a count that large is sustained, whatever the uptime).
    const lots = parseSoftnetStat('3fffffff 00000000 001e8480 00000000 00000000 00000000 00000000 00000000 00000000 00000000\n');
    const counted = await tester.run({ softnet: { cpus: lots }, 'sysctl.net': ubuntuSysctl(), 'host.uptime': { seconds: 31_536_000 } });
    expect(counted.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['budget-exhausted', 'warning']]);
    expect(counted.findings[0]!.message).toContain('per hour since boot');
  });

  it('ignores drops at or below the configured minimum', async () => {
    const result = await tester.run(
      { softnet: softnetFrom('softnet/nodeexporter-1.txt'), 'sysctl.net': ubuntuSysctl() },
      { options: { minDrops: 100 } },
    );
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['budget-exhausted']);
    expect(result.status).toBe('pass');
  });

  it('is unknown when /proc/net/softnet_stat could not be read', async () => {
    const result = await tester.run({
      softnet: failed('parse-failed', 'softnet_stat line 1 is not 9 or more hex columns'),
      'sysctl.net': ubuntuSysctl(),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('softnet_stat line 1');
  });

  it('the collector reads /proc/net/softnet_stat', async () => {
    const io = fakeHost({ files: { '/proc/net/softnet_stat': realCapture('local-vm/softnet_stat-2cpu.txt') } });
    const result = await new FactStore(io, [softnetCollector], silentLogger()).get('softnet');
    expect(result.ok && result.value.cpus.map((cpu) => cpu.cpu)).toEqual([0, 1]);
    expect(result.sources).toEqual([{ kind: 'file', path: '/proc/net/softnet_stat' }]);
  });
});
