import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { z } from 'zod';
import { embeddedAssets } from '../util/embedded.js';
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

function parseYamlText(text: string, file: string): unknown {
  // Loaded only when the compiled catalogue is missing or stale: the module alone costs ~50 ms.
  const { parse: parseYaml } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  try {
    return parseYaml(text);
  } catch (error) {
    throw new RuleLoadError(file, null, null, `not valid YAML: ${(error as Error).message}`);
  }
}

/** Parses and validates one rule file's text; `file` is only used in messages. */
export function parseRuleFile(text: string, file: string): LoadedRule[] {
  return parseRuleDocument(parseYamlText(text, file), file);
}

/** Validates one rule file's parsed document. */
export function parseRuleDocument(document: unknown, file: string): LoadedRule[] {
  const shape = ruleFileSchema.safeParse(document);
  if (!shape.success) {
    const issue = deepestIssue(shape.error.issues[0]!);
    throw new RuleLoadError(
      file,
      null,
      fieldPath('', issue.path).replace(/^\./, '') || '(document)',
      `${issue.message} (a rule file is "rules:" followed by a list of rules)`,
    );
  }
  return shape.data.rules.map((candidate, index) => {
    const id =
      typeof candidate === 'object' && candidate !== null && typeof (candidate as { id?: unknown }).id === 'string'
        ? (candidate as { id: string }).id
        : `#${index + 1}`;
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

/**
 * The YAML parser costs more than half of a scan's start-up (~170 ms for the catalogue), so the
 * build also writes the parsed catalogue as JSON (scripts/compile-rules.mjs), keyed by a hash of
 * the YAML it came from. A catalogue edited since the build is read from the YAML again; either
 * way every rule goes through the same zod validation.
 */
export const COMPILED_RULES = path.join('dist', 'rules.json');

export function rulesHash(texts: readonly string[]): string {
  return createHash('sha256').update(texts.join('\0')).digest('hex');
}

/**
 * The parsed documents of a compiled catalogue (rules, known issues) at `compiledFile`, or null
 * when it is missing or was made from other YAML than `texts` (an edit since the build).
 */
export function compiledDocuments(compiledFile: string, names: readonly string[], texts: readonly string[]): unknown[] | null {
  try {
    const compiled = JSON.parse(readFileSync(compiledFile, 'utf8')) as {
      hash?: string;
      names?: string[];
      documents?: unknown[];
    };
    if (compiled.hash !== rulesHash(texts) || JSON.stringify(compiled.names) !== JSON.stringify(names)) return null;
    return compiled.documents ?? null;
  } catch {
    return null;
  }
}

/** Every rules/*.yaml, in file-name order; rule ids must be unique across files. */
export function loadRules(rulesDir?: string): LoadedRule[] {
  // The single executable carries the compiled catalogue; it still goes through the same validation.
  const embedded = rulesDir === undefined ? embeddedAssets()?.rules : undefined;
  const dir = embedded ? 'rules' : (rulesDir ?? defaultRulesDir());
  const files = embedded
    ? embedded.names
    : readdirSync(dir)
        .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
        .sort();
  const texts = embedded ? [] : files.map((name) => readFileSync(path.join(dir, name), 'utf8'));
  const documents = embedded ? embedded.documents : compiledDocuments(path.join(path.dirname(dir), COMPILED_RULES), files, texts);
  const rules: LoadedRule[] = [];
  const seen = new Map<string, string>();
  for (const [index, name] of files.entries()) {
    const file = path.join(dir, name);
    for (const rule of parseRuleDocument(documents ? documents[index] : parseYamlText(texts[index]!, file), file)) {
      const first = seen.get(rule.id);
      if (first) throw new RuleLoadError(file, rule.id, 'id', `duplicate rule id (also in ${first})`);
      seen.set(rule.id, file);
      rules.push(rule);
    }
  }
  return rules;
}
