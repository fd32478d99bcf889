#!/usr/bin/env node
// Writes dist/rules.json: rules/*.yaml parsed once at build time, with a hash of the YAML it came
// from (src/rules/loader.ts uses it only while the hash matches). Part of `npm run build`.
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { COMPILED_RULES, rulesHash, loadRules } = await import(path.join(root, 'dist/src/rules/loader.js'));
const dir = path.join(root, 'rules');
const names = readdirSync(dir)
  .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
  .sort();
const texts = names.map((name) => readFileSync(path.join(dir, name), 'utf8'));
loadRules(dir); // refuse to compile a catalogue that does not validate
const target = path.join(root, COMPILED_RULES);
writeFileSync(`${target}.tmp`, JSON.stringify({ hash: rulesHash(texts), names, documents: texts.map((text) => parse(text)) }));
renameSync(`${target}.tmp`, target);

// The known issues the same way (src/rules/known-issues.ts reads them while the hash matches).
const { COMPILED_KNOWN_ISSUES, defaultKnownIssuesDir, loadKnownIssues } = await import(path.join(root, 'dist/src/rules/known-issues.js'));
const issuesDir = defaultKnownIssuesDir();
const issueNames = readdirSync(issuesDir)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const issueTexts = issueNames.map((name) => readFileSync(path.join(issuesDir, name), 'utf8'));
loadKnownIssues(issuesDir); // refuse to compile entries that do not validate
const issuesTarget = path.join(root, COMPILED_KNOWN_ISSUES);
writeFileSync(
  `${issuesTarget}.tmp`,
  JSON.stringify({ hash: rulesHash(issueTexts), names: issueNames, documents: issueTexts.map((text) => parse(text)) }),
);
renameSync(`${issuesTarget}.tmp`, issuesTarget);
