import { mkdtempSync, rmSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuleLoadError, defaultRulesDir, loadRules, parseRuleFile } from '../../src/rules/loader.js';

const GOOD = `rules:
  - id: good-rule
    title: A good rule
    cause: 1
    when:
      symptom: pcie-link/pcie-bandwidth-below-port
    explanation: "x"
    fixes: []
    confidence: high
    references: [CAUSES.md]
`;

function errorOf(text: string, file = 'rules/broken.yaml'): RuleLoadError {
  try {
    parseRuleFile(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(RuleLoadError);
    return error as RuleLoadError;
  }
  throw new Error('expected a RuleLoadError');
}

describe('rule loader', () => {
  it('loads every file in rules/', () => {
    const files = readdirSync(defaultRulesDir()).filter((name) => name.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    const rules = loadRules();
    expect(new Set(rules.map((rule) => path.basename(rule.file)))).toEqual(new Set(files));
    expect(new Set(rules.map((rule) => rule.id)).size).toBe(rules.length);
  });

  it('parses a valid rule', () => {
    expect(parseRuleFile(GOOD, 'good.yaml')).toMatchObject([{ id: 'good-rule', cause: 1, file: 'good.yaml' }]);
  });

  it('names the file when the YAML is broken', () => {
    const error = errorOf('rules:\n  - id: [unclosed\n');
    expect(error.message).toMatch(/^rules\/broken\.yaml: not valid YAML/);
  });

  it('names the file when the document is not a rule list', () => {
    expect(errorOf('- just a list\n').message).toMatch(/rules\/broken\.yaml.*a rule file is "rules:"/);
  });

  it.each([
    ['a cause out of range', GOOD.replace('cause: 1', 'cause: 99'), 'rules[0].cause'],
    ['a missing title', GOOD.replace('    title: A good rule\n', ''), 'rules[0].title'],
    ['an unknown confidence', GOOD.replace('confidence: high', 'confidence: certain'), 'rules[0].confidence'],
    [
      'an unknown op',
      GOOD.replace('      symptom: pcie-link/pcie-bandwidth-below-port', '      fact: pcie.link\n      path: link.width\n      op: bigger'),
      'rules[0].when.op',
    ],
    ['a malformed symptom id', GOOD.replace('pcie-link/pcie-bandwidth-below-port', 'pcie-bandwidth-below-port'), 'rules[0].when.symptom'],
    ['a fix without disruptive', GOOD.replace('fixes: []', 'fixes:\n      - text: do it'), 'rules[0].fixes[0].disruptive'],
    ['an unknown field (typo)', GOOD.replace('confidence: high', 'confidence: high\n    referenses: []'), 'rules[0]'],
  ])('names the file, the rule and the field for %s', (_, text, field) => {
    const error = errorOf(text);
    expect(error.file).toBe('rules/broken.yaml');
    expect(error.ruleId).toBe('good-rule');
    expect(error.field).toContain(field);
    expect(error.message).toContain('rules/broken.yaml: rule "good-rule": rules[0]');
  });

  it('names a nested condition field inside all/any', () => {
    const text = GOOD.replace(
      '      symptom: pcie-link/pcie-bandwidth-below-port',
      '      all:\n        - symptom: throughput/pcie-bound\n        - fact: pcie.link\n          path: link.width\n          op: around',
    );
    const error = errorOf(text);
    expect(error.field).toBe('rules[0].when.all[1].op');
  });

  it('rejects a rule id used twice across files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nicdoctor-rules-'));
    writeFileSync(path.join(dir, 'a.yaml'), GOOD);
    writeFileSync(path.join(dir, 'b.yaml'), GOOD);
    try {
      expect(() => loadRules(dir)).toThrow(/b\.yaml: rule "good-rule": id: duplicate rule id \(also in .*a\.yaml\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
