import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checks } from '../checks/index.js';
import { collectors } from '../src/collectors/index.js';
import { POLICY_FINDING_FIELDS } from '../src/policy/evaluate.js';
import { loadRules } from '../src/rules/loader.js';
import {
  declaredSymptoms,
  expectationProblems,
  fieldTableProblems,
  ruleProblems,
  symptomTemplateProblems,
  type Expectation,
} from './helpers/symptom-contract.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const checkFiles = readdirSync(path.join(ROOT, 'checks')).filter((name) => name.endsWith('.ts') && name !== 'index.ts');
const collectorFiles = readdirSync(path.join(ROOT, 'src/collectors')).filter((name) =>
  readFileSync(path.join(ROOT, 'src/collectors', name), 'utf8').includes('defineCollector({'),
);
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

  it.each(checks.map((check) => [check.id, check] as const))(
    '%s has a test file, titles, kebab-case symptoms and facts with collectors',
    (id, check) => {
      expect(existsSync(path.join(ROOT, 'test/checks', `${id}.test.ts`)), `test/checks/${id}.test.ts is missing`).toBe(true);
      expect(KEBAB.test(id)).toBe(true);
      expect(check.title.length).toBeGreaterThan(3);
      // A title is neutral whatever the status: no check carries a second title for failure.
      expect(check.failureTitle).toBeUndefined();
      expect(check.description.length).toBeGreaterThan(20);
      const symptoms = Object.keys(check.symptoms);
      expect(symptoms.length).toBeGreaterThan(0);
      for (const symptom of symptoms) expect(KEBAB.test(symptom), `symptom ${id}/${symptom} must be kebab-case`).toBe(true);
      const provided = new Set(collectors.map((collector) => collector.id as string));
      for (const fact of [...(check.requires as string[]), ...((check.optionalFacts as string[] | undefined) ?? [])]) {
        expect(provided.has(fact), `${id} needs fact ${fact}, which no collector provides`).toBe(true);
      }
    },
  );
});

describe('conformance: collectors', () => {
  it('registers every collector module, with unique fact ids', async () => {
    const registered = new Set(collectors);
    expect(new Set(collectors.map((collector) => collector.id)).size).toBe(collectors.length);
    for (const file of collectorFiles) {
      const module = (await import(pathToFileURL(path.join(ROOT, 'src/collectors', file)).href)) as Record<string, unknown>;
      const defined = Object.values(module).filter((value) => value && typeof value === 'object' && 'collect' in value && 'scope' in value);
      expect(defined.length, `src/collectors/${file} defines no collector export`).toBeGreaterThan(0);
      for (const collector of defined)
        expect(registered.has(collector as never), `a collector in src/collectors/${file} is not in src/collectors/index.ts`).toBe(true);
    }
  });
});

describe('conformance: typed symptom data (check → rule → policy → scenario)', () => {
  const declared = declaredSymptoms(checks);
  const rules = loadRules();

  it('every symptom declares its data schema', () => {
    const missing = [...declared.values()].filter((symptom) => !symptom.typed).map((symptom) => symptom.id);
    expect(missing, 'symptoms without a data schema').toEqual([]);
  });

  it("a symptom's message and fix use only its subject, data fields and phrases", () => {
    expect([...declared.values()].flatMap(symptomTemplateProblems)).toEqual([]);
  });

  it('rules name declared symptoms and fields, and every template placeholder resolves', () => {
    expect(rules.flatMap((rule) => ruleProblems(rule, declared).problems)).toEqual([]);
  });

  it('the policy reads declared symptoms and fields', () => {
    expect(fieldTableProblems('src/policy/evaluate.ts', POLICY_FINDING_FIELDS, declared)).toEqual([]);
  });

  it('scenario expectations (fixtures/hosts/*/expected.json) name declared checks, symptoms and rules', () => {
    const hosts = path.join(ROOT, 'fixtures/hosts');
    const ruleIds = new Set(rules.map((rule) => rule.id));
    const problems: string[] = [];
    for (const name of readdirSync(hosts).filter((entry) => existsSync(path.join(hosts, entry, 'expected.json')))) {
      const expected = JSON.parse(readFileSync(path.join(hosts, name, 'expected.json'), 'utf8')) as Expectation & {
        topDiagnoses?: Array<{ ruleId: string }>;
        notes?: Array<{ ruleId: string }>;
      };
      problems.push(...expectationProblems(name, expected, checks, declared));
      for (const { ruleId } of [...(expected.topDiagnoses ?? []), ...(expected.notes ?? [])])
        if (!ruleIds.has(ruleId)) problems.push(`${name}: names rule ${ruleId}, which does not exist`);
    }
    expect(problems).toEqual([]);
  });
});
