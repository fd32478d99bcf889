import type { Iperf3Result } from '../parsers/iperf3-json.js';
import type { BenchProcess, BenchStep } from '../report/schema.js';

export interface ClientOutcome {
  label: string;
  port: number;
  cpu: number | null;
  pid: number | null;
  result: Iperf3Result | null;
  error: string | null;
  measuredCpuPercent: number | null;
  cpuQuotaPercent: number | null;
  throttledPeriods: number | null;
  serverVersion: string | null;
  cpuSeconds: number;
}

export function toBenchProcess(outcome: ClientOutcome): BenchProcess {
  const result = outcome.result;
  return {
    label: outcome.label,
    port: outcome.port,
    cpu: outcome.cpu,
    pid: outcome.pid,
    bitsPerSecond: result?.receiverBitsPerSecond ?? null,
    senderBitsPerSecond: result?.senderBitsPerSecond ?? null,
    retransmits: result?.retransmits ?? null,
    hostCpuPercent: result?.hostCpuPercent ?? null,
    remoteCpuPercent: result?.remoteCpuPercent ?? null,
    measuredCpuPercent: outcome.measuredCpuPercent,
    cpuQuotaPercent: outcome.cpuQuotaPercent,
    throttledPeriods: outcome.throttledPeriods,
    serverVersion: outcome.serverVersion,
    error: outcome.error ?? result?.error ?? null,
    intervals: (result?.intervals ?? [])
      .filter((interval) => !interval.omitted)
      .map(({ start, end, bitsPerSecond }) => ({ start, end, bitsPerSecond })),
  };
}

const sum = (values: readonly (number | null)[]) => values.reduce<number>((total, value) => total + (value ?? 0), 0);

/** One step: the sum over its processes (receiver side is what arrived). */
export function aggregateStep(outcomes: readonly ClientOutcome[], streamsPerProcess: number, durationSeconds: number): BenchStep {
  const perProcess = outcomes.map(toBenchProcess);
  return {
    processes: outcomes.length,
    streamsPerProcess,
    durationSeconds,
    bitsPerSecond: sum(perProcess.map((p) => p.bitsPerSecond)),
    senderBitsPerSecond: sum(perProcess.map((p) => p.senderBitsPerSecond)),
    retransmits: sum(perProcess.map((p) => p.retransmits)),
    perProcess,
  };
}

/**
 * Per-interval aggregate across processes. Processes start within milliseconds of each other,
 * so interval i of each is the same second of wall time; omitted (slow-start) intervals are
 * left out, and an interval counts only when every process reported it.
 */
export function alignIntervals(results: readonly (Iperf3Result | null)[]): Array<{ start: number; end: number; bitsPerSecond: number }> {
  const series = results.filter((r): r is Iperf3Result => r !== null).map((r) => r.intervals.filter((i) => !i.omitted));
  if (series.length === 0) return [];
  const length = Math.min(...series.map((s) => s.length));
  const aligned: Array<{ start: number; end: number; bitsPerSecond: number }> = [];
  for (let index = 0; index < length; index += 1) {
    const first = series[0]![index]!;
    aligned.push({ start: first.start, end: first.end, bitsPerSecond: sum(series.map((s) => s[index]!.bitsPerSecond)) });
  }
  return aligned;
}
