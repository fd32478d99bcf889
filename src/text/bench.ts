import type { BenchMeasurement } from '../collectors/bench-result.js';
import type { Iperf3TextRun } from '../parsers/iperf3-text.js';
import type { BenchProcess, BenchStep } from '../report/schema.js';
import { tcpGoodputMbps } from '../domain/goodput.js';

/**
 * Turns pasted iperf3 runs into the measurement the bench produces (`bench.result`), so that the
 * throughput check and the bench rules judge a customer's run as they judge nicdoctor's own:
 * each run is one process with its -P streams; the best run is the result (as the bench keeps
 * its best step). What a paste cannot say (CPU per process, pinning, counters) stays null.
 */

export interface PastedLink {
  interface: string | null;
  linkSpeedMbps: number | null;
  mtu: number | null;
  pcieBitsPerSecond: number | null;
}

/** The run's receiver-side rate: the summary when pasted, otherwise the mean of its intervals. */
export function runRate(run: Iperf3TextRun): number | null {
  if (run.receiverBitsPerSecond !== null) return run.receiverBitsPerSecond;
  if (run.senderBitsPerSecond !== null) return run.senderBitsPerSecond;
  const measured = run.intervals.filter((interval) => !interval.omitted);
  if (!measured.length) return null;
  return measured.reduce((total, interval) => total + interval.bitsPerSecond, 0) / measured.length;
}

function toProcess(run: Iperf3TextRun, index: number): BenchProcess {
  const rate = runRate(run);
  return {
    label: `pasted run ${index + 1}${run.title ? ` ${run.title}` : ''}${run.streams > 1 ? ` (-P ${run.streams})` : ''}`,
    port: run.port ?? 5201,
    cpu: null,
    pid: null,
    bitsPerSecond: rate,
    senderBitsPerSecond: run.senderBitsPerSecond ?? rate,
    retransmits: run.retransmits,
    hostCpuPercent: null,
    remoteCpuPercent: null,
    measuredCpuPercent: null,
    cpuQuotaPercent: null,
    throttledPeriods: null,
    serverVersion: null,
    error: null,
    intervals: run.intervals
      .filter((interval) => !interval.omitted)
      .map(({ start, end, bitsPerSecond }) => ({ start, end, bitsPerSecond })),
  };
}

/**
 * Runs grouped as they ran: a group of several runs is concurrent processes (iperf3 -T s1 & -T s2
 * &), one step whose rate is their sum; any other run is a step of one process.
 */
export function benchFromRuns(groups: ReadonlyArray<readonly Iperf3TextRun[]>, link: PastedLink): BenchMeasurement | null {
  const usable = groups.map((group) => group.filter((run) => runRate(run) !== null)).filter((group) => group.length > 0);
  if (!usable.length) return null;
  let index = 0;
  const steps: BenchStep[] = usable.map((group) => {
    const perProcess = group.map((run) => toProcess(run, index++));
    const durations = group.map((run) => run.durationSeconds ?? run.intervals.at(-1)?.end ?? 0);
    return {
      processes: group.length,
      streamsPerProcess: Math.max(...group.map((run) => run.streams)),
      durationSeconds: Math.min(...durations),
      bitsPerSecond: perProcess.reduce((total, process) => total + (process.bitsPerSecond ?? 0), 0),
      senderBitsPerSecond: perProcess.reduce((total, process) => total + (process.senderBitsPerSecond ?? 0), 0),
      retransmits: group.reduce((total, run) => total + (run.retransmits ?? 0), 0),
      perProcess,
    };
  });
  const bestIndex = steps.reduce((best, step, i) => (step.bitsPerSecond > steps[best]!.bitsPerSecond ? i : best), 0);
  const bestStep = steps[bestIndex]!;
  const bestGroup = usable[bestIndex]!;
  const run = bestGroup[0]!;
  // Processes started together: interval i of each is the same second (as the bench aligns them).
  const length = Math.min(...bestStep.perProcess.map((process) => process.intervals.length));
  const intervals = Array.from({ length }, (_, i) => ({
    start: bestStep.perProcess[0]!.intervals[i]!.start,
    end: bestStep.perProcess[0]!.intervals[i]!.end,
    bitsPerSecond: bestStep.perProcess.reduce((total, process) => total + process.intervals[i]!.bitsPerSecond, 0),
  }));
  const ceiling = link.linkSpeedMbps ? tcpGoodputMbps(link.linkSpeedMbps, link.mtu ?? 1500) * 1e6 : null;
  const runs = usable.flat();
  return {
    mode: 'peer',
    peer: run.peer ?? 'unknown (pasted run)',
    direction: run.direction,
    protocol: run.protocol,
    iperf3: { client: runs.map((r) => r.version).find(Boolean) ?? null, server: null },
    interface: link.interface,
    linkSpeedMbps: link.linkSpeedMbps,
    mtu: link.mtu,
    ceilingBitsPerSecond: ceiling,
    pcieBitsPerSecond: link.pcieBitsPerSecond,
    ports: [...new Set(runs.map((r) => r.port ?? 5201))],
    cpus: [],
    steps,
    stopReason: `pasted iperf3 text: ${runs.length} run(s) in ${steps.length} step(s), the best step is the result`,
    result: {
      bitsPerSecond: bestStep.bitsPerSecond,
      senderBitsPerSecond: bestStep.senderBitsPerSecond,
      reverseBitsPerSecond:
        run.direction === 'bidir' && bestGroup.every((r) => r.reverseBitsPerSecond !== null)
          ? bestGroup.reduce((total, r) => total + r.reverseBitsPerSecond!, 0)
          : null,
      retransmits: bestStep.retransmits,
      durationSeconds: bestStep.durationSeconds,
      processes: bestStep.processes,
      streamsPerProcess: bestStep.streamsPerProcess,
      intervals,
      perProcess: bestStep.perProcess,
    },
    counters: { softnetDropped: null, softnetTimeSqueeze: null, nicDrops: {}, interruptsPerCpu: [] },
    complete: true,
    error: null,
    cpuSeconds: { nicdoctor: 0, iperf3: 0 },
    durationMs: 0,
  };
}
