#!/usr/bin/env node
// The labelled real-world evaluation (fixtures/eval/README.md): runs `nicdoctor analyze` on every
// case and scores its diagnoses against the case's label.yaml. A measurement: it exits 0 whatever
// the score (2 on a bad argument).
// Usage: node scripts/eval.mjs [--json] [--cases <dir>] [case-name ...]
//   --cases <dir>  evaluate the cases under <dir> instead of fixtures/eval (e.g. a modified copy)
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'src', 'cli.js');
const usage = 'usage: node scripts/eval.mjs [--json] [--cases <dir>] [case-name ...]';

const args = process.argv.slice(2);
let json = false;
let casesRoot = path.join(root, 'fixtures', 'eval');
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
try {
  labels = await import(path.join(root, 'dist', 'src', 'eval', 'labels.js'));
  score = await import(path.join(root, 'dist', 'src', 'eval', 'score.js'));
} catch (error) {
  console.error(`eval: build first (npm run build): ${error.message}`);
  process.exit(2);
}

let dirs;
try {
  dirs = await labels.listCaseDirs(casesRoot);
} catch (error) {
  console.error(`eval: --cases ${casesRoot}: ${error.message}`);
  process.exit(2);
}
if (only.length > 0) {
  const missing = only.filter((name) => !dirs.some((dir) => path.basename(dir) === name));
  if (missing.length > 0) {
    console.error(`eval: no case named ${missing.join(', ')} in ${casesRoot}`);
    process.exit(2);
  }
  dirs = dirs.filter((dir) => only.includes(path.basename(dir)));
}

const results = [];
for (const dir of dirs) {
  let evalCase;
  try {
    evalCase = await labels.loadCase(dir);
  } catch (error) {
    // A broken label is reported as a wrong case, not a crash: the rest still gets measured.
    results.push({
      name: path.basename(dir),
      environment: '?',
      verdict: '?',
      right: false,
      expectedFound: 0,
      expected: 0,
      missed: [],
      falseAlarms: [],
      error: error.message,
    });
    continue;
  }
  results.push(await score.evaluateCase(cli, evalCase));
}
const totals = score.totalsOf(results);

if (json) {
  console.log(JSON.stringify({ totals, cases: results }, null, 2));
} else {
  const rows = results.map((result) => [
    result.name,
    result.environment,
    result.verdict,
    result.right ? 'RIGHT' : 'wrong',
    `${result.expectedFound}/${result.expected}`,
    result.error
      ? `analyze error: ${result.error}`
      : result.falseAlarms.map((alarm) => `${alarm.ruleId}@${alarm.subject}`).join(', ') || '-',
  ]);
  const header = ['case', 'environment', 'verdict', 'result', 'expected found', 'false alarms (rule@subject) / error'];
  const widths = header.slice(0, -1).map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (row) => row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column]) : cell)).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  for (const result of results.filter((candidate) => candidate.missed.length > 0 && !candidate.error)) {
    console.log(
      `missed in ${result.name}: ${result.missed.map((item) => `cause ${item.cause}${item.subject ? `@${item.subject}` : ''}`).join(', ')}`,
    );
  }
  const recall = totals.expected === 0 ? 'n/a' : `${((100 * totals.found) / totals.expected).toFixed(0)} %`;
  console.log('');
  console.log(
    `cases right ${totals.right}/${totals.cases}; recall ${totals.found}/${totals.expected} (${recall}); false alarms ${totals.falseAlarms}; analyze errors ${totals.errors}`,
  );
}
