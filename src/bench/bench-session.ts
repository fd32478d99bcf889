/**
 * A bench that stays open for repeated runs at one fixed step: `fix --verify` measures the host
 * before and after each change with the same processes, streams and ports, so that only the
 * change differs. The step is calibrated once by the ordinary ramp, then every run repeats it.
 */
import { RunError } from '../util/errors.js';
import type { BenchStep } from '../report/schema.js';
import { shutdownSignal } from '../util/shutdown.js';
import { aggregateStep } from './aggregate.js';
import type { BenchOptions } from './bench-options.js';
import { planBench, type BenchPlan } from './bench-plan.js';
import { startServers } from './bench-servers.js';
import { rampUp, tryThreads } from './ramp-up.js';
import { failIfUnreachable, StepRunner } from './step-runner.js';

/** One run of the fixed step. */
export interface RunSample {
  bitsPerSecond: number;
  retransmits: number;
  /** iperf3's sender CPU (its host total), averaged over the processes; null when none reported it. */
  cpuPercent: number | null;
}

export interface BenchSession {
  readonly plan: BenchPlan;
  readonly processes: number;
  readonly streamsPerProcess: number;
  /** Seconds per run. */
  readonly durationSeconds: number;
  /** One run of the fixed step; RunError when the far end cannot be reached or nicdoctor is stopping. */
  run(label: string): Promise<RunSample>;
  close(): Promise<void>;
}

function sampleOf(step: BenchStep): RunSample {
  const cpus = step.perProcess.map((process) => process.hostCpuPercent).filter((value): value is number => value !== null);
  return {
    bitsPerSecond: step.bitsPerSecond,
    retransmits: step.retransmits,
    cpuPercent: cpus.length ? cpus.reduce((a, b) => a + b, 0) / cpus.length : null,
  };
}

export async function openBenchSession(options: BenchOptions): Promise<BenchSession> {
  const plan = await planBench(options, options.store);
  const servers = await startServers(options, plan);
  try {
    const runner = new StepRunner(options, plan, servers.ports);
    const steps: BenchStep[] = [];
    const ramp = await rampUp(options, plan, servers.ports, runner, steps);
    await tryThreads(options, plan, servers.serverVersion, ramp.maxProcesses, runner, steps);
    const best = steps.reduce((a, b) => (b.bitsPerSecond > a.bitsPerSecond ? b : a));
    return {
      plan,
      processes: best.processes,
      streamsPerProcess: best.streamsPerProcess,
      durationSeconds: options.durationSeconds,
      async run(label) {
        if (shutdownSignal.aborted) throw new RunError('interrupted');
        const outcomes = await runner.run(best.processes, best.streamsPerProcess, options.durationSeconds, label);
        if (shutdownSignal.aborted) throw new RunError('interrupted');
        failIfUnreachable(plan.host, outcomes);
        const failed = outcomes.filter((outcome) => outcome.error || !outcome.result);
        if (failed.length)
          throw new RunError(
            `iperf3 on port ${failed.map((outcome) => outcome.port).join(', ')} failed: ${failed[0]!.error ?? 'no result'}`,
          );
        return sampleOf(aggregateStep(outcomes, best.streamsPerProcess, options.durationSeconds));
      },
      async close() {
        await servers.pool?.stop();
      },
    };
  } catch (error) {
    await servers.pool?.stop();
    throw error;
  }
}
