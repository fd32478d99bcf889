import { describe, expect, it } from 'vitest';
import { reportSchema, type DiagnosisEntry, type Report } from '../../src/report/schema.js';
import { buildPlan } from '../../src/fix/plan.js';
import { renderScript } from '../../src/fix/script.js';

type Fix = DiagnosisEntry['fixes'][number];

function diagnosis(ruleId: string, fixes: Fix[], extra: Partial<DiagnosisEntry> = {}): DiagnosisEntry {
  return {
    ruleId,
    title: `Title of ${ruleId}`,
    cause: 9,
    relatedCauses: [],
    subject: 'eth0',
    confidence: 'high',
    score: 10,
    mode: 'static',
    explanation: `Explanation of ${ruleId}`,
    verdict: 'Not measured.',
    limit: null,
    evidence: [],
    ruledOut: [],
    fixes,
    references: [],
    notes: [],
    ...extra,
  };
}

function report(diagnoses: DiagnosisEntry[], overrides: Record<string, unknown> = {}): Report {
  return reportSchema.parse({
    schemaVersion: '1.0',
    tool: { name: 'nicdoctor', version: '0.1.0' },
    generatedAt: '2026-01-02T03:04:05.000Z',
    source: { mode: 'live' },
    profile: 'throughput',
    host: {
      hostname: 'db1',
      kernel: '6.1',
      os: 'Debian 12',
      arch: 'x64',
      cpuModel: 'x',
      logicalCpus: 8,
      physicalCores: 4,
      virtualization: null,
      root: true,
    },
    interfaces: [
      {
        name: 'eth0',
        kind: 'physical',
        driver: 'ixgbe',
        pciAddress: '0000:41:00.0',
        speedMbps: 10000,
        duplex: 'full',
        mtu: 1500,
        operstate: 'up',
        numaNode: 0,
        master: null,
      },
    ],
    checks: [
      {
        id: 'offloads',
        title: 'Offloads',
        status: 'fail',
        durationMs: 1,
        subjects: [{ subject: 'eth0', status: 'fail' }],
        findings: [
          {
            symptom: 'offload-off',
            check: 'offloads',
            subject: 'eth0',
            severity: 'warning',
            message: 'eth0: TSO off',
            evidence: [{ label: 'tcp-segmentation-offload', observed: 'off', expected: 'on' }],
            data: {},
          },
        ],
      },
    ],
    summary: { pass: 0, fail: 1, notApplicable: 0, unknown: 0, error: 0, critical: 0, warning: 1, info: 0 },
    collectors: [],
    diagnoses,
    durationMs: 5,
    ...overrides,
  });
}

const offloads = diagnosis(
  'offloads-off',
  [
    {
      text: 'Turn the offloads back on for eth0.',
      commands: ['ethtool -K eth0 tso on gso on'],
      operations: [{ kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'] }],
      disruptive: false,
      persistent: {
        file: '/etc/systemd/network/10-eth0-offloads.link',
        content:
          '[Match]\nOriginalName=eth0\n[Link]\nTCPSegmentationOffload=yes\nGenericSegmentationOffload=yes\nGenericReceiveOffload=yes\n',
      },
    },
  ],
  { evidence: [{ check: 'offloads', symptom: 'offload-off', subject: 'eth0' }] },
);
const buffers = diagnosis(
  'socket-buffers-small',
  [
    {
      text: 'Raise the socket buffers.',
      commands: [],
      operations: [],
      disruptive: false,
      persistent: {
        file: '/etc/sysctl.d/90-nicdoctor.conf',
        content: '# tier\nnet.core.rmem_max = 67108864\nnet.ipv4.tcp_rmem = 4096 87380 33554432\n',
      },
    },
  ],
  { subject: 'host' },
);
const backlog = diagnosis(
  'softnet-backlog-drops',
  [
    {
      text: 'Raise the backlog.',
      commands: ['sysctl -w net.core.netdev_max_backlog=250000'],
      operations: [{ kind: 'sysctl', key: 'net.core.netdev_max_backlog', value: '250000' }],
      disruptive: false,
      persistent: {
        file: '/etc/sysctl.d/90-nicdoctor.conf',
        content: 'net.core.netdev_max_backlog = 250000\nnet.core.rmem_max = 33554432\n',
      },
    },
  ],
  { subject: 'host' },
);
const rings = diagnosis('rings-small', [
  {
    text: 'Raise the rings (the link resets briefly).',
    commands: ['ethtool -G eth0 rx 4096 tx 4096'],
    operations: [{ kind: 'ethtool-rings', iface: 'eth0', rx: 4096, tx: 4096 }],
    disruptive: true,
    persistent: {
      file: '/etc/systemd/network/10-eth0-rings.link',
      content: '[Match]\nOriginalName=eth0\n[Link]\nRxBufferSize=4096\nTxBufferSize=4096\n',
    },
  },
]);

function scriptOf(diagnoses: DiagnosisEntry[]): string {
  return renderScript(buildPlan(report(diagnoses)));
}

/** The lines bash would execute: not comments, not heredoc bodies. */
function executedLines(script: string): string[] {
  const lines: string[] = [];
  let delimiter: string | null = null;
  for (const line of script.split('\n')) {
    if (delimiter) {
      if (line === delimiter) delimiter = null;
      continue;
    }
    const heredoc = /<<'([A-Z_]+)'$/.exec(line);
    if (heredoc) delimiter = heredoc[1]!;
    if (line.trim() && !line.startsWith('#')) lines.push(line);
  }
  return lines;
}

describe('nicdoctor fix script', () => {
  it('starts with bash, strict mode and a header naming the host and report, saying nothing ran', () => {
    const script = scriptOf([offloads]);
    const lines = script.split('\n');
    expect(lines[0]).toBe('#!/usr/bin/env bash');
    expect(script).toContain('set -euo pipefail');
    expect(script).toMatch(/# nicdoctor fix: changes proposed for db1\n# from the report of 2026-01-02T03:04:05.000Z \(live\)/);
    expect(script).toContain('# Nothing has been changed');
  });

  it('explains each diagnosis in rank order with title, explanation and the evidence findings', () => {
    const script = scriptOf([offloads, buffers]);
    expect(script.indexOf('# 1. Title of offloads-off  [offloads-off]')).toBeGreaterThan(0);
    expect(script.indexOf('# 2. Title of socket-buffers-small')).toBeGreaterThan(script.indexOf('# 1. Title of offloads-off'));
    expect(script).toContain('# Why: Explanation of offloads-off');
    expect(script).toContain('#   offloads/offload-off (warning) on eth0: eth0: TSO off');
    expect(script).toContain('#     tcp-segmentation-offload: off (expected on)');
    expect(executedLines(script)).toContain('ethtool -K eth0 tso on gso on');
  });

  it('merges every sysctl line of every diagnosis into one drop-in heredoc; the first (higher-ranked) value wins', () => {
    const script = scriptOf([buffers, backlog]);
    const heredocs = script.match(/cat > \/etc\/sysctl\.d\/90-nicdoctor\.conf <<'NICDOCTOR_EOF'/g) ?? [];
    expect(heredocs).toHaveLength(1);
    const body = script.slice(
      script.indexOf("90-nicdoctor.conf <<'NICDOCTOR_EOF'"),
      script.indexOf('NICDOCTOR_EOF\n', script.indexOf("90-nicdoctor.conf <<'NICDOCTOR_EOF'") + 40),
    );
    expect(body).toContain('net.core.rmem_max = 67108864');
    expect(body).toContain('net.ipv4.tcp_rmem = 4096 87380 33554432');
    expect(body).toContain('net.core.netdev_max_backlog = 250000');
    expect(body).not.toContain('net.core.rmem_max = 33554432\n');
    expect(body).toContain('# softnet-backlog-drops asked for net.core.rmem_max = 33554432; the higher-ranked value above wins');
    // The drop-in's values are set now, one by one (never `sysctl --system`, which reloads every drop-in on the host).
    const executed = executedLines(script);
    expect(executed).not.toContain('sysctl --system');
    expect(executed).toContain('sysctl -w net.core.rmem_max=67108864');
    expect(executed).toContain("sysctl -w 'net.ipv4.tcp_rmem=4096 87380 33554432'");
    expect(executed).toContain('sysctl -w net.core.netdev_max_backlog=250000');
  });

  it('comments out disruptive fixes with a warning, in runtime and persistent form', () => {
    const script = scriptOf([offloads, rings]);
    expect(script).toContain('# DISRUPTIVE, not run: Raise the rings (the link resets briefly).');
    expect(script).toContain('# WARNING:');
    expect(script).toContain('# ethtool -G eth0 rx 4096 tx 4096');
    const executed = executedLines(script);
    expect(executed.some((line) => line.includes('ethtool -G'))).toBe(false);
    expect(script).toMatch(/^# RxBufferSize=4096 +\(disruptive, rings-small/m);
  });

  it('writes one .link file per interface matched by PCI path, with the naming policy kept and NM/udev alternatives', () => {
    const script = scriptOf([offloads, rings]);
    expect(script.match(/\.link <<'/g)).toHaveLength(1);
    expect(script).toContain("cat > /etc/systemd/network/10-nicdoctor-eth0.link <<'NICDOCTOR_EOF'");
    expect(script).toContain('Path=pci-0000:41:00.0');
    expect(script).toContain('NamePolicy=keep kernel database onboard slot path');
    expect(script).toMatch(/^TCPSegmentationOffload=yes$/m);
    expect(script).toMatch(/^GenericReceiveOffload=yes$/m);
    expect(script).toContain('ethtool.feature-tso on ethtool.feature-gso on');
    expect(script).toContain('RUN+="/usr/sbin/ethtool -K eth0 tso on gso on"');
  });

  it('prints a manual operation with a hand-written placeholder as not runnable', () => {
    const script = scriptOf([
      diagnosis('tool', [
        {
          text: 'Test with more processes.',
          commands: ['iperf3 -c <peer> -p 5101'],
          operations: [{ kind: 'manual', text: 'iperf3 -c <peer> -p 5101' }],
          disruptive: false,
        },
      ]),
    ]);
    expect(executedLines(script).some((line) => line.includes('<peer>'))).toBe(false);
    expect(script).toContain('# not runnable (not filled in: <peer>): iperf3 -c <peer> -p 5101');
  });

  it('quotes a hostile interface name in an operation: still a change, one argv word', () => {
    const name = 'e$(reboot)';
    const plan = buildPlan(
      report([
        diagnosis(
          'offloads-off',
          [{ text: 'x', commands: [], operations: [{ kind: 'ethtool-features', iface: name, on: ['tso'] }], disruptive: false }],
          { subject: name },
        ),
      ]),
    );
    expect(plan.apply.map((item) => item.change)).toEqual([{ kind: 'ethtool-features', iface: name, on: ['tso'] }]);
    expect(plan.diagnoses[0]!.fixes[0]!.commands[0]).toMatchObject({ kind: 'change', text: "ethtool -K 'e$(reboot)' tso on" });
  });

  it('never prints a half-filled command of a report without operations as runnable', () => {
    const script = scriptOf([
      diagnosis('tool', [
        {
          text: 'Test with more processes.',
          commands: ['iperf3 -c <peer> -p 5101', 'ethtool -G eth0 rx {rxMax} tx {txMax}', 'cpupower frequency-set -g performance'],
          disruptive: false,
        },
      ]),
    ]);
    const executed = executedLines(script);
    expect(executed.some((line) => /<peer>|\{rxMax\}/.test(line))).toBe(false);
    expect(script).toContain('# not runnable (not filled in: <peer>): iperf3 -c <peer> -p 5101');
    expect(script).toContain('# not runnable (not filled in: {rxMax}, {txMax}): ethtool -G eth0 rx {rxMax} tx {txMax}');
    expect(executed).toContain('cpupower frequency-set -g performance');
  });

  it('keeps values from the report inside comments and quoted heredocs: no line break escapes', () => {
    const hostile = diagnosis(
      'hostile',
      [
        {
          text: 'Fix it.\nrm -rf / #',
          commands: ['ethtool -K eth0 tso on\nrm -rf /', 'echo $(id) > /tmp/x'],
          disruptive: false,
          persistent: {
            file: '/etc/sysctl.d/90-nicdoctor.conf',
            content: 'net.ipv4.tcp_rmem = 4096 $(reboot) `id`\nNICDOCTOR_EOF\nnet.ipv4.tcp_sack = 1\n',
          },
        },
      ],
      { title: 'Bad\nreboot', explanation: 'line one\r\nshutdown -h now' },
    );
    const script = renderScript(
      buildPlan(
        report([hostile], {
          host: {
            hostname: 'h\nreboot',
            kernel: '6.1',
            os: 'x',
            arch: 'x64',
            cpuModel: 'x',
            logicalCpus: 1,
            physicalCores: 1,
            virtualization: null,
            root: true,
          },
        }),
      ),
    );
    const executed = executedLines(script);
    for (const line of executed) expect(line).not.toMatch(/^(rm|reboot|shutdown)/);
    expect(executed).not.toContain('rm -rf /');
    expect(script).toContain('# not runnable (spans several lines)');
    // The heredoc is quoted (no expansion), and its body holds only validated key = value lines.
    expect(script).toContain("<<'NICDOCTOR_EOF'");
    expect(script).toContain('net.ipv4.tcp_rmem = 4096 $(reboot) `id`');
    expect(script).toMatch(/^net\.ipv4\.tcp_sack = 1$/m);
    // A content line equal to the delimiter was rejected, so the heredoc cannot end early.
    expect(executed.filter((line) => line === 'NICDOCTOR_EOF')).toHaveLength(0);
    // The $(...) value is written to the file but never set at runtime by nicdoctor's vocabulary.
    expect(buildPlan(report([hostile])).apply.map((item) => item.change)).toEqual([
      { kind: 'sysctl', key: 'net.ipv4.tcp_sack', value: '1' },
    ]);
  });

  it('says so when there is nothing to fix', () => {
    const script = scriptOf([]);
    expect(script).toContain('# No diagnoses: nothing to fix.');
    expect(executedLines(script)).toEqual(['set -euo pipefail', 'exit 0']);
  });

  it('plans for --apply only the non-disruptive whitelisted changes, once each', () => {
    const again = diagnosis('dup', [
      {
        text: 'again',
        commands: [],
        disruptive: false,
        operations: [
          { kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'] },
          { kind: 'manual', text: 'systemctl enable --now irqbalance' },
          { kind: 'irq-affinity', irqs: [40, 41], cpus: '0-1' },
          { kind: 'inspect', argv: ['ethtool', '-S', 'eth0'] },
        ],
      },
    ]);
    const plan = buildPlan(report([offloads, rings, buffers, again]));
    expect(plan.apply.map((item) => item.change)).toEqual([
      { kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'] },
      { kind: 'sysctl', key: 'net.core.rmem_max', value: '67108864' },
      { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 87380 33554432' },
    ]);
    expect(plan.disruptive.map((item) => item.text)).toEqual(['ethtool -G eth0 rx 4096 tx 4096']);
    expect(plan.notApplied).toEqual([
      { text: 'systemctl enable --now irqbalance', ruleId: 'dup', reason: expect.stringContaining('a step for a human') },
      {
        text: 'cpus=(0 1); i=0; for irq in 40 41; do echo ${cpus[i++ % 2]} > /proc/irq/$irq/smp_affinity_list; done',
        ruleId: 'dup',
        reason: expect.stringContaining('smp_affinity_list'),
      },
    ]);
    expect(plan.diagnoses[3]!.fixes[0]!.commands.map((command) => command.kind)).toEqual(['duplicate', 'manual', 'manual', 'inspect']);
  });

  it('never turns a fix text into a command: only operations are planned', () => {
    const plan = buildPlan(
      report([
        diagnosis('rss', [
          { text: 'ethtool -L eth0 combined 8 (one queue per NIC-local CPU)', commands: [], operations: [], disruptive: false },
        ]),
      ]),
    );
    expect(plan.apply).toEqual([]);
  });
});

describe('.link and udev matches are literal (issue 18.6)', () => {
  /** TSO for an interface named `name`, on a report where it has no PCI address (a veth, a VM's virtio by name). */
  function globScript(name: string, pciAddress: string | null): string {
    const fix = diagnosis('offloads-off', [
      {
        text: `Turn TSO back on for ${name}.`,
        commands: [`ethtool -K '${name}' tso on`],
        operations: [{ kind: 'ethtool-features', iface: name, on: ['tso'] }],
        disruptive: false,
      },
    ]);
    const base = report([fix]);
    const iface = { ...base.interfaces[0]!, name, pciAddress };
    return renderScript(buildPlan(report([fix], { interfaces: [iface] })));
  }

  it.each(['*', 'eth?', 'en[ps]0', '!eth0', 'a|b'])(
    'an interface named %j gets no .link matching by name, nor a udev NAME== rule',
    (name) => {
      const script = globScript(name, null);
      expect(script).not.toMatch(/^OriginalName=/m);
      expect(script).not.toContain('.link <<');
      expect(script).not.toMatch(/NAME=="/);
      expect(script).toContain(`Persistent: not written for ${name}: its name holds glob characters`);
      // The runtime change is still there, quoted for the shell.
      expect(script).toMatch(/^ethtool -K .+ tso on/m);
    },
  );

  it('with a PCI address the .link matches its Path= literally, still with no udev NAME== glob', () => {
    const script = globScript('*', '0000:41:00.0');
    expect(script).toContain('Path=pci-0000:41:00.0');
    expect(script).not.toMatch(/^OriginalName=/m);
    expect(script).not.toMatch(/NAME=="/);
  });

  it('a plain name keeps its OriginalName= match', () => {
    expect(globScript('veth0', null)).toMatch(/^OriginalName=veth0$/m);
  });
});
