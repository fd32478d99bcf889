/**
 * Is a difference between two series of repeated measurements larger than their own noise?
 * Welch's t-test (unequal variances): the margin a difference must beyond is the measured
 * spread of both series scaled by the t quantile for their sizes, never a fixed percentage, so
 * a quiet host resolves small gains and a loaded one demands large ones.
 */

export interface SeriesSummary {
  count: number;
  mean: number;
  /** Sample standard deviation (n − 1); 0 for one value. */
  stdDev: number;
}

export function summarize(values: readonly number[]): SeriesSummary {
  const count = values.length;
  if (count === 0) return { count: 0, mean: 0, stdDev: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / count;
  const variance = count > 1 ? values.reduce((total, value) => total + (value - mean) ** 2, 0) / (count - 1) : 0;
  return { count, mean, stdDev: Math.sqrt(variance) };
}

/** Two-sided 95 % quantiles of Student's t by degrees of freedom 1..30 (beyond: the normal 1.96). */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(degreesOfFreedom: number): number {
  if (!(degreesOfFreedom >= 1)) return T_975[0]!;
  const index = Math.floor(degreesOfFreedom) - 1;
  return index < T_975.length ? T_975[index]! : 1.96;
}

export interface Comparison {
  /** after.mean − before.mean. */
  difference: number;
  /** How far the difference must go either way to count (t × standard error of the difference). */
  margin: number;
  /** 'better' / 'worse' when |difference| exceeds the margin, else 'same'. */
  outcome: 'better' | 'worse' | 'same';
}

/**
 * Compares two series (each needs at least two values to have a spread). `higherIsBetter`
 * is false for counts such as retransmits. Identical series have no spread: then only a
 * difference that is not zero counts.
 */
export function compareSeries(before: SeriesSummary, after: SeriesSummary, higherIsBetter = true): Comparison {
  const difference = after.mean - before.mean;
  const vb = before.count > 0 ? before.stdDev ** 2 / before.count : 0;
  const va = after.count > 0 ? after.stdDev ** 2 / after.count : 0;
  const standardError = Math.sqrt(vb + va);
  // Welch–Satterthwaite degrees of freedom; with no spread at all, the smallest samples' df.
  const denominator = (before.count > 1 ? vb ** 2 / (before.count - 1) : 0) + (after.count > 1 ? va ** 2 / (after.count - 1) : 0);
  const df = denominator > 0 ? (vb + va) ** 2 / denominator : Math.max(1, Math.min(before.count, after.count) - 1);
  const margin = tQuantile975(df) * standardError;
  const signed = higherIsBetter ? difference : -difference;
  const outcome = Math.abs(difference) > margin && difference !== 0 ? (signed > 0 ? 'better' : 'worse') : 'same';
  return { difference, margin, outcome };
}

/** Relative standard error of the mean (stdDev / √n / mean); null when it cannot be known yet. */
export function relativeStandardError(summary: SeriesSummary): number | null {
  if (summary.count < 2 || summary.mean === 0) return null;
  return summary.stdDev / Math.sqrt(summary.count) / Math.abs(summary.mean);
}
