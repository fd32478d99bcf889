import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ruleFileSchema, ruleSchema, type Rule } from './schema.js';

/** A rule file that cannot be used: names the file, the rule and the field. */
export class RuleLoadError extends Error {
  constructor(
    readonly file: string,
    readonly ruleId: string | null,
    readonly field: string | null,
    detail: string,
  ) {
    super(`${file}${ruleId ? `: rule "${ruleId}"` : ''}${field ? `: ${field}` : ''}: ${detail}`);
    this.name = 'RuleLoadError';
  }
}

/** A loaded rule and the file it came from (for messages and `nicdoctor rules`). */
export type LoadedRule = Rule & { file: string };

function fieldPath(prefix: string, issuePath: readonly PropertyKey[]): string {
  return issuePath.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`), prefix);
}

/**
 * The innermost issue. zod reports a failed union once, with each branch's issues inside; the
 * branch with the fewest issues is the one the author meant (a fact condition with a bad op,
 * not a symptom condition missing its symptom).
 */
function deepestIssue(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const closest = [...issue.errors].filter((branch) => branch.length > 0).sort((a, b) => a.length - b.length)[0];
    if (closest) {
      const inner = deepestIssue(closest[0]!);
      return { path: [...issue.path, ...inner.path], message: inner.message };
    }
  }
  return { path: [...issue.path], message: issue.message };
}

/** Parses and validates one rule file's text; `file` is only used in messages. */
export function parseRuleFile(text: string, file: string): LoadedRule[] {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new RuleLoadError(file, null, null, `not valid YAML: ${(error as Error).message}`);
  }
  const shape = ruleFileSchema.safeParse(document);
  if (!shape.success) {
    const issue = deepestIssue(shape.error.issues[0]!);
    throw new RuleLoadError(file, null, fieldPath('', issue.path).replace(/^\./, '') || '(document)', `${issue.message} (a rule file is "rules:" followed by a list of rules)`);
  }
  return shape.data.rules.map((candidate, index) => {
    const id = typeof candidate === 'object' && candidate !== null && typeof (candidate as { id?: unknown }).id === 'string' ? (candidate as { id: string }).id : `#${index + 1}`;
    const parsed = ruleSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = deepestIssue(parsed.error.issues[0]!);
      throw new RuleLoadError(file, id, fieldPath(`rules[${index}]`, issue.path), issue.message);
    }
    return { ...parsed.data, file };
  });
}

/** The catalogue shipped with nicdoctor: <package root>/rules, from src/ or dist/src/. */
export function defaultRulesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('nicdoctor rules: package root not found');
    dir = parent;
  }
  return path.join(dir, 'rules');
}

/** Every rules/*.yaml, in file-name order; rule ids must be unique across files. */
export function loadRules(dir = defaultRulesDir()): LoadedRule[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .sort();
  const rules: LoadedRule[] = [];
  const seen = new Map<string, string>();
  for (const name of files) {
    const file = path.join(dir, name);
    for (const rule of parseRuleFile(readFileSync(file, 'utf8'), file)) {
      const first = seen.get(rule.id);
      if (first) throw new RuleLoadError(file, rule.id, 'id', `duplicate rule id (also in ${first})`);
      seen.set(rule.id, file);
      rules.push(rule);
    }
  }
  return rules;
}
