#!/usr/bin/env node
// Writes rules/rule.schema.json and known-issues/known-issue.schema.json from the zod schemas
// (src/rules/schema.ts, src/rules/known-issue-schema.ts). Run after `npm run build`;
// test/rules/schema.test.ts and test/rules/known-issues.test.ts fail while a file is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { ruleJsonSchemaText, knownIssueJsonSchemaText } = await import(path.join(root, 'dist/src/rules/json-schema.js'));
for (const [file, text] of [
  ['rules/rule.schema.json', ruleJsonSchemaText()],
  ['known-issues/known-issue.schema.json', knownIssueJsonSchemaText()],
]) {
  const target = path.join(root, file);
  writeFileSync(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}
