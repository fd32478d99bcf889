#!/usr/bin/env node
// `npm run bench:startup`: how fast `--version` answers, for the single executable and for
// `node dist/src/cli.js`, next to `node -e 0` (Node.js starting and doing nothing: the floor).
// The three run in turn, A B C A B C ... (20 rounds by default, RUNS=n to change), so that a
// machine whose speed drifts slows all three alike; medians and ratios to `node -e 0` are printed,
// with the load average (the figures mean little on a busy machine).
// The executable needs `npm run package` first; without it only the other two run.
// Target (issue 21): the executable's --version <= 1.5x `node -e 0`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const executable = path.join(root, 'dist/package', `nicdoctor-${version}-linux-x64`);
const runs = Number(process.env.RUNS ?? 20);
if (!Number.isInteger(runs) || runs < 1 || runs > 1000) throw new Error('RUNS must be a whole number from 1 to 1000');

/** Wall seconds of one run; `expected` is what it must print (nothing for node -e 0). */
function time(argv, expected) {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 30_000 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0 || result.stdout.trim() !== expected)
    throw new Error(`${argv.join(' ')}: exit ${result.status}, printed ${JSON.stringify(result.stdout)}`);
  return seconds;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const candidates = [
  { name: 'node -e 0', argv: [process.execPath, '-e', '0'], expected: '' },
  { name: 'node dist/src/cli.js --version', argv: [process.execPath, path.join(root, 'dist/src/cli.js'), '--version'], expected: version },
  ...(existsSync(executable)
    ? [{ name: `${path.relative(root, executable)} --version`, argv: [executable, '--version'], expected: version }]
    : []),
];
const load = () => os.loadavg()[0].toFixed(2);
const loadBefore = load();
for (const candidate of candidates) time(candidate.argv, candidate.expected); // warm the page cache
const samples = candidates.map(() => []);
for (let run = 0; run < runs; run += 1)
  candidates.forEach((candidate, index) => samples[index].push(time(candidate.argv, candidate.expected)));
const floor = median(samples[0]);
const lines = [`start-up, median of ${runs} alternate runs (load average ${loadBefore} before, ${load()} after):`];
candidates.forEach((candidate, index) => {
  const seconds = median(samples[index]);
  lines.push(`  ${candidate.name.padEnd(52)} ${seconds.toFixed(3)} s  ${(seconds / floor).toFixed(2)}x node -e 0`);
});
if (existsSync(executable)) {
  lines.push(`  executable size: ${(statSync(executable).size / 1024 / 1024).toFixed(1)} MiB; target: executable <= 1.5x node -e 0`);
} else lines.push('  no single executable: `npm run package` builds it');
process.stdout.write(`${lines.join('\n')}\n`);
