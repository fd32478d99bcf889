/**
 * The ramp: 1 process, then 2, 4, ... until one more step gains too little or the link's
 * goodput ceiling is (nearly) reached. Pure decisions, so they are tested without traffic.
 */
export interface RampPolicy {
  /** Stop when a step raises the sum by less than this fraction (0.05 = 5 %). */
  minGain: number;
  /** Stop when the sum reaches this fraction of the ceiling (0.97). */
  ceilingFraction: number;
  /**
   * Above this fraction the reported link speed is evidently not what limits the traffic (a veth
   * or a virtual NIC reports a nominal speed): the ceiling is ignored and the gain rule decides.
   */
  nominalSpeedFraction: number;
}

export const DEFAULT_RAMP_POLICY: RampPolicy = { minGain: 0.05, ceilingFraction: 0.97, nominalSpeedFraction: 1.05 };

/** Process counts to try: powers of two up to the maximum, and the maximum itself. */
export function rampCounts(maxProcesses: number): number[] {
  const max = Math.max(1, Math.floor(maxProcesses));
  const counts: number[] = [];
  for (let count = 1; count < max; count *= 2) counts.push(count);
  counts.push(max);
  return counts;
}

export interface StepOutcome {
  processes: number;
  bitsPerSecond: number;
}

export type RampDecision = { action: 'continue' } | { action: 'stop'; reason: string; best: StepOutcome };

export function decideAfterStep(
  steps: readonly StepOutcome[],
  ceilingBitsPerSecond: number | null,
  remaining: number,
  policy: RampPolicy = DEFAULT_RAMP_POLICY,
): RampDecision {
  const last = steps.at(-1);
  if (!last) return { action: 'continue' };
  const best = steps.reduce((a, b) => (b.bitsPerSecond > a.bitsPerSecond ? b : a));
  const ceilingIsReal = ceilingBitsPerSecond !== null && last.bitsPerSecond <= policy.nominalSpeedFraction * ceilingBitsPerSecond;
  if (ceilingBitsPerSecond !== null && ceilingIsReal && last.bitsPerSecond >= policy.ceilingFraction * ceilingBitsPerSecond) {
    return {
      action: 'stop',
      reason: `reached ${Math.round((100 * last.bitsPerSecond) / ceilingBitsPerSecond)} % of the link's goodput ceiling`,
      best: last,
    };
  }
  const previous = steps.at(-2);
  if (previous) {
    const gain = previous.bitsPerSecond > 0 ? (last.bitsPerSecond - previous.bitsPerSecond) / previous.bitsPerSecond : 1;
    if (gain < policy.minGain) {
      return {
        action: 'stop',
        reason: `${last.processes} processes gained ${(gain * 100).toFixed(1)} % over ${previous.processes} (< ${policy.minGain * 100} %)`,
        best,
      };
    }
  }
  if (remaining === 0) return { action: 'stop', reason: `no more ports or NIC-local cores (stopped at ${last.processes} processes)`, best };
  return { action: 'continue' };
}
