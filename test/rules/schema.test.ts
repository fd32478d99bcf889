import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRulesDir } from '../../src/rules/loader.js';
import { ruleJsonSchema, ruleJsonSchemaText } from '../../src/rules/json-schema.js';

describe('rules/rule.schema.json', () => {
  it('is up to date with the zod schema (regenerate: npm run build && node scripts/generate-rule-schema.mjs)', () => {
    expect(readFileSync(path.join(defaultRulesDir(), 'rule.schema.json'), 'utf8')).toBe(ruleJsonSchemaText());
  });

  it('describes rules, conditions and the op vocabulary for editors', () => {
    const text = JSON.stringify(ruleJsonSchema());
    for (const word of ['"Rule"', '"Condition"', '"confidence"', '"ruledOut"', '"matches"', '"absent"', '"disruptive"'])
      expect(text).toContain(word);
  });
});
