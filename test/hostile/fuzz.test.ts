import { describe, expect, it } from 'vitest';
import { fuzzTarget, fuzzTargets } from '../../fuzz/fuzz-targets.js';

/** CI volume: at least 1,000 mutated real captures per parser (npm run fuzz runs 100,000+). */
const RUNS = Number(process.env.NICDOCTOR_FUZZ_RUNS ?? 1000);

describe('parsers on mutated real captures: only ParseError, in bounded time', () => {
  for (const target of fuzzTargets()) {
    it(
      target.name,
      () => {
        const figures = fuzzTarget(target, RUNS);
        expect(figures.cases).toBe(RUNS);
        expect(figures.parsed + figures.parseErrors).toBe(RUNS);
      },
      120_000,
    );
  }
});
