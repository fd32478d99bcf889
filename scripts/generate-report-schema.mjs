#!/usr/bin/env node
// Writes schema/report.schema.json from the zod report schema (run `npm run build` first: it
// imports dist/). With --check it writes nothing and exits 1 when the committed file is stale.
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { REPORT_JSON_SCHEMA_PATH, renderReportJsonSchema } = await import(path.join(root, 'dist/src/report/json-schema.js'));
const target = path.join(root, REPORT_JSON_SCHEMA_PATH);
const text = renderReportJsonSchema();

if (process.argv.includes('--check')) {
  const committed = await readFile(target, 'utf8').catch(() => '');
  if (committed !== text) {
    console.error(`${REPORT_JSON_SCHEMA_PATH} is out of date: run node scripts/generate-report-schema.mjs`);
    process.exit(1);
  }
  console.log(`${REPORT_JSON_SCHEMA_PATH} is up to date`);
} else {
  const temp = `${target}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, target);
  console.log(`wrote ${REPORT_JSON_SCHEMA_PATH}`);
}
