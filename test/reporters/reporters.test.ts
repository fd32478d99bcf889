import { describe, expect, it } from 'vitest';
import { reportSchema, type Report } from '../../src/report/schema.js';
import { render } from '../../src/reporters/index.js';

/** One rich report exercising every state and evidence shape; each format is snapshotted. */
const rich: Report = reportSchema.parse({
  schemaVersion: '1.0',
  tool: { name: 'nicdoctor', version: '0.1.0' },
  generatedAt: '2026-11-29T12:00:00.000Z',
  source: { mode: 'snapshot', path: 'fixtures/hosts/example' },
  profile: 'throughput',
  host: {
    hostname: 'db-7',
    kernel: '6.1.0-22-amd64',
    os: 'Debian GNU/Linux 12',
    arch: 'x64',
    cpuModel: 'Intel Xeon Silver 4108',
    logicalCpus: 32,
    physicalCores: 16,
    virtualization: null,
    root: true,
  },
  interfaces: [
    {
      name: 'enp65s0f0',
      kind: 'physical',
      driver: 'ixgbe',
      pciAddress: '0000:41:00.0',
      speedMbps: 10000,
      duplex: 'full',
      mtu: 1500,
      operstate: 'up',
      numaNode: 1,
      master: null,
    },
    {
      name: 'veth0',
      kind: 'virtual',
      driver: null,
      pciAddress: null,
      speedMbps: null,
      duplex: null,
      mtu: 1500,
      operstate: 'down',
      numaNode: null,
      master: null,
    },
  ],
  checks: [
    {
      id: 'pcie-link',
      title: 'PCIe link carries line rate',
      status: 'fail',
      durationMs: 1.5,
      subjects: [
        { subject: 'enp65s0f0', status: 'fail' },
        { subject: 'veth0', status: 'not-applicable', reason: 'no PCIe device' },
      ],
      findings: [
        {
          check: 'pcie-link',
          symptom: 'pcie-bandwidth-below-port',
          subject: 'enp65s0f0',
          severity: 'critical',
          message: '10G port on PCIe Gen2 x1: ceiling ≈ 3.5 Gb/s',
          fix: 'Move the card at 0000:41:00.0 to an electrically x8 slot',
          evidence: [
            {
              label: 'current link',
              observed: '5 GT/s x1',
              expected: '5 GT/s x8',
              source: { kind: 'file', path: '/sys/bus/pci/devices/0000:41:00.0/current_link_width' },
            },
            {
              label: 'usable PCIe bandwidth',
              observed: 3.56,
              expected: 10,
              unit: 'Gb/s',
              source: { kind: 'command', argv: ['lspci', '-vv', '-s', '0000:41:00.0'] },
            },
          ],
          data: { usableGbps: 3.56 },
        },
      ],
    },
    {
      id: 'mtu',
      title: 'MTU suits the link',
      status: 'pass',
      durationMs: 0.2,
      subjects: [{ subject: 'enp65s0f0', status: 'pass' }],
      findings: [
        {
          check: 'mtu',
          symptom: 'standard-mtu-fast-link',
          subject: 'enp65s0f0',
          severity: 'info',
          message: 'MTU 1500 | a pipe in text',
          evidence: [{ label: 'MTU', observed: 1500, expected: 9000, unit: 'bytes' }],
          data: {},
        },
      ],
    },
    {
      id: 'rx-rings',
      title: 'Rings',
      status: 'unknown',
      reason: 'ethtool: command not found',
      hint: 'install ethtool: apt-get install ethtool',
      durationMs: 0.1,
      subjects: [],
      findings: [],
    },
    {
      id: 'numa-locality',
      title: 'NUMA',
      status: 'not-applicable',
      reason: 'single NUMA node',
      durationMs: 0.1,
      subjects: [],
      findings: [],
    },
    {
      id: 'broken',
      title: 'Broken check',
      status: 'error',
      reason: 'the check broke: boom',
      durationMs: 0.1,
      subjects: [],
      findings: [],
      error: { message: 'boom', stack: 'Error: boom\n    at run (checks/broken.ts:1:1)' },
    },
  ],
  summary: { pass: 1, fail: 1, notApplicable: 1, unknown: 1, error: 1, critical: 1, warning: 0, info: 1 },
  collectors: [{ fact: 'net.device', subject: 'enp65s0f0', ok: true, durationMs: 0.5 }],
  durationMs: 12,
});

describe('reporters', () => {
  it('terminal: short like a doctor: verdict first, only failing checks with evidence and fix, what was not examined; no colour when asked', async () => {
    const text = render(rich, 'terminal', { color: false });
    expect(text).not.toContain('\u001b[');
    const lines = text.split('\n');
    const marks = lines.filter((line) => /^\[.\]/.test(line)).map((line) => line.slice(0, 3));
    expect(marks).toEqual(['[✗]']);
    expect(lines.findIndex((line) => /^(Most likely bottleneck|No bottleneck found|No ranked cause)/.test(line))).toBeLessThan(
      lines.findIndex((line) => line.startsWith('[✗]')),
    );
    expect(text).toMatch(/Not examined — .*\n(.*\n)*.*install ethtool: apt-get install ethtool/);
    await expect(text).toMatchFileSnapshot('__snapshots__/report.terminal.txt');
  });

  it('terminal --verbose: one line per check in registry order, with the hint', () => {
    const text = render(rich, 'terminal', { color: false, verbose: true });
    const marks = text
      .split('\n')
      .filter((line) => /^\[.\]/.test(line))
      .map((line) => line.slice(0, 3));
    expect(marks).toEqual(['[✗]', '[✓]', '[?]', '[-]', '[☠]']);
    expect(text).toContain('→ install ethtool: apt-get install ethtool');
  });

  it('terminal: colour codes only when asked, stack only when verbose', () => {
    expect(render(rich, 'terminal', { color: true })).toContain('\u001b[31m[✗]');
    expect(render(rich, 'terminal', { color: false })).not.toContain('checks/broken.ts');
    expect(render(rich, 'terminal', { color: false, verbose: true })).toContain('checks/broken.ts');
  });

  it('markdown: tables that survive pipes in values', async () => {
    const text = render(rich, 'markdown', { color: false });
    expect(text).toContain('| ❌ | PCIe link carries line rate (`pcie-link`) | fail | 1 finding |');
    expect(text).toContain('MTU 1500 | a pipe in text'); // a heading, not a table cell
    expect(text).toContain('`lspci -vv -s 0000:41:00.0`');
    await expect(text).toMatchFileSnapshot('__snapshots__/report.md');
  });

  it('json: the report itself, parseable and schema-valid', () => {
    const parsed = reportSchema.parse(JSON.parse(render(rich, 'json', { color: false })));
    expect(parsed).toEqual(rich);
  });
});
