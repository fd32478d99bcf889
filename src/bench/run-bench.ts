import type { BenchMeasurement } from '../collectors/bench-result.js';
import { RunError } from '../util/errors.js';
import type { BenchStep } from '../report/schema.js';
import { shutdownSignal } from '../util/shutdown.js';
import type { BenchOptions } from './bench-options.js';
import { planBench, type BenchPlan } from './bench-plan.js';
import { startServers, type BenchServers } from './bench-servers.js';
import { captureCounters, counterDeltas } from './counters.js';
import { measureBest } from './measure.js';
import { rampUp, tryThreads } from './ramp-up.js';
import { StepRunner } from './step-runner.js';

export type { BenchOptions } from './bench-options.js';

/**
 * The calibrated multi-process iperf3 test, in named steps: plan (iperf3, interface, CPUs,
 * ceilings), servers (the peer's `nicdoctor serve` or local iperf3 servers), ramp (1, 2, 4, ...
 * processes, one port and one NIC-local core each, until the sum stops rising or reaches the
 * link's goodput ceiling; then threads in one process where iperf3 allows) and measure (one run at
 * the best step). Partial results survive errors and Ctrl-C.
 */
export async function runBench(options: BenchOptions): Promise<BenchMeasurement> {
  const started = performance.now();
  const plan = await planBench(options, options.store);
  const servers = await startServers(options, plan);
  const measurement = emptyMeasurement(options, plan, servers);
  const runner = new StepRunner(options, plan, servers.ports);

  const before = await captureCounters(options.freshStore(), plan.iface);
  // nicdoctor's own CPU while iperf3 runs (ramp and measurement), not its set-up and counters.
  const cpuAtStart = process.cpuUsage();
  let cpuDuringRun: NodeJS.CpuUsage | null = null;
  try {
    const ramp = await rampUp(options, plan, servers.ports, runner, measurement.steps);
    measurement.stopReason = ramp.stopReason;
    await tryThreads(options, plan, servers.serverVersion, ramp.maxProcesses, runner, measurement.steps);
    const measured = await measureBest(options, plan.host, runner, measurement.steps);
    measurement.result = measured.result;
    if (measured.serverVersion) measurement.iperf3.server = measured.serverVersion;
    cpuDuringRun = process.cpuUsage(cpuAtStart);
    measurement.complete = true;
    if (!measurement.stopReason) measurement.stopReason = `tried every step up to ${ramp.maxProcesses} processes`;
  } catch (error) {
    measurement.error = shutdownSignal.aborted ? 'interrupted' : error instanceof Error ? error.message : String(error);
    if (!(error instanceof RunError) && !shutdownSignal.aborted) throw error;
  } finally {
    await servers.pool?.stop();
    const after = await captureCounters(options.freshStore(), plan.iface).catch(() => null);
    if (after) measurement.counters = counterDeltas(before, after);
    const cpu = cpuDuringRun ?? process.cpuUsage(cpuAtStart);
    measurement.cpuSeconds = { nicdoctor: (cpu.user + cpu.system) / 1e6, iperf3: runner.iperfCpuSeconds };
    measurement.durationMs = Math.round(performance.now() - started);
  }
  return measurement;
}

/** The measurement before any traffic: what the plan and the servers settled, no steps yet. */
function emptyMeasurement(options: BenchOptions, plan: BenchPlan, servers: BenchServers): BenchMeasurement & { steps: BenchStep[] } {
  return {
    mode: plan.mode,
    peer: plan.host,
    direction: options.direction,
    protocol: options.udpRate ? 'udp' : 'tcp',
    iperf3: { client: plan.clientVersion, server: servers.serverVersion },
    interface: plan.iface,
    linkSpeedMbps: plan.linkSpeedMbps,
    mtu: plan.mtu,
    ceilingBitsPerSecond: plan.ceilingBitsPerSecond,
    pcieBitsPerSecond: plan.pcieBitsPerSecond,
    ports: servers.ports,
    cpus: plan.cpus,
    steps: [],
    stopReason: '',
    result: null,
    counters: { softnetDropped: null, softnetTimeSqueeze: null, nicDrops: {}, interruptsPerCpu: [] },
    complete: false,
    error: null,
    cpuSeconds: { nicdoctor: 0, iperf3: 0 },
    durationMs: 0,
  };
}
