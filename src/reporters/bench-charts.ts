import type { Bench, BenchProcess } from '../report/schema.js';
import { barChart, lineChart, type ReferenceLine } from './svg-charts.js';

/** A chart as inline SVG, or why there is none (said in the report instead of an empty frame). */
export type ChartOutcome = { svg: string; caption: string } | { svg: null; missing: string };

const GBIT = 1e9;
const gb = (value: number) => String(Number(value.toFixed(value >= 10 ? 1 : 2)));

/** (a) The ramp: aggregate receive rate per process count, against the link and PCIe ceilings. */
export function rampChart(bench: Bench): ChartOutcome {
  if (bench.steps.length === 0) return { svg: null, missing: 'The bench recorded no ramp steps.' };
  const refs: ReferenceLine[] = [];
  if (bench.ceilingBitsPerSecond !== null) {
    refs.push({
      label: `link goodput ceiling ${gb(bench.ceilingBitsPerSecond / GBIT)} Gb/s`,
      y: bench.ceilingBitsPerSecond / GBIT,
      color: '#2a7d2a',
      className: 'ref-ceiling',
    });
  }
  if (bench.pcieBitsPerSecond !== null) {
    refs.push({
      label: `PCIe budget ${gb(bench.pcieBitsPerSecond / GBIT)} Gb/s`,
      y: bench.pcieBitsPerSecond / GBIT,
      color: '#b35900',
      className: 'ref-pcie',
    });
  }
  const svg = lineChart({
    id: 'chart-ramp',
    title: 'Bench ramp: throughput by number of iperf3 processes',
    description: `Received Gb/s at each ramp step (${bench.steps.map((step) => `${step.processes} → ${gb(step.bitsPerSecond / GBIT)}`).join(', ')})${refs.length ? `, with ${refs.map((ref) => ref.label).join(' and ')}` : ''}.`,
    xLabel: 'iperf3 processes',
    yLabel: 'Gb/s received',
    xTicks: [...new Set(bench.steps.map((step) => step.processes))].sort((a, b) => a - b),
    formatX: (value) => String(value),
    formatY: gb,
    series: [
      {
        label: 'received',
        points: bench.steps.map((step) => ({ x: step.processes, y: step.bitsPerSecond / GBIT })),
        ...(bench.result ? { highlightX: bench.result.processes } : {}),
      },
    ],
    referenceLines: refs,
    legend: false,
  });
  const unknown = [
    bench.ceilingBitsPerSecond === null ? 'link ceiling unknown (link speed not known)' : '',
    bench.pcieBitsPerSecond === null ? 'PCIe budget unknown' : '',
  ].filter(Boolean);
  return {
    svg,
    caption: `Each point is one ramp step; the hollow point is the step reported as the result.${unknown.length ? ` ${unknown.join('; ')}.` : ''}`,
  };
}

/** Processes whose intervals show how the rate evolved: the result's, else the last step that has any. */
function timedProcesses(bench: Bench): { processes: BenchProcess[]; fromResult: boolean } {
  const hasIntervals = (processes: BenchProcess[]) => processes.some((process) => process.intervals.length > 0);
  if (bench.result && hasIntervals(bench.result.perProcess)) return { processes: bench.result.perProcess, fromResult: true };
  const step = [...bench.steps].reverse().find((candidate) => hasIntervals(candidate.perProcess));
  return { processes: step?.perProcess ?? [], fromResult: false };
}

/** (b) Each process's throughput over time: one line per iperf3 process. */
export function processTimeChart(bench: Bench): ChartOutcome {
  const { processes, fromResult } = timedProcesses(bench);
  const drawn = processes.filter((process) => process.intervals.length > 0);
  if (drawn.length === 0) return { svg: null, missing: 'No per-interval throughput was recorded for the bench processes.' };
  const svg = lineChart({
    id: 'chart-process-time',
    title: 'Throughput of each iperf3 process over time',
    description: `Gb/s per reporting interval for ${drawn.length} process(es): ${drawn.map((process) => process.label).join(', ')}.`,
    xLabel: 'seconds since start',
    yLabel: 'Gb/s received',
    formatX: (value) => String(Number(value.toFixed(1))),
    formatY: gb,
    series: drawn.map((process) => ({
      label: `${process.label}${process.cpu !== null ? ` (CPU ${process.cpu})` : ''}`,
      points: process.intervals.map((interval) => ({ x: interval.end, y: interval.bitsPerSecond / GBIT })),
    })),
  });
  return {
    svg,
    caption: fromResult
      ? 'The result step: a line that sags or ends early points at a starved or throttled process.'
      : "No final result was recorded: these are the last ramp step's processes.",
  };
}

/** (c) Where the NIC's interrupts landed during the run, per CPU. */
export function irqCpuChart(bench: Bench): ChartOutcome {
  const counts = bench.counters.interruptsPerCpu;
  if (counts.length === 0)
    return {
      svg: null,
      missing: "The NIC's interrupt counts were not available for this run (no egress interface, or /proc/interrupts could not be read).",
    };
  const total = counts.reduce((sum, value) => sum + value, 0);
  if (total === 0)
    return { svg: null, missing: `No interrupts of the NIC were counted on any of the ${counts.length} CPUs during the run.` };
  const pinned = new Set(bench.cpus);
  const busiest = counts.indexOf(Math.max(...counts));
  const svg = barChart({
    id: 'chart-irq-cpus',
    title: 'NIC interrupts per CPU during the bench',
    description: `${total} interrupts over ${counts.length} CPUs; the busiest is CPU ${busiest} with ${counts[busiest]}.`,
    xLabel: 'CPU',
    yLabel: 'interrupts',
    formatValue: (value) =>
      value >= 1e6
        ? `${Number((value / 1e6).toFixed(1))}M`
        : value >= 1e4
          ? `${Number((value / 1e3).toFixed(0))}k`
          : String(Math.round(value)),
    bars: counts.map((value, cpu) => ({ label: String(cpu), value, marked: pinned.has(cpu) })),
    markedLabel: 'CPU an iperf3 process was pinned to',
  });
  const share = Math.round((counts[busiest]! / total) * 100);
  return { svg, caption: `Darker means more interrupts. CPU ${busiest} took ${share}% of them.` };
}
