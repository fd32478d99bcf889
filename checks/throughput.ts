import { z } from 'zod';
import { coefficientOfVariation, median } from '../src/util/stats.js';
import type { BenchMeasurement } from '../src/collectors/bench-result.js';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { BenchProcess, Evidence } from '../src/report/schema.js';

const options = z.object({
  /** A process at or above this share of its core (or of its cgroup quota) is CPU-bound. */
  cpuBoundFraction: z.number().min(0).max(1).default(0.9),
  /** More processes "raised the sum" when the best step beats one process by this factor. */
  scalingFactor: z.number().min(1).default(1.3),
  /**
   * Each process is limited on its own when k processes reach at least this share of k times one
   * process ("more processes scale"), whatever its CPU figure says: the far end's process, under
   * the same limit, may be the one at 100 %.
   */
  linearScaling: z.number().min(0).max(1).default(0.75),
  /** At or above this fraction of the goodput ceiling the link is the limit (healthy). */
  atCeilingFraction: z.number().min(0).max(1.2).default(0.92),
  /** Above this fraction of the goodput ceiling the link speed is nominal, not the link's (the ramp's rule too). */
  nominalSpeedFraction: z.number().min(1).default(1.05),
  /** Retransmits of this share of segments or more are critical: TCP cannot fill a fast link at that loss (Mathis: 0.3 % at 1 ms RTT ≈ 0.26 Gb/s per stream). */
  criticalRetransmitRate: z.number().min(0).default(0.003),
  /** Retransmitted segments per segment sent above which loss is reported. */
  retransmitRate: z.number().min(0).default(0.003),
  /** A plateau within this band around the PCIe budget is PCIe-bound. */
  pcieBandLow: z.number().default(0.8),
  pcieBandHigh: z.number().default(1.05),
  bidirAsymmetry: z.number().min(0).max(1).default(0.25),
  unstableCv: z.number().min(0).default(0.15),
  /**
   * An interval below this fraction of the best one, after traffic has flowed, is a stall:
   * transmission stopped (a transmit hang, a link drop, a retransmission timeout), an event to look
   * for in the kernel log, not the jitter that frequency scaling or IRQ placement cause.
   */
  stallFraction: z.number().min(0).max(1).default(0.01),
  collapseRatio: z.number().min(1).default(3),
  /**
   * Broken segmentation offload shows as a working first second, then a collapse. A first interval
   * below this never got going (a few initial windows and their retransmissions, about a megabyte
   * or less): that run stalled from the start, which is judged as a stall.
   */
  collapseMinFirstMbps: z.number().nonnegative().default(8),
  /** Bytes per TCP segment, for the retransmit rate (MSS at MTU 1500). */
  segmentBytes: z.number().positive().default(1448),
  /**
   * When the sender took back at least this share of its loss recoveries as spurious (DSACK or
   * timestamps showed the segments had arrived), the retransmits answered reordering, not loss.
   */
  spuriousRecoveryShare: z.number().min(0).max(1).default(0.5),
  /** Fewer recoveries than this say nothing about their nature. */
  minRecoveries: z.number().int().positive().default(10),
});

type Options = z.infer<typeof options>;

const gbps = (bps: number) => Number((bps / 1e9).toFixed(2));

const rate = z.number().nonnegative();
const percent = z.number().nonnegative();
/** An iperf3 version as it prints it ("3.16", "3.9+"). */
const version = z.string().min(1);

/** The plateau against the link's TCP goodput ceiling. */
const ceilingData = z.object({
  resultGbps: rate,
  ceilingGbps: rate,
  percent,
  /** The benched interface; null when the bench did not name one (a pasted run). */
  interface: z.string().min(1).nullable(),
  linkGbps: rate.nullable(),
  /** null when the MTU is unknown (a pasted run). */
  mtu: z.number().int().positive().nullable(),
  processes: z.number().int().positive(),
});

const ceilingPhrases = {
  linkName: (d: z.infer<typeof ceilingData>) => d.interface ?? 'the link',
  linkSpeed: (d: z.infer<typeof ceilingData>) => (d.linkGbps === null ? 'unknown' : String(d.linkGbps)),
  mtuText: (d: z.infer<typeof ceilingData>) => (d.mtu === null ? 'unknown' : String(d.mtu)),
};

function cpuShare(process: BenchProcess): { percent: number; limit: number } | null {
  const percent = process.measuredCpuPercent ?? process.hostCpuPercent;
  if (percent === null) return null;
  return { percent, limit: process.cpuQuotaPercent ?? 100 };
}

export default defineCheck({
  id: 'throughput',
  title: 'Measured throughput',
  description:
    'Judges the calibrated multi-process iperf3 bench (nicdoctor bench, scan --peer/--loopback): the plateau against the link goodput ceiling and the PCIe budget, single-core-bound processes, retransmits, instability, collapse after the first interval, bidirectional asymmetry, iperf3 version skew and busy servers.',
  scope: 'host',
  requires: [],
  optionalFacts: ['bench.result'],
  options,
  symptoms: {
    'single-core-bound': symptom({
      severity: 'warning',
      data: z.object({
        /** One process's CPU (% of one core) and the limit it had (100, or its cgroup quota); null when not measured. */
        cpuPercent: percent.nullable(),
        limitPercent: percent.nullable(),
        cpuBound: z.boolean(),
        /** The far end's iperf3 CPU, as iperf3 reports it. */
        remoteCpuPercent: percent.nullable(),
        /** Sum of the most linear step against its processes × one process, and that step's process count. */
        efficiencyPercent: percent,
        scaledProcesses: z.number().int().min(2),
        singleGbps: rate,
        bestGbps: rate,
        bestProcesses: z.number().int().min(2),
        ratio: z.number().nonnegative(),
      }),
      phrases: {
        cpuNote: (d) =>
          d.cpuPercent === null || d.limitPercent === null
            ? 'its CPU use was not measured'
            : d.cpuBound
              ? `it used ${d.cpuPercent.toFixed(1)} % of its core (limit ${Math.round(d.limitPercent)} %): CPU-bound`
              : `it used ${d.cpuPercent.toFixed(1)} % of its core (limit ${Math.round(d.limitPercent)} %), so the process at its limit is the far end's (remote CPU ${d.remoteCpuPercent?.toFixed(1) ?? '?'} %) or each stream's window`,
      },
      message:
        'One iperf3 process reached {singleGbps} Gb/s while {bestProcesses} processes reached {bestGbps} Gb/s ({efficiencyPercent} % of linear scaling at {scaledProcesses} processes): a single process is the limit, not the network; {cpuNote}',
      fix: 'Measure with one iperf3 process per core on separate ports (nicdoctor bench does), or iperf3 ≥ 3.16 on both ends (one thread per stream); pin processes to NIC-local cores with taskset/numactl, never -A with threads',
    }),
    'below-link-ceiling': symptom({
      severity: 'warning',
      data: ceilingData,
      phrases: ceilingPhrases,
      message:
        'The best plateau is {resultGbps} Gb/s, {percent} % of the {ceilingGbps} Gb/s TCP goodput ceiling of {linkName} ({linkSpeed} Gb/s, MTU {mtuText})',
      fix: 'See the diagnoses for the cause: PCIe link, IRQ/RSS spread, offloads, socket buffers, CPU frequency, NUMA placement',
    }),
    'at-link-ceiling': symptom({
      severity: 'info',
      data: ceilingData,
      phrases: ceilingPhrases,
      message:
        'Throughput reaches the link: {resultGbps} Gb/s = {percent} % of the {ceilingGbps} Gb/s goodput ceiling ({processes} processes)',
    }),
    'exceeds-link-speed': symptom({
      severity: 'info',
      data: ceilingData,
      phrases: ceilingPhrases,
      message:
        'The bench moved {resultGbps} Gb/s, {percent} % of the {ceilingGbps} Gb/s goodput ceiling of a {linkSpeed} Gb/s link: that speed is nominal (a veth or virtual NIC) or --link-speed is too low, so no ceiling is judged',
    }),
    'pcie-bound': symptom({
      severity: 'critical',
      data: z.object({ resultGbps: rate, pcieGbps: rate, percent }),
      message:
        'The plateau of {resultGbps} Gb/s sits at {percent} % of the {pcieGbps} Gb/s the PCIe link can carry: the slot is the limit, not the network',
      fix: 'Move the NIC to an electrically wider / faster (CPU-attached) slot, or set the slot width/generation in BIOS; see the pcie-link check',
    }),
    retransmits: symptom({
      severity: 'warning',
      data: z.object({
        retransmits: z.number().int().nonnegative(),
        durationSeconds: z.number().positive(),
        perGb: z.number().int().nonnegative(),
        ratePercent: percent,
      }),
      message:
        '{retransmits} TCP retransmits in {durationSeconds} s ({perGb} per GB sent, {ratePercent} % of segments): packets are being lost',
      fix: 'Look at NIC drops (rings: ethtool -G), softnet drops, flow control, the switch port and cabling; many unpaced streams also cause loss (fq pacing)',
    }),
    'retransmits-reordered': symptom({
      severity: 'info',
      data: z.object({
        retransmits: z.number().int().nonnegative(),
        durationSeconds: z.number().positive(),
        ratePercent: percent,
        recoveries: z.number().int().positive(),
        undone: z.number().int().nonnegative(),
        undonePercent: percent,
      }),
      message:
        '{retransmits} TCP retransmits in {durationSeconds} s ({ratePercent} % of segments), but the sender took back {undone} of its {recoveries} loss recoveries ({undonePercent} %) once DSACK or timestamps showed the segments had arrived: packets were reordered, not lost',
      fix: "Reordering inside a host comes from one flow's packets handled on several CPUs (RPS/RFS on veth or tunnels, a NIC hashing one flow to several queues); on a path, from LAG or ECMP members. Compare nstat TcpExtTCPSACKReorder and TcpExtTCPDSACKRecv before and after a test; raise net.ipv4.tcp_reordering only where the path reorders by design",
    }),
    'bidir-asymmetry': symptom({
      severity: 'warning',
      data: z.object({ forwardGbps: rate, reverseGbps: rate, asymmetryPercent: percent }),
      message: 'The two directions differ: {forwardGbps} Gb/s one way, {reverseGbps} Gb/s the other ({asymmetryPercent} %)',
      fix: 'Compare IRQ affinity, RSS and NUMA placement on both hosts; the slower receiver is the suspect',
    }),
    unstable: symptom({
      severity: 'warning',
      // lossPercent: the run's TCP retransmits per segment sent (null for UDP).
      data: z.object({ cvPercent: percent, lossPercent: z.number().nonnegative().nullable() }),
      message: 'Throughput fluctuates between intervals (coefficient of variation {cvPercent} %)',
      fix: 'Set the CPU governor to performance, pin processes to physical cores (SMT), keep IRQs and processes on the NIC-local NUMA node',
    }),
    stalled: symptom({
      severity: 'warning',
      data: z.object({
        stalledIntervals: z.number().int().positive(),
        intervals: z.number().int().positive(),
        bestGbps: rate,
        bestMbps: z.number().nonnegative(),
        /**
         * Even the best interval moved less than a working start (collapseMinFirstMbps): the
         * connection opened and its first windows went out, then nothing arrived. Small packets
         * pass and full-size segments do not: the signature of frames larger than the path carries.
         */
        neverStarted: z.boolean(),
      }),
      phrases: {
        reached: (d) =>
          d.neverStarted ? `the best one moved only ${d.bestMbps} Mb/s: the transfer never got going` : `others reached ${d.bestGbps} Gb/s`,
      },
      message:
        'Throughput stopped: {stalledIntervals} of {intervals} intervals carried (almost) nothing, {reached}. A stall is an event (a transmit hang and reset, a link drop, a retransmission timeout, frames the path does not carry), not the variation frequency scaling or IRQ placement cause',
      fix: 'Read the kernel log of both ends for the time of the stall (transmit timeouts, resets, link down/up: dmesg -T | grep -iE "hang|timeout|reset|link is") and the interface counters before and after a test',
    }),
    'collapse-after-first-interval': symptom({
      severity: 'critical',
      data: z.object({ firstGbps: rate, restGbps: rate }),
      message: 'Throughput collapses after the first second: {firstGbps} Gb/s, then a median of {restGbps} Gb/s',
      fix: 'A known sign of broken segmentation offload in a driver or firmware: test with ethtool -K <if> tso off, and update the driver/firmware',
    }),
    'version-skew': symptom({
      severity: 'info',
      data: z.object({ client: version, server: version }),
      message: 'Client iperf3 {client} and server iperf3 {server} differ: compare results only between equal versions',
      fix: 'Install the same iperf3 (≥ 3.16) on both ends',
    }),
    'server-busy': symptom({
      severity: 'warning',
      data: z.object({ count: z.number().int().positive() }),
      message:
        '{count} iperf3 client(s) found their server busy running another test: results are incomplete (a test-harness problem, not a host fault)',
      fix: 'Run one iperf3 server per port (nicdoctor serve) and make sure no one else tests against it',
    }),
  },
  run({ optional, options: opts, report, notApplicable }) {
    const bench = optional['bench.result'];
    if (!bench.ok) return notApplicable(`${bench.error.message}; ${bench.error.hint ?? ''}`.trim().replace(/;$/, ''));
    const measured = bench.value;

    const busy = serverBusyFinding(measured);
    if (busy) report('server-busy', busy);
    const skew = versionSkewFinding(measured);
    if (skew) report('version-skew', skew);

    const result = measured.result;
    if (!result) return undefined; // nothing measured (errors above say why)
    const singleCore = singleCoreFinding(measured, opts);
    if (singleCore) report('single-core-bound', singleCore);
    const ceiling = ceilingFinding(measured, result, opts);
    if (ceiling) report(ceiling.symptom, ceiling.finding);
    const pcie = pcieBoundFinding(measured, result, opts);
    if (pcie) report('pcie-bound', pcie);
    const loss = retransmitFinding(measured, result, opts);
    if (loss) {
      const reordered = reorderedFinding(measured, loss.data, opts);
      if (reordered) report('retransmits-reordered', reordered);
      else report('retransmits', loss);
    }
    const asymmetry = asymmetryFinding(measured, result, opts);
    if (asymmetry) report('bidir-asymmetry', asymmetry);
    const intervals = intervalFinding(result, opts, retransmitPercent(measured, result, opts));
    if (intervals) report(intervals.symptom, intervals.finding);
    return undefined;
  },
});

// The steps of run(), in order: the test harness, then the measured result.

type BenchResult = NonNullable<BenchMeasurement['result']>;

/** Every process of every ramp step and of the final measurement. */
function allProcesses(measured: BenchMeasurement): BenchProcess[] {
  return [...measured.steps.flatMap((step) => step.perProcess), ...(measured.result?.perProcess ?? [])];
}

function serverBusyFinding(measured: BenchMeasurement) {
  const busy = allProcesses(measured).filter((process) => process.error && /busy/i.test(process.error));
  if (!busy.length) return null;
  return { evidence: busy.map((p) => ({ label: `${p.label} (port ${p.port})`, observed: p.error })), data: { count: busy.length } };
}

function versionSkewFinding(measured: BenchMeasurement) {
  const client = measured.iperf3.client;
  const serverVersions = [
    ...new Set(
      allProcesses(measured)
        .map((p) => p.serverVersion)
        .filter((v): v is string => Boolean(v)),
    ),
  ];
  const skewed = serverVersions.find((version) => client && version !== client);
  if (!skewed || !client) return null;
  return {
    evidence: [{ label: 'iperf3 versions', observed: `client ${client}, server ${skewed}`, expected: 'the same version' }],
    data: { client, server: skewed },
  };
}

/** One process CPU-bound (or each limited on its own) while more processes raised the sum. */
function singleCoreFinding(measured: BenchMeasurement, opts: Options) {
  const single = measured.steps.find((step) => step.processes === 1 && step.streamsPerProcess >= 1);
  const best = measured.steps.reduce<(typeof measured.steps)[number] | undefined>(
    (a, b) => (!a || b.bitsPerSecond > a.bitsPerSecond ? b : a),
    undefined,
  );
  if (!single || !best || best.processes <= 1 || best.bitsPerSecond < opts.scalingFactor * single.bitsPerSecond) return null;
  const singleProcess = single.perProcess[0];
  const share = singleProcess ? cpuShare(singleProcess) : null;
  const cpuBound = share !== null && share.percent >= opts.cpuBoundFraction * share.limit;
  // Per-process limits show in the most linear step: at more processes than the host has cores
  // for (both ends on one small machine), the sum bends for a reason of its own.
  const efficiencyOf = (step: (typeof measured.steps)[number]) => step.bitsPerSecond / (Math.max(1, single.bitsPerSecond) * step.processes);
  // The widest step that still scaled near linearly is the strongest evidence; failing that, the most linear one.
  const raised = measured.steps.filter((step) => step.processes > 1 && step.bitsPerSecond >= opts.scalingFactor * single.bitsPerSecond);
  const linear = raised.filter((step) => efficiencyOf(step) >= opts.linearScaling);
  const scaled = linear.length
    ? linear.reduce((a, b) => (b.processes > a.processes ? b : a))
    : raised.reduce((a, b) => (efficiencyOf(b) > efficiencyOf(a) ? b : a), best);
  const efficiency = efficiencyOf(scaled);
  if (!cpuBound && efficiency < opts.linearScaling) return null;
  return {
    evidence: [
      ...(share
        ? [
            {
              label: 'one process CPU',
              observed: Number(share.percent.toFixed(1)),
              expected: `< ${Math.round(opts.cpuBoundFraction * share.limit)}`,
              unit: '% of one core',
            },
          ]
        : []),
      { label: 'one process', observed: gbps(single.bitsPerSecond), unit: 'Gb/s' },
      { label: `${best.processes} processes`, observed: gbps(best.bitsPerSecond), unit: 'Gb/s' },
      ...(scaled !== best ? [{ label: `${scaled.processes} processes`, observed: gbps(scaled.bitsPerSecond), unit: 'Gb/s' }] : []),
      {
        label: scaled === best ? 'scaling' : `scaling at ${scaled.processes} processes`,
        observed: Math.round(efficiency * 100),
        expected: `< ${Math.round(opts.linearScaling * 100)} when the network is the limit`,
        unit: '% of linear',
      },
    ],
    data: {
      cpuPercent: share ? Number(share.percent.toFixed(1)) : null,
      limitPercent: share ? share.limit : null,
      cpuBound,
      remoteCpuPercent: singleProcess?.remoteCpuPercent ?? null,
      efficiencyPercent: Math.round(efficiency * 100),
      scaledProcesses: scaled.processes,
      singleGbps: gbps(single.bitsPerSecond),
      bestGbps: gbps(best.bitsPerSecond),
      bestProcesses: best.processes,
      ratio: Number((best.bitsPerSecond / Math.max(1, single.bitsPerSecond)).toFixed(2)),
    },
  };
}

/** The plateau against the goodput ceiling: beyond the link's speed, at it, or below it. */
function ceilingFinding(measured: BenchMeasurement, result: BenchResult, opts: Options) {
  const ceiling = measured.ceilingBitsPerSecond;
  if (!ceiling) return null;
  const fraction = result.bitsPerSecond / ceiling;
  const data = {
    resultGbps: gbps(result.bitsPerSecond),
    ceilingGbps: gbps(ceiling),
    percent: Math.round(fraction * 100),
    interface: measured.interface,
    linkGbps: measured.linkSpeedMbps ? measured.linkSpeedMbps / 1000 : null,
    mtu: measured.mtu,
    processes: result.processes,
  };
  const evidence: Evidence[] = [
    {
      label: 'measured (receiver, all processes)',
      observed: gbps(result.bitsPerSecond),
      expected: `≥ ${gbps(opts.atCeilingFraction * ceiling)}`,
      unit: 'Gb/s',
    },
    { label: 'TCP goodput ceiling', observed: gbps(ceiling), unit: 'Gb/s' },
  ];
  // Above the goodput ceiling the stated speed cannot be the link's (a veth's nominal 10000, a
  // --link-speed set too low): nothing is judged against it, and nothing is refuted by it.
  // With the MTU unknown (a pasted run) jumbo frames may carry up to the raw link rate.
  const possible = measured.mtu === null && measured.linkSpeedMbps ? measured.linkSpeedMbps * 1e6 : ceiling;
  const symptom =
    result.bitsPerSecond > possible * opts.nominalSpeedFraction
      ? ('exceeds-link-speed' as const)
      : fraction >= opts.atCeilingFraction
        ? ('at-link-ceiling' as const)
        : ('below-link-ceiling' as const);
  return { symptom, finding: { evidence, data } };
}

/** A plateau within the band around the PCIe budget, when that budget is below the link's ceiling. */
function pcieBoundFinding(measured: BenchMeasurement, result: BenchResult, opts: Options) {
  const pcie = measured.pcieBitsPerSecond;
  const ceiling = measured.ceilingBitsPerSecond;
  if (!pcie || (ceiling && pcie >= ceiling)) return null;
  const fraction = result.bitsPerSecond / pcie;
  if (fraction < opts.pcieBandLow || fraction > opts.pcieBandHigh) return null;
  return {
    evidence: [
      { label: 'measured', observed: gbps(result.bitsPerSecond), unit: 'Gb/s' },
      { label: 'usable PCIe bandwidth', observed: gbps(pcie), unit: 'Gb/s' },
    ],
    data: { resultGbps: gbps(result.bitsPerSecond), pcieGbps: gbps(pcie), percent: Math.round(fraction * 100) },
  };
}

/** The bytes and segments a TCP run sent; null for UDP or a run with nothing sent. */
function sentOf(measured: BenchMeasurement, result: BenchResult, opts: Options): { bytes: number; segments: number } | null {
  const bytes = (result.senderBitsPerSecond * result.durationSeconds) / 8;
  const segments = bytes / opts.segmentBytes;
  return measured.protocol === 'tcp' && segments > 0 ? { bytes, segments } : null;
}

/** Retransmits per segment sent, in %, of a TCP run; null for UDP or a run with nothing sent. */
function retransmitPercent(measured: BenchMeasurement, result: BenchResult, opts: Options): number | null {
  const sent = sentOf(measured, result, opts);
  return sent ? Number(((100 * result.retransmits) / sent.segments).toFixed(3)) : null;
}

function retransmitFinding(measured: BenchMeasurement, result: BenchResult, opts: Options) {
  const sent = sentOf(measured, result, opts);
  if (!sent || result.retransmits / sent.segments <= opts.retransmitRate) return null;
  const { bytes: sentBytes, segments } = sent;
  return {
    ...(result.retransmits / segments >= opts.criticalRetransmitRate ? { severity: 'critical' as const } : {}),
    evidence: [{ label: 'retransmits', observed: result.retransmits, expected: `< ${Math.round(opts.retransmitRate * segments)}` }],
    data: {
      retransmits: result.retransmits,
      durationSeconds: result.durationSeconds,
      perGb: Math.round(result.retransmits / (sentBytes / 1e9)),
      ratePercent: Number(((100 * result.retransmits) / segments).toFixed(2)),
    },
  };
}

/**
 * Retransmits whose recoveries the sender mostly undid: the segments had arrived, out of order.
 * Only the local stack's counters are read, so this speaks for runs where this host sends.
 */
function reorderedFinding(measured: BenchMeasurement, loss: NonNullable<ReturnType<typeof retransmitFinding>>['data'], opts: Options) {
  const recovery = measured.counters.tcpRecovery;
  if (!recovery || measured.direction !== 'forward' || recovery.episodes < opts.minRecoveries) return null;
  const undone = Math.min(recovery.undone, recovery.episodes);
  const share = undone / recovery.episodes;
  if (share < opts.spuriousRecoveryShare) return null;
  return {
    evidence: [
      { label: 'retransmits', observed: loss.retransmits },
      { label: 'TCP loss recoveries during the bench', observed: recovery.episodes },
      { label: 'recoveries undone as spurious', observed: undone, expected: `< ${Math.round(opts.spuriousRecoveryShare * 100)} %` },
    ],
    data: {
      retransmits: loss.retransmits,
      durationSeconds: loss.durationSeconds,
      ratePercent: loss.ratePercent,
      recoveries: recovery.episodes,
      undone,
      undonePercent: Math.round(share * 100),
    },
  };
}

function asymmetryFinding(measured: BenchMeasurement, result: BenchResult, opts: Options) {
  if (measured.direction !== 'bidir' || result.reverseBitsPerSecond === null) return null;
  const high = Math.max(result.bitsPerSecond, result.reverseBitsPerSecond);
  const asymmetry = high > 0 ? Math.abs(result.bitsPerSecond - result.reverseBitsPerSecond) / high : 0;
  if (asymmetry <= opts.bidirAsymmetry) return null;
  return {
    evidence: [
      { label: 'forward', observed: gbps(result.bitsPerSecond), unit: 'Gb/s' },
      { label: 'reverse', observed: gbps(result.reverseBitsPerSecond), unit: 'Gb/s' },
    ],
    data: {
      forwardGbps: gbps(result.bitsPerSecond),
      reverseGbps: gbps(result.reverseBitsPerSecond),
      asymmetryPercent: Math.round(asymmetry * 100),
    },
  };
}

/** Intervals that carried (almost) nothing after an earlier one carried traffic, or null. */
function stallFinding(rates: readonly number[], opts: Options) {
  let best = 0;
  let stalled = 0;
  for (const value of rates) {
    if (best > 0 && value <= best * opts.stallFraction) stalled++;
    best = Math.max(best, value);
  }
  if (stalled === 0) return null;
  return {
    symptom: 'stalled' as const,
    finding: {
      evidence: [
        { label: 'intervals with (almost) no traffic', observed: stalled, expected: 0 },
        { label: 'best interval', observed: gbps(best), unit: 'Gb/s' },
      ],
      data: {
        stalledIntervals: stalled,
        intervals: rates.length,
        bestGbps: gbps(best),
        bestMbps: Number((best / 1e6).toPrecision(3)),
        neverStarted: best < opts.collapseMinFirstMbps * 1e6,
      },
    },
  };
}

/**
 * A collapse after the first interval, a stall, or else intervals that fluctuate. `lossPercent`:
 * the run's retransmits per segment (%), which the unstable finding carries (TCP's response to
 * loss makes intervals swing).
 */
function intervalFinding(result: BenchResult, opts: Options, lossPercent: number | null) {
  const rates = result.intervals.map((interval) => interval.bitsPerSecond);
  const [first, ...rest] = rates;
  const restMedian = median(rest);
  const working = first !== undefined && first >= opts.collapseMinFirstMbps * 1e6;
  if (working && restMedian !== null && rest.length >= 2 && first > opts.collapseRatio * restMedian) {
    return {
      symptom: 'collapse-after-first-interval' as const,
      finding: {
        evidence: [
          { label: 'first interval', observed: gbps(first), unit: 'Gb/s' },
          { label: 'median of the rest', observed: gbps(restMedian), unit: 'Gb/s' },
        ],
        data: { firstGbps: gbps(first), restGbps: gbps(restMedian) },
      },
    };
  }
  const stall = stallFinding(rates, opts);
  if (stall) return stall;
  const cv = coefficientOfVariation(rates);
  if (cv === null || rates.length < 3 || cv <= opts.unstableCv) return null;
  return {
    symptom: 'unstable' as const,
    finding: {
      evidence: [
        { label: 'coefficient of variation', observed: Number((cv * 100).toFixed(1)), expected: `≤ ${opts.unstableCv * 100}`, unit: '%' },
      ],
      data: { cvPercent: Number((cv * 100).toFixed(1)), lossPercent },
    },
  };
}
