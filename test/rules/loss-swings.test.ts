import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/report/schema.js';
import { bench, run } from './helpers.js';
import * as x from './fixtures.js';

// A TCP run that retransmits in every second swings because TCP halves its window at each loss:
// neither "results fluctuate" (CPU scaling, SMT, IRQ placement) nor "the classic 6-7 Gb/s plateau"
// is the reading. Shaped like a pasted 10G run with ~1,000 retransmits per second (0.12 % of segments).
describe('a run that swings with its losses', () => {
  const ids = (findings: Finding[]) => run({ findings, bench: bench({ resultGbps: 7.76 }) }).map((diagnosis) => diagnosis.ruleId);

  it('is not "results fluctuate" nor the 6-7 Gb/s plateau', () => {
    const lossy = ids([x.below(7.76), x.unstableLossy]);
    expect(lossy).not.toContain('results-fluctuate');
    expect(lossy).not.toContain('chronic-6-7-on-10g');
  });

  it('while the same swing with next to no retransmits still is both', () => {
    const clean = ids([x.below(7.76), x.unstable]);
    expect(clean).toContain('results-fluctuate');
    expect(clean).toContain('chronic-6-7-on-10g');
  });
});
