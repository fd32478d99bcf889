import type { BenchMeasurement } from '../collectors/bench-result.js';
import { RunError } from '../util/errors.js';
import type { BenchStep } from '../report/schema.js';
import { shutdownSignal } from '../util/shutdown.js';
import { aggregateStep, alignIntervals } from './aggregate.js';
import type { BenchOptions } from './bench-options.js';
import { failIfUnreachable, type StepRunner } from './step-runner.js';

export interface Measured {
  result: NonNullable<BenchMeasurement['result']>;
  /** The server's iperf3 version as the clients saw it, when they did. */
  serverVersion: string | undefined;
}

/** Step "measure": one run of the full duration at the best step of the ramp. */
export async function measureBest(options: BenchOptions, host: string, runner: StepRunner, steps: readonly BenchStep[]): Promise<Measured> {
  const best = steps.reduce((a, b) => (b.bitsPerSecond > a.bitsPerSecond ? b : a));
  options.onProgress?.(
    `measurement: ${best.processes} process${best.processes > 1 ? 'es' : ''} x ${best.streamsPerProcess} stream(s) x ${options.durationSeconds} s`,
  );
  const outcomes = await runner.run(best.processes, best.streamsPerProcess, options.durationSeconds, 'final');
  if (shutdownSignal.aborted) throw new RunError('interrupted');
  failIfUnreachable(host, outcomes);
  const final = aggregateStep(outcomes, best.streamsPerProcess, options.durationSeconds);
  const reverse = outcomes.reduce((total, o) => total + (o.result?.reverseReceiverBitsPerSecond ?? 0), 0);
  return {
    result: {
      bitsPerSecond: final.bitsPerSecond,
      senderBitsPerSecond: final.senderBitsPerSecond,
      reverseBitsPerSecond: options.direction === 'bidir' ? reverse : null,
      retransmits: final.retransmits,
      durationSeconds: options.durationSeconds,
      processes: final.processes,
      streamsPerProcess: final.streamsPerProcess,
      intervals: alignIntervals(outcomes.map((o) => o.result)),
      perProcess: final.perProcess,
    },
    serverVersion: outcomes.map((o) => o.serverVersion).find(Boolean) ?? undefined,
  };
}
