#!/usr/bin/env node
// `npm run bench:startup`: the single executable's size and `--version` start-up against
// `node dist/src/cli.js --version`, run alternately (20 each by default), medians and ratio.
// Needs `npm run package` first. Target (issue 11): the executable answers in <= 0.25 s.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const executable = path.join(root, 'dist/package', `nicdoctor-${version}-linux-x64`);
const runs = Number(process.env.RUNS ?? 20);

function time(argv) {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 30_000 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.status !== 0 || result.stdout.trim() !== version)
    throw new Error(`${argv.join(' ')}: exit ${result.status}, printed ${JSON.stringify(result.stdout)}`);
  return seconds;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const candidates = { executable: [executable, '--version'], node: [process.execPath, path.join(root, 'dist/src/cli.js'), '--version'] };
for (const argv of Object.values(candidates)) time(argv); // warm the page cache
const samples = { executable: [], node: [] };
for (let run = 0; run < runs; run += 1) for (const [name, argv] of Object.entries(candidates)) samples[name].push(time(argv));
const exe = median(samples.executable);
const node = median(samples.node);
process.stdout.write(
  [
    `executable ${path.relative(root, executable)}: ${(statSync(executable).size / 1024 / 1024).toFixed(1)} MiB`,
    `--version, median of ${runs} alternate runs: executable ${exe.toFixed(3)} s, node dist/src/cli.js ${node.toFixed(3)} s, ratio ${(exe / node).toFixed(2)} (target: executable <= 0.25 s)`,
    '',
  ].join('\n'),
);
