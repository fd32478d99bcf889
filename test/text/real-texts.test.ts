import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import type { Report } from '../../src/report/schema.js';
import { analyzeText } from '../../src/text/analyze.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';

/**
 * Real texts (fixtures/text/SOURCES.md), each with what must be recognised and what a NIC
 * engineer concludes from it. `diagnoses`/`symptoms` are what nicdoctor must reach; `engineer`
 * says the human verdict, and `notReached` says honestly where nicdoctor stops short of it.
 */
interface Expectation {
  file: string;
  linkSpeedMbps?: number;
  /** Recognised outputs, in order: kind, or kind:interface. */
  recognised: string[];
  /** Parts named but not used (iperf2, an iperf3 error): kind. */
  notUsed?: string[];
  hosts?: Array<string | null>;
  diagnoses?: string[];
  symptoms?: string[];
  askFor?: RegExp[];
  notes?: RegExp[];
  /** The report's one-line verdict. */
  verdict?: 'bottleneck' | 'no-bottleneck' | 'inconclusive';
  engineer: string;
  notReached?: string;
}

const EXPECTATIONS: Expectation[] = [
  {
    file: 'seed-004-windows-client-P8-40g.txt',
    linkSpeedMbps: 40_000,
    recognised: ['iperf3-text'],
    diagnoses: ['not-the-network'],
    verdict: 'no-bottleneck',
    symptoms: ['throughput/at-link-ceiling'],
    askFor: [/Get-NetAdapter/],
    engineer:
      '8 streams summing to 36.1 Gb/s is 96 % of 40G goodput: the network is fine (the guide expects ~38 Gb/s from Windows clients)',
  },
  {
    file: 'seed-002-10g-stuck-3.5-pcie-x1.txt',
    recognised: ['lspci', 'lspci'],
    diagnoses: ['pcie-bandwidth-below-port'],
    verdict: 'bottleneck',
    symptoms: ['pcie-link/pcie-bandwidth-below-port'],
    engineer: 'a 10G NIC on a PCIe 5 GT/s x1 link (≈ 3.5 Gb/s usable): the slot is the limit; force the port to x16 in BIOS',
  },
  {
    file: 'seed-003-flattened-run-retransmits.txt',
    recognised: ['iperf3-text'],
    diagnoses: ['retransmits-path-loss'],
    symptoms: ['throughput/retransmits'],
    engineer: '343419 retransmits in 60 s at 1.53 Gb/s: packets are lost on the path',
  },
  {
    file: 'seed-003-udp-26pct-loss.txt',
    recognised: ['iperf3-text'],
    notUsed: ['iperf3-text'],
    hosts: ['ss-daliu2', 'ss-daliu1'],
    engineer: '26 % of UDP datagrams lost at 100 Mb/s: the path (a cloud bandwidth limit) drops the excess',
    notReached: 'no check judges UDP loss: the loss is shown in the segment note only',
  },
  {
    file: 'igb-i211-aspm-thread-assembled.txt',
    recognised: [
      'ethtool-settings:enp3s0',
      'ethtool-pause:enp3s0',
      'ethtool-stats:enp3s0',
      'ethtool-features:enp3s0',
      'lspci',
      'lspci',
      'iperf3-text',
    ],
    symptoms: ['throughput/below-link-ceiling', 'nic-drops/nic-drops'],
    diagnoses: ['nic-drops'],
    notes: [/enp3s0: no kernel counters \(ip -s link\) in the text: drops are judged on ethtool -S alone/],
    askFor: [/ethtool -g enp3s0/, /cat \/proc\/interrupts/],
    engineer: 'I211 at 44 Mb/s of 1G with rx_missed_errors: PCIe ASPM L1 exit latency on the path (LnkCtl: ASPM L1 Enabled)',
    notReached:
      'nicdoctor has no ASPM check: it reports the 5 % plateau and the missed packets (rx_missed_errors 270102), not the ASPM cause',
  },
  {
    file: 'igb-i211-udp-slow-run-mailer-wrapped.txt',
    recognised: ['iperf3-text'],
    engineer: 'UDP at 37.7 Mb/s with no loss: the sender is slow, not the network losing packets',
  },
  {
    file: 'docker-bridge-host-vs-container-summaries.txt',
    linkSpeedMbps: 10_000,
    recognised: ['iperf3-text', 'iperf3-text'],
    diagnoses: ['not-the-network'],
    engineer: 'the host reaches 9.9 Gb/s (line rate); the container through the docker bridge loses 13 % and retransmits',
    notReached: 'runs are judged at their best (the host run): the container run is listed, not compared',
  },
  {
    file: 'iavf-proc-interrupts-grep-wrapped.txt',
    recognised: ['proc-interrupts'],
    // The vectors (iavf-net1-TxRx-N) name the VF: the report asks for its outputs by name.
    askFor: [/ethtool -i net1/],
    engineer: 'the iavf queue IRQs all fire on CPU4 (an isolated CPU)',
    notReached: 'without the interface name and its IRQ list the irq-affinity check cannot run',
  },
  {
    file: 'ice-e810xxv-25g-kvm-root-prompts.txt',
    recognised: [
      'ethtool-settings:em1',
      'ethtool-driver:em1',
      'ethtool-rings:em1',
      'ethtool-channels:em1',
      'ethtool-coalesce:em1',
      'ethtool-features:em1',
    ],
    symptoms: ['rss-queues/queues-below-max'],
    engineer: 'E810 at 25G with fewer combined channels in use than the hardware offers',
  },
  {
    file: 'ice-e810xxv-epyc-rxdrops-dollar-prompts.txt',
    recognised: ['ethtool-stats:eth0', 'ethtool-stats:eth1', 'ethtool-driver:eth0', 'ethtool-channels:eth0', 'lspci'],
    symptoms: ['nic-drops/nic-drops'],
    askFor: [/ethtool -g eth0/],
    engineer: 'millions of rx_dropped (software drops, rx_dropped.nic 0): the host, not the NIC, drops after the flood',
    notReached: "the drops are reported; that they are the kernel's (rx_dropped.nic is 0), after a flood, is the engineer's reading",
  },
  {
    file: 'igc-i225v-nfs-fenced.txt',
    recognised: ['ethtool-driver:enp174s0', 'ethtool-stats:enp174s0', 'lspci'],
    engineer: 'I225-V counters without errors: nothing wrong in what was sent',
  },
  {
    file: 'ixgbe-x553-link-down.txt',
    recognised: ['ethtool-settings:eno1', 'ip-link:eno1', 'ethtool-stats:eno1'],
    symptoms: ['link-speed/no-carrier'],
    engineer: 'eno1 has no link (DAC not accepted on kernel 6.6): a physical-layer problem',
  },
  {
    file: 'mlx5-cx6dx-pcie-gen3x8-upstream.txt',
    recognised: ['lspci'],
    engineer: 'the CX-6 Dx (Gen4 x16) sits behind a Gen3 x8 upstream port: 63 Gb/s available',
    notReached: 'the dmesg line is not a recognised output and the truncated lspci has no LnkSta: pcie-link stays unknown',
  },
  {
    file: 'tg3-bcm5719-rss.txt',
    recognised: ['ethtool-driver:enp2s0f0', 'ethtool-channels:enp2s0f0', 'ethtool-rxfh:enp2s0f0'],
    hosts: ['hpe'],
    symptoms: ['rss-queues/queues-below-max'],
    engineer: 'tg3 with RSS over fewer rings than it has; the reported reordering is in queue 0',
  },
  {
    file: 'netutils-i350-82599-l2-bridge-headers.txt',
    recognised: ['lscpu', 'proc-interrupts', 'ethtool-driver:eth2', 'ethtool-rings:eth2', 'ethtool-coalesce:eth2'],
    diagnoses: ['rings-below-max'],
    engineer: 'the 82599 eth2 runs rings below their maximum on a bridge box',
  },
  {
    file: 'iperf3-3.0-tcp-retransmits.txt',
    recognised: ['iperf3-text'],
    diagnoses: ['retransmits-path-loss'],
    engineer: '14117 retransmits: 2 % packet loss on the path',
  },
  {
    file: 'iperf3-3.1-udp-loss-old-format.txt',
    recognised: ['iperf3-text'],
    engineer: '10 % UDP loss',
    notReached: 'no check judges UDP loss: shown in the segment note',
  },
  {
    file: 'iperf3-3.6-server-verbose.txt',
    recognised: ['iperf3-text'],
    diagnoses: ['tool-single-threaded-version'],
    symptoms: ['iperf3/single-threaded-version'],
    engineer: 'iperf3 3.6 runs every stream on one thread: at 22 Gb/s one core, not the network, is the ceiling',
  },
  {
    file: 'iperf3-3.12-one-vs-two-processes-loopback.txt',
    linkSpeedMbps: 40_000,
    recognised: ['iperf3-text', 'iperf3-text'],
    diagnoses: ['tool-single-core-bound'],
    symptoms: ['throughput/single-core-bound'],
    engineer: 'one process 12.8 Gb/s, two processes 22.8 Gb/s: one iperf3 process is the ceiling (one core), not the network',
  },
  {
    file: 'iperf3-3.12-P1-vs-P4-loopback.txt',
    recognised: ['iperf3-text', 'iperf3-text'],
    notes: [/streams sum to a flat total: 1 stream 10\.60 Gb\/s, 4 streams 5\.45 Gb\/s/],
    engineer: '-P 4 does not beat -P 1 in one process: a per-process (one core) limit of single-threaded iperf3',
    notReached: 'said in the notes, not by a rule: the throughput check judges processes, and one process with more streams is still one',
  },
  {
    file: 'sysctl-centos77-grep-net.txt',
    recognised: ['sysctl'],
    askFor: [/ethtool <interface>/],
    engineer: 'CentOS 7.7 defaults (rmem_max 212992): too small for 10G+ at any distance, once the link is known',
    notReached: 'socket-buffers needs the link speed: without an interface it asks for it',
  },
  {
    file: 'softnet-rhel9-13col-no-prompt.txt',
    recognised: ['softnet'],
    diagnoses: ['softnet-backlog-drops', 'softnet-budget-exhausted'],
    engineer: 'backlog drops on every CPU and time_squeeze: the kernel cannot keep up (netdev_max_backlog, netdev_budget)',
  },
  {
    file: 'numactl-aws-c5n18xl-2node-no-prompt.txt',
    recognised: ['numactl'],
    engineer: "two NUMA nodes: the NIC's node decides where IRQs and iperf3 belong",
    notReached: 'numa-locality needs the NIC (its numa_node): not in this text',
  },
  {
    file: 'iperf3-error-busy.txt',
    recognised: [],
    notUsed: ['iperf3-text'],
    askFor: [/iperf3 -c <server>/],
    engineer: 'the test never ran: the server was busy',
  },
  {
    file: 'forum-iperf2-82572ei-gigabit.txt',
    recognised: ['lspci'],
    notUsed: ['iperf2', 'iperf2'],
    hosts: ['Z97K1LLER'],
    engineer: 'iperf2 at 942 Mb/s on a 1G 82572EI: line rate',
    notReached: 'iperf2 is named, not judged',
  },
];

const read = (file: string) => readFileSync(path.join(FIXTURES, 'text', file), 'utf8');
const label = (segment: NonNullable<Report['source']['segments']>[number]) =>
  (segment.interface && segment.kind.startsWith('ethtool')) || segment.kind === 'ip-link'
    ? `${segment.kind}:${segment.interface}`
    : segment.kind;

describe('analyze on real pasted texts', () => {
  for (const expectation of EXPECTATIONS) {
    it(`${expectation.file}: ${expectation.engineer}`, async () => {
      const outcomes = await analyzeText(read(expectation.file), {
        checks,
        log: silentLogger(),
        ...(expectation.linkSpeedMbps ? { linkSpeedMbps: expectation.linkSpeedMbps } : {}),
      });
      const reports = outcomes.map((outcome) => outcome.report);
      if (expectation.hosts)
        expect(reports.map((report) => report.host.hostname)).toEqual(expectation.hosts.map((host) => host ?? 'unknown'));
      else expect(reports).toHaveLength(1);
      const own = (report: Report) =>
        (report.source.segments ?? []).filter(
          (segment) =>
            segment.kind !== 'ignored' && (segment.host ?? null) === (reports.length > 1 ? report.host.hostname : (segment.host ?? null)),
        );
      const segments = reports.flatMap(own);
      for (const report of reports) expect(report.source.mode).toBe('text');
      expect(segments.filter((segment) => segment.recognised).map(label)).toEqual(expectation.recognised);
      expect(segments.filter((segment) => !segment.recognised).map((segment) => segment.kind)).toEqual(expectation.notUsed ?? []);
      // A cause the report ranks, or (low confidence, info findings only) gives as a note.
      const diagnoses = reports.flatMap((report) => [...report.diagnoses, ...report.notes].map((diagnosis) => diagnosis.ruleId));
      for (const rule of expectation.diagnoses ?? []) expect(diagnoses).toContain(rule);
      if (expectation.verdict) expect(reports.map((report) => report.verdict?.status)).toContain(expectation.verdict);
      const symptoms = reports.flatMap((report) =>
        report.checks.flatMap((check) => check.findings.map((finding) => `${finding.check}/${finding.symptom}`)),
      );
      for (const symptom of expectation.symptoms ?? []) expect(symptoms).toContain(symptom);
      const asks = reports.flatMap((report) => (report.askFor ?? []).map((ask) => ask.command));
      for (const pattern of expectation.askFor ?? [])
        expect(
          asks.some((command) => pattern.test(command)),
          `${pattern} in ${asks.join(' | ')}`,
        ).toBe(true);
      const notes = reports.flatMap((report) => report.source.notes ?? []).join('\n');
      for (const pattern of expectation.notes ?? []) expect(notes).toMatch(pattern);
    });
  }

  it('has at least 15 real texts with expectations, each a file in fixtures/text', () => {
    expect(EXPECTATIONS.length).toBeGreaterThanOrEqual(15);
    const sources = read('SOURCES.md');
    for (const expectation of EXPECTATIONS) expect(sources).toContain(`\`${expectation.file}\``);
  });

  it('without a link speed the Windows run is not judged, and the report asks for the adapter', async () => {
    const [outcome] = await analyzeText(read('seed-004-windows-client-P8-40g.txt'), { checks, log: silentLogger() });
    expect(outcome!.report.diagnoses).toEqual([]);
    expect(outcome!.report.bench?.result?.bitsPerSecond).toBe(36.1e9);
    expect(outcome!.report.bench?.result?.streamsPerProcess).toBe(8);
    expect(outcome!.report.askFor?.map((ask) => ask.command).join('\n')).toMatch(/Get-NetAdapter/);
  });

  it('the 10G link speed stated in prose is used and said so', async () => {
    const [outcome] = await analyzeText(read('seed-002-10g-stuck-3.5-pcie-x1.txt'), { checks, log: silentLogger() });
    expect(outcome!.report.interfaces[0]).toMatchObject({ name: 'unnamed-nic', speedMbps: 10_000 });
    expect(outcome!.report.source.notes?.join('\n')).toMatch(/link speed 10 Gb\/s as stated in the text/);
    const pcie = outcome!.report.checks.find((check) => check.id === 'pcie-link');
    expect(pcie?.status).toBe('fail');
  });
});
