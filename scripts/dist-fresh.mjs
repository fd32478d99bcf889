#!/usr/bin/env node
// Whether dist/ is the build of the current sources, so that a step after `npm run build` (the
// unit tests' global setup, `npm run package` in the full CI stage) need not compile again: a
// 2-core machine spends 25-55 s on it. Exit 0 when fresh; exit 1 with the reason on stdout when
// not. Fresh means: every source of tsconfig.json (src, checks, benchmarks, lab, fuzz) has its dist/ output,
// written after both it and tsconfig.json (tsc writes every output on each run), and
// dist/rules.json is newer than every rules/*.yaml.
// Usage: node scripts/dist-fresh.mjs
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['src', 'checks', 'benchmarks', 'lab', 'fuzz'];
/** A bound on the walk: the project holds a few hundred sources. */
const MAX_FILES = 20_000;

function filesUnder(dir, accept, found) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (found.length >= MAX_FILES) break;
    const full = path.join(dir, entry.name);
    // Links are not followed (isDirectory and isFile of a dirent are false for a link).
    if (entry.isDirectory()) filesUnder(full, accept, found);
    else if (entry.isFile() && accept(entry.name)) found.push(full);
  }
  return found;
}

function mtimeOf(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function staleReason() {
  const sources = [];
  for (const dir of SOURCE_DIRS) filesUnder(path.join(root, dir), (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'), sources);
  if (sources.length === 0) return 'no sources found';
  if (sources.length >= MAX_FILES) return `more than ${MAX_FILES} sources`;
  const config = mtimeOf(path.join(root, 'tsconfig.json')) ?? Infinity;
  for (const source of sources) {
    const relative = path.relative(root, source);
    const output = mtimeOf(path.join(root, 'dist', relative.replace(/\.ts$/, '.js')));
    if (output === undefined) return `dist has no output for ${relative}`;
    if (output < (mtimeOf(source) ?? Infinity)) return `${relative} changed since dist was built`;
    if (output < config) return 'tsconfig.json changed since dist was built';
  }
  const compiled = mtimeOf(path.join(root, 'dist', 'rules.json'));
  if (compiled === undefined) return 'dist has no rules.json';
  for (const rule of filesUnder(path.join(root, 'rules'), (name) => name.endsWith('.yaml') || name.endsWith('.yml'), []))
    if (compiled < (mtimeOf(rule) ?? Infinity)) return `${path.relative(root, rule)} changed since dist/rules.json was written`;
  return undefined;
}

const reason = staleReason();
if (reason !== undefined) {
  process.stdout.write(`${reason}\n`);
  process.exitCode = 1;
}
