#!/usr/bin/env node
// The labelled real-world evaluation (fixtures/eval/README.md): runs `nicdoctor analyze` on every
// case of both sets — tuned (fixtures/eval) and held-out (fixtures/holdout) — and scores its
// diagnoses against each case's label.yaml. A measurement: it exits 0 whatever the score (2 on a
// bad argument).
// Usage: node scripts/eval.mjs [--json] [--cases <dir>] [case-name ...]
//   --cases <dir>  evaluate only the cases under <dir> (e.g. a modified copy of one set)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'src', 'cli.js');
const usage = 'usage: node scripts/eval.mjs [--json] [--cases <dir>] [case-name ...]';

const args = process.argv.slice(2);
let json = false;
let casesRoot;
const only = [];
for (let index = 0; index < args.length; index++) {
  const arg = args[index];
  if (arg === '--json') json = true;
  else if (arg === '--cases') {
    const dir = args[++index];
    if (!dir) {
      console.error(`eval: --cases needs a directory (${usage})`);
      process.exit(2);
    }
    casesRoot = path.resolve(dir);
  } else if (arg.startsWith('-')) {
    console.error(`eval: unknown option ${arg} (${usage})`);
    process.exit(2);
  } else only.push(arg);
}

let labels;
let score;
let sets;
try {
  labels = await import(path.join(root, 'dist', 'src', 'eval', 'labels.js'));
  score = await import(path.join(root, 'dist', 'src', 'eval', 'score.js'));
  sets = await import(path.join(root, 'dist', 'src', 'eval', 'sets.js'));
} catch (error) {
  console.error(`eval: build first (npm run build): ${error.message}`);
  process.exit(2);
}

// Both sets, or the one directory --cases names. A set whose directory does not exist yet (no
// held-out case committed) is reported as empty, not as an error.
const chosen =
  casesRoot === undefined
    ? sets.EVAL_SETS.map((set) => ({ name: set.name, dir: path.join(root, set.dir), optional: set.name !== 'tuned' }))
    : [{ name: path.basename(casesRoot), dir: casesRoot, optional: false }];

const listed = [];
for (const set of chosen) {
  if (set.optional && !existsSync(set.dir)) {
    listed.push({ ...set, dirs: [] });
    continue;
  }
  try {
    listed.push({ ...set, dirs: await labels.listCaseDirs(set.dir) });
  } catch (error) {
    console.error(`eval: ${set.dir}: ${error.message}`);
    process.exit(2);
  }
}
if (only.length > 0) {
  const missing = only.filter((name) => !listed.some((set) => set.dirs.some((dir) => path.basename(dir) === name)));
  if (missing.length > 0) {
    console.error(`eval: no case named ${missing.join(', ')} in ${chosen.map((set) => set.dir).join(' or ')}`);
    process.exit(2);
  }
  for (const set of listed) set.dirs = set.dirs.filter((dir) => only.includes(path.basename(dir)));
}

async function evaluate(dir) {
  let evalCase;
  try {
    evalCase = await labels.loadCase(dir);
  } catch (error) {
    // A broken label is reported as a wrong case, not a crash: the rest still gets measured.
    return {
      name: path.basename(dir),
      environment: '?',
      verdict: '?',
      right: false,
      expectedFound: 0,
      expectedFoundAtWarning: 0,
      expected: 0,
      missed: [],
      falseAlarms: [],
      error: error.message,
    };
  }
  return score.evaluateCase(cli, evalCase);
}

const measured = [];
for (const set of listed) {
  const results = [];
  for (const dir of set.dirs) results.push(await evaluate(dir));
  measured.push({ name: set.name, dir: path.relative(root, set.dir) || '.', totals: score.totalsOf(results), cases: results });
}

const percent = (part, whole) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(0)} %`);
function summary(set) {
  const { totals } = set;
  return (
    `${set.name}: cases right ${totals.right}/${totals.cases}; recall ${totals.found}/${totals.expected} (${percent(totals.found, totals.expected)}); ` +
    `at warning or above ${totals.foundAtWarning}/${totals.expected} (${percent(totals.foundAtWarning, totals.expected)}); ` +
    `false alarms ${totals.falseAlarms}; analyze errors ${totals.errors}`
  );
}

if (json) {
  console.log(JSON.stringify({ sets: measured }, null, 2));
} else {
  for (const set of measured) {
    console.log(`== ${set.name} (${set.dir})`);
    const rows = set.cases.map((result) => [
      result.name,
      result.environment,
      result.verdict,
      result.right ? 'RIGHT' : 'wrong',
      `${result.expectedFound}/${result.expected}`,
      `${result.expectedFoundAtWarning}/${result.expected}`,
      result.error
        ? `analyze error: ${result.error}`
        : result.falseAlarms.map((alarm) => `${alarm.ruleId}@${alarm.subject}`).join(', ') || '-',
    ]);
    const header = ['case', 'environment', 'verdict', 'result', 'found', 'at warning', 'false alarms (rule@subject) / error'];
    const widths = header.slice(0, -1).map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const line = (row) => row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]) : cell)).join('  ');
    console.log(line(header));
    for (const row of rows) console.log(line(row));
    for (const result of set.cases.filter((candidate) => candidate.missed.length > 0 && !candidate.error)) {
      console.log(
        `missed in ${result.name}: ${result.missed.map((item) => `cause ${item.cause}${item.subject ? `@${item.subject}` : ''}`).join(', ')}`,
      );
    }
    console.log('');
  }
  for (const set of measured) console.log(summary(set));
}
