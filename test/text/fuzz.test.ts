import { describe, expect, it } from 'vitest';
import { asyncFuzzTargets, fuzzAsyncTarget, fuzzTarget, fuzzTargets } from '../../fuzz/fuzz-targets.js';

/**
 * The text path on mutated real texts (issue 19, item 2): segment and normalize (also run by
 * test/hostile/fuzz.test.ts with every parser) and the whole analyzeText, each input within
 * the fuzz time bound. A full analysis costs far more than a parse: fewer cases in CI here,
 * `npm run fuzz` runs thousands.
 */
const RUNS = Number(process.env.NICDOCTOR_TEXT_FUZZ_RUNS ?? 60);

describe('the text path on mutated real texts: bounded, only refusals it names', () => {
  for (const target of fuzzTargets().filter((candidate) => ['normalize', 'segment'].includes(candidate.name))) {
    it(
      target.name,
      () => {
        const figures = fuzzTarget(target, RUNS * 5);
        expect(figures.parsed + figures.parseErrors).toBe(RUNS * 5);
      },
      120_000,
    );
  }
  for (const target of asyncFuzzTargets()) {
    it(
      target.name,
      async () => {
        const figures = await fuzzAsyncTarget(target, RUNS);
        expect(figures.parsed + figures.parseErrors).toBe(RUNS);
      },
      300_000,
    );
  }
});
