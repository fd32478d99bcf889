#!/usr/bin/env node
// Writes the reference pages under docs/ (causes, checks, rules, known issues) from the code and
// data they describe (src/docs/pages.ts). Run after `npm run build`; test/docs/pages.test.ts
// fails while a committed page is stale, and names this script.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { allPages } = await import(path.join(root, 'dist/src/docs/pages.js'));
const { loadRules } = await import(path.join(root, 'dist/src/rules/loader.js'));
const { loadKnownIssues } = await import(path.join(root, 'dist/src/rules/known-issues.js'));

const pages = allPages({ rules: loadRules(path.join(root, 'rules')), knownIssues: loadKnownIssues(path.join(root, 'known-issues')) });
// Pages of checks and rules that no longer exist are removed, so a rename leaves nothing behind.
for (const dir of ['docs/checks', 'docs/rules']) {
  mkdirSync(path.join(root, dir), { recursive: true });
  for (const name of readdirSync(path.join(root, dir))) {
    if (!pages.has(`${dir}/${name}`)) rmSync(path.join(root, dir, name));
  }
}
for (const [file, text] of pages) writeFileSync(path.join(root, file), text);
console.log(`wrote ${pages.size} pages under docs/`);
