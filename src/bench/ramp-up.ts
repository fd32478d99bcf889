import { RunError } from '../util/errors.js';
import type { BenchStep } from '../report/schema.js';
import { shutdownSignal } from '../util/shutdown.js';
import { aggregateStep } from './aggregate.js';
import type { BenchOptions } from './bench-options.js';
import { versionAtLeast, type BenchPlan } from './bench-plan.js';
import { DEFAULT_RAMP_POLICY, decideAfterStep, rampCounts } from './ramp.js';
import { failIfUnreachable, type StepRunner } from './step-runner.js';

export interface RampOutcome {
  /** Why the ramp stopped early; '' when it tried every count. */
  stopReason: string;
  /** The most processes the ramp would try (raised when iperf3 runs under a CPU quota). */
  maxProcesses: number;
}

/**
 * Step "ramp": 1, 2, 4, ... processes of one stream each until the sum stops rising or reaches the
 * goodput ceiling. Each step is pushed onto `steps` as it ends, so an error keeps the earlier ones.
 */
export async function rampUp(
  options: BenchOptions,
  plan: BenchPlan,
  ports: readonly number[],
  runner: StepRunner,
  steps: BenchStep[],
): Promise<RampOutcome> {
  const progress = options.onProgress ?? (() => undefined);
  const physical = Math.max(1, plan.physicalCores || 1);
  // One process per physical core, unless the user says otherwise (--max-procs) or the processes
  // turn out to run under a CPU quota (a container limit): then more of them fit on a core.
  let maxProcesses = Math.max(1, Math.min(ports.length, options.maxProcesses ?? physical));
  let counts = rampCounts(maxProcesses);
  for (let index = 0; index < counts.length; index += 1) {
    const count = counts[index]!;
    if (shutdownSignal.aborted) throw new RunError('interrupted');
    progress(`ramp step ${index + 1}/${counts.length}: ${count} process${count > 1 ? 'es' : ''} x ${options.stepSeconds} s`);
    const outcomes = await runner.run(count, 1, options.stepSeconds, `ramp${count}`);
    if (shutdownSignal.aborted) throw new RunError('interrupted');
    failIfUnreachable(plan.host, outcomes);
    steps.push(aggregateStep(outcomes, 1, options.stepSeconds));
    const quota = outcomes[0]?.cpuQuotaPercent ?? null;
    if (index === 0 && options.maxProcesses === undefined && quota !== null && quota < 100) {
      maxProcesses = Math.max(maxProcesses, Math.min(ports.length, Math.floor((physical * 100) / quota)));
      counts = rampCounts(maxProcesses);
      options.log.info({ quota, maxProcesses }, 'iperf3 runs under a CPU quota: more processes fit per core');
    }
    const decision = decideAfterStep(steps, plan.ceilingBitsPerSecond, counts.length - index - 1, DEFAULT_RAMP_POLICY);
    if (decision.action === 'stop') return { stopReason: decision.reason, maxProcesses };
  }
  return { stopReason: '', maxProcesses };
}

/**
 * iperf3 3.16+ on both ends runs each stream in its own thread: one more step tries `maxProcesses`
 * streams in one process, which the measurement picks if it beats the processes.
 */
export async function tryThreads(
  options: BenchOptions,
  plan: BenchPlan,
  serverVersion: string | null,
  maxProcesses: number,
  runner: StepRunner,
  steps: BenchStep[],
): Promise<void> {
  if (!(versionAtLeast(plan.clientVersion, '3.16') && versionAtLeast(serverVersion, '3.16') && maxProcesses > 1)) return;
  options.onProgress?.(`threads: 1 process x ${maxProcesses} streams x ${options.stepSeconds} s`);
  const outcomes = await runner.run(1, maxProcesses, options.stepSeconds, 'threads');
  steps.push(aggregateStep(outcomes, maxProcesses, options.stepSeconds));
}
