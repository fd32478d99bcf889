import { describe, expect, it } from 'vitest';
import { compareSeries, relativeStandardError, summarize, tQuantile975 } from '../../src/util/noise.js';

describe('compareSeries: a difference counts only beyond the measured spread', () => {
  it('the same gain is better on a quiet host and the same on a noisy one', () => {
    const quiet = compareSeries(summarize([5.0, 5.1, 4.9]), summarize([5.6, 5.5, 5.7]));
    expect(quiet.outcome).toBe('better');
    expect(quiet.difference).toBeCloseTo(0.6, 6);
    const noisy = compareSeries(summarize([4.0, 6.0, 5.0]), summarize([6.5, 4.5, 5.8]));
    expect(noisy.outcome).toBe('same');
    expect(noisy.margin).toBeGreaterThan(Math.abs(noisy.difference));
  });

  it('a fall beyond the noise is worse; for retransmits (lower is better) a fall is better', () => {
    expect(compareSeries(summarize([10, 10.2, 9.9]), summarize([7, 7.1, 6.9])).outcome).toBe('worse');
    expect(compareSeries(summarize([300, 320, 310]), summarize([3, 5, 4]), false).outcome).toBe('better');
  });

  it('identical series have no spread: no difference is the same, any difference counts', () => {
    expect(compareSeries(summarize([2, 2, 2]), summarize([2, 2, 2])).outcome).toBe('same');
    expect(compareSeries(summarize([2, 2, 2]), summarize([3, 3, 3])).outcome).toBe('better');
  });

  it('the t quantile shrinks with more runs toward the normal 1.96', () => {
    expect(tQuantile975(1)).toBeCloseTo(12.706, 3);
    expect(tQuantile975(4)).toBeCloseTo(2.776, 3);
    expect(tQuantile975(200)).toBe(1.96);
    expect(tQuantile975(Number.NaN)).toBeCloseTo(12.706, 3);
  });

  it('relative standard error needs two values and a mean that is not zero', () => {
    expect(relativeStandardError(summarize([5]))).toBeNull();
    expect(relativeStandardError(summarize([0, 0]))).toBeNull();
    expect(relativeStandardError(summarize([9, 11]))).toBeCloseTo(Math.SQRT2 / Math.sqrt(2) / 10, 6);
    expect(summarize([])).toEqual({ count: 0, mean: 0, stdDev: 0 });
  });
});
