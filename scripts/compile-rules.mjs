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
