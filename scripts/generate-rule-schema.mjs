#!/usr/bin/env node
// Writes rules/rule.schema.json from the zod rule schema (src/rules/schema.ts).
// Run after `npm run build`; test/rules/schema.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { ruleJsonSchemaText } = await import(path.join(root, 'dist/src/rules/json-schema.js'));
const target = path.join(root, 'rules/rule.schema.json');
writeFileSync(target, ruleJsonSchemaText());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
