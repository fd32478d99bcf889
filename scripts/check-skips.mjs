#!/usr/bin/env node
// Reads a vitest JSON report (--reporter=json) and lists the tests that did not run (skipped,
// todo). Under CI=true that fails the run: CI is root with every test tool installed, so a
// skip there hides a failure. Elsewhere (a developer without root) it only warns.
// Usage: node scripts/check-skips.mjs <report.json>...
import { readFileSync } from 'node:fs';
import path from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/check-skips.mjs <vitest-report.json>...');
  process.exit(2);
}

const notRun = [];
let ran = 0;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`check-skips: cannot read the vitest report ${file}: ${error.message}`);
    process.exit(1);
  }
  for (const result of report.testResults ?? []) {
    for (const test of result.assertionResults ?? []) {
      if (test.status === 'passed' || test.status === 'failed') ran += 1;
      else notRun.push(`${path.relative(process.cwd(), result.name)} > ${test.fullName} (${test.status})`);
    }
  }
}

const strict = process.env.CI === 'true';
if (notRun.length > 0) {
  const header = strict
    ? `check-skips: ${notRun.length} test(s) did not run, and CI=true allows no skip (each file prints its reason above, "... skipped: <reason>"):`
    : `check-skips: ${notRun.length} test(s) did not run (as root with scripts/install-system-deps.sh --tests they all run):`;
  console.error([header, ...notRun.map((line) => `  ${line}`)].join('\n'));
  if (strict) process.exit(1);
}
if (ran === 0) {
  console.error(`check-skips: no test ran in ${files.join(', ')}`);
  process.exit(1);
}
