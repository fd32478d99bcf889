/**
 * `npm run fuzz`: every parser and offline reader on mutated real captures, 100,000 cases in
 * all by default (NICDOCTOR_FUZZ_RUNS per target overrides), and the figures: cases, how many
 * parsed and how many were refused with a ParseError, median and worst time per input.
 */
import { asyncFuzzTargets, fuzzAsyncTarget, fuzzTarget, fuzzTargets, type FuzzFigures } from './fuzz-targets.js';

const only = process.env.NICDOCTOR_FUZZ_ONLY?.split(',');
const chosen = (target: { name: string }) => !only || only.includes(target.name);
const targets = [
  ...fuzzTargets()
    .filter(chosen)
    .map((target) => ({ name: target.name, run: async (runs: number, seed: number) => fuzzTarget(target, runs, seed) })),
  ...asyncFuzzTargets()
    .filter(chosen)
    .map((target) => ({ name: target.name, run: (runs: number, seed: number) => fuzzAsyncTarget(target, runs, seed) })),
];
const perTarget = Number(process.env.NICDOCTOR_FUZZ_RUNS ?? Math.ceil(100_000 / targets.length));
const seed = process.env.NICDOCTOR_FUZZ_SEED ? Number(process.env.NICDOCTOR_FUZZ_SEED) : Date.now() % 2 ** 31;
process.stdout.write(`fuzz: ${targets.length} targets × ${perTarget} cases, seed ${seed}\n`);
const rows: FuzzFigures[] = [];
let failed = 0;
const started = performance.now();
for (const target of targets) {
  try {
    const figures = await target.run(perTarget, seed);
    rows.push(figures);
    process.stdout.write(
      `${figures.target.padEnd(24)} ${String(figures.cases).padStart(7)} cases  ${String(figures.parsed).padStart(7)} parsed  ${String(figures.parseErrors).padStart(7)} ParseError  median ${figures.medianMs.toFixed(3)} ms  max ${figures.maxMs.toFixed(1)} ms\n`,
    );
  } catch (error) {
    failed += 1;
    // The cause is the property's own error (what was thrown, or the time taken); the
    // counterexample can be megabytes, so only its length is shown.
    const cause =
      (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message.split('\n')[0];
    const seedLine = (error as Error).message.split('\n').find((line) => line.includes('seed:')) ?? '';
    process.stdout.write(`${target.name.padEnd(24)} FAILED: ${cause?.slice(0, 300)} ${seedLine.trim()}\n`);
  }
}
const total = rows.reduce((sum, row) => sum + row.cases, 0);
const worst = rows.reduce((max, row) => Math.max(max, row.maxMs), 0);
process.stdout.write(
  `total: ${total} cases in ${((performance.now() - started) / 1000).toFixed(1)} s, worst ${worst.toFixed(1)} ms per input, ${failed} target(s) failed\n`,
);
process.exitCode = failed ? 1 : 0;
