import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checks } from '../checks/index.js';
import { collectors } from '../src/collectors/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkFiles = readdirSync(path.join(ROOT, 'checks')).filter((name) => name.endsWith('.ts') && name !== 'index.ts');
const collectorFiles = readdirSync(path.join(ROOT, 'src/collectors')).filter((name) => readFileSync(path.join(ROOT, 'src/collectors', name), 'utf8').includes('defineCollector({'));
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;

describe('conformance: checks', () => {
  it('registers every check file, once, under the id of its file name', async () => {
    const registered = checks.map((check) => check.id);
    expect(new Set(registered).size).toBe(registered.length);
    for (const file of checkFiles) {
      const module = (await import(pathToFileURL(path.join(ROOT, 'checks', file)).href)) as { default?: { id?: string } };
      expect(module.default?.id, `checks/${file} must default-export a check whose id is its file name`).toBe(file.replace(/\.ts$/, ''));
      expect(registered, `checks/${file} is not listed in checks/index.ts`).toContain(file.replace(/\.ts$/, ''));
    }
    expect(registered.length).toBe(checkFiles.length);
  });

  it.each(checks.map((check) => [check.id, check] as const))('%s has a test file, titles, kebab-case symptoms and facts with collectors', (id, check) => {
    expect(existsSync(path.join(ROOT, 'test/checks', `${id}.test.ts`)), `test/checks/${id}.test.ts is missing`).toBe(true);
    expect(KEBAB.test(id)).toBe(true);
    expect(check.title.length).toBeGreaterThan(3);
    expect(check.failureTitle.length).toBeGreaterThan(3);
    expect(check.description.length).toBeGreaterThan(20);
    const symptoms = Object.keys(check.symptoms);
    expect(symptoms.length).toBeGreaterThan(0);
    for (const symptom of symptoms) expect(KEBAB.test(symptom), `symptom ${id}/${symptom} must be kebab-case`).toBe(true);
    const provided = new Set(collectors.map((collector) => collector.id as string));
    for (const fact of [...(check.requires as string[]), ...((check.optionalFacts as string[] | undefined) ?? [])]) {
      expect(provided.has(fact), `${id} needs fact ${fact}, which no collector provides`).toBe(true);
    }
  });
});

describe('conformance: collectors', () => {
  it('registers every collector module, with unique fact ids', async () => {
    const registered = new Set(collectors);
    expect(new Set(collectors.map((collector) => collector.id)).size).toBe(collectors.length);
    for (const file of collectorFiles) {
      const module = (await import(pathToFileURL(path.join(ROOT, 'src/collectors', file)).href)) as Record<string, unknown>;
      const defined = Object.values(module).filter((value) => value && typeof value === 'object' && 'collect' in value && 'scope' in value);
      expect(defined.length, `src/collectors/${file} defines no collector export`).toBeGreaterThan(0);
      for (const collector of defined) expect(registered.has(collector as never), `a collector in src/collectors/${file} is not in src/collectors/index.ts`).toBe(true);
    }
  });
});
