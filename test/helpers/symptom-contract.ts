import { z } from 'zod';
import type { AnyCheck, SymptomMeta } from '../../src/contracts/check.js';
import { dataFields } from '../../src/contracts/check.js';
import { BUILTIN_BINDINGS } from '../../src/rules/engine.js';
import type { Condition, Rule } from '../../src/rules/schema.js';
import { placeholders } from '../../src/rules/template.js';

/**
 * The contract between checks and everything that reads their findings (rules, policy, scenario
 * expectations): what each `<check>/<symptom>` declares, and the problems when something refers
 * to a symptom or data field that no check declares. Used by test/conformance.test.ts.
 */
export interface DeclaredSymptom {
  /** `<check>/<symptom>`. */
  id: string;
  /** Declares a data schema (every symptom will; see UNTYPED_PENDING in the conformance test). */
  typed: boolean;
  fields: ReadonlySet<string>;
  phrases: ReadonlySet<string>;
  meta: SymptomMeta;
}

export function declaredSymptoms(checks: readonly AnyCheck[]): Map<string, DeclaredSymptom> {
  const declared = new Map<string, DeclaredSymptom>();
  for (const check of checks) {
    for (const [symptom, meta] of Object.entries(check.symptoms as Record<string, SymptomMeta>)) {
      const id = `${check.id}/${symptom}`;
      declared.set(id, {
        id,
        typed: meta.data instanceof z.ZodObject,
        fields: new Set(dataFields(meta)),
        phrases: new Set(Object.keys(meta.phrases ?? {})),
        meta,
      });
    }
  }
  return declared;
}

/** A symptom's message and fix use only {subject}, its data fields and its phrases; phrases do not shadow fields. */
export function symptomTemplateProblems(symptom: DeclaredSymptom): string[] {
  if (!symptom.typed) return [];
  const problems: string[] = [];
  const known = new Set(['subject', ...symptom.fields, ...symptom.phrases]);
  const fix = symptom.meta.fix;
  // A structured fix: its text may use {commands} (its operations' shell text); its operations' parameters are templates too.
  const fixTemplates: Array<[string, string]> =
    typeof fix === 'object'
      ? [
          ['fix', fix.text.split('{commands}').join('')],
          ...templateStrings(fix.ops ?? []).map((text) => ['fix.ops', text] as [string, string]),
        ]
      : [['fix', fix ?? '']];
  for (const [what, template] of [['message', symptom.meta.message] as [string, string], ...fixTemplates]) {
    for (const name of placeholders(template)) {
      if (!known.has(name))
        problems.push(
          `${symptom.id} ${what} uses {${name}}, which is neither a data field nor a phrase of ${symptom.id} (fields: ${[...symptom.fields].join(', ') || 'none'}; phrases: ${[...symptom.phrases].join(', ') || 'none'})`,
        );
    }
  }
  for (const phrase of symptom.phrases)
    if (symptom.fields.has(phrase)) problems.push(`${symptom.id} phrase "${phrase}" has the name of a data field`);
  return problems;
}

function conditionsOf(rule: Rule): Condition[] {
  return [
    rule.when,
    rule.unless,
    rule.confirmedBy,
    ...(rule.ruledOut ?? []).map((entry) => entry.when),
    ...rule.fixes.map((fix) => fix.when),
  ].filter((condition): condition is Condition => condition !== undefined);
}

function walk(condition: Condition, visit: (leaf: Condition) => void): void {
  if ('all' in condition) condition.all.forEach((part) => walk(part, visit));
  else if ('any' in condition) condition.any.forEach((part) => walk(part, visit));
  else if ('not' in condition) walk(condition.not, visit);
  else visit(condition);
}

/** Every string inside a value (an operation's parameters): each is a template. */
function templateStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(templateStrings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(templateStrings);
  return [];
}

/** Every template of a rule, with where it is, for the messages. */
function templatesOf(rule: Rule): Array<[string, string]> {
  const explanation = Array.isArray(rule.explanation) ? rule.explanation : [rule.explanation];
  return [
    ['title', rule.title],
    ...explanation.map((sentence, index) => [`explanation[${index}]`, sentence] as [string, string]),
    ...(rule.limit ? [['limit', rule.limit] as [string, string]] : []),
    ...(rule.ruledOut ?? []).map((entry, index) => [`ruledOut[${index}]`, entry.text] as [string, string]),
    ...rule.fixes.flatMap((fix, index) => [
      [`fixes[${index}].text`, fix.text] as [string, string],
      ...(fix.ops ?? []).flatMap((op, opIndex) =>
        templateStrings(op).map((text) => [`fixes[${index}].ops[${opIndex}]`, text] as [string, string]),
      ),
      ...(fix.persistent
        ? [
            [`fixes[${index}].persistent.file`, fix.persistent.file] as [string, string],
            [`fixes[${index}].persistent.content`, fix.persistent.content] as [string, string],
          ]
        : []),
    ]),
  ];
}

export interface RuleReport {
  /** Contract breaches: the conformance test fails on these. */
  problems: string[];
  /** Placeholders that resolve only because the rule names a symptom that declares no schema yet. */
  unchecked: string[];
}

/**
 * What a rule refers to, against what the checks declare: symptoms, symptom data fields in
 * conditions, and every template placeholder (a built-in, a fact or `as` binding, or a data field
 * or phrase of a symptom the rule's conditions name, bare or as `<check>/<symptom>.<field>`).
 */
export function ruleProblems(rule: Rule, declared: ReadonlyMap<string, DeclaredSymptom>): RuleReport {
  const problems: string[] = [];
  const names = new Set<string>(BUILTIN_BINDINGS);
  const refs: Array<[string, string]> = [];
  let untyped = false;
  for (const condition of conditionsOf(rule)) {
    walk(condition, (leaf) => {
      if ('symptom' in leaf) {
        const symptom = declared.get(leaf.symptom);
        if (!symptom) {
          problems.push(`rule ${rule.id} names symptom ${leaf.symptom}, which no check declares`);
          return;
        }
        if (!symptom.typed) untyped = true;
        else if (leaf.data !== undefined && !symptom.fields.has(leaf.data)) {
          problems.push(
            `rule ${rule.id} reads data field "${leaf.data}" of ${leaf.symptom}, which its schema does not declare (fields: ${[...symptom.fields].join(', ')})`,
          );
        }
        if (leaf.as) names.add(leaf.as);
        for (const name of [...symptom.fields, ...symptom.phrases]) {
          names.add(name);
          names.add(`${leaf.symptom}.${name}`);
        }
        if (leaf.value && typeof leaf.value === 'object' && !Array.isArray(leaf.value))
          refs.push([`a ${leaf.symptom} condition's ref`, leaf.value.ref]);
      } else if ('fact' in leaf) {
        names.add(leaf.as ?? `${leaf.fact}.${leaf.path}`);
        if (leaf.value && typeof leaf.value === 'object' && !Array.isArray(leaf.value))
          refs.push([`a ${leaf.fact} condition's ref`, leaf.value.ref]);
      } else if ('var' in leaf) {
        refs.push(['a var condition', leaf.var]);
        if (leaf.value && typeof leaf.value === 'object' && !Array.isArray(leaf.value))
          refs.push(["a var condition's ref", leaf.value.ref]);
      }
    });
  }
  const unchecked: string[] = [];
  const resolve = (where: string, name: string) => {
    if (names.has(name)) return;
    if (untyped) unchecked.push(`rule ${rule.id} ${where}: {${name}}`);
    else
      problems.push(
        `rule ${rule.id} ${where} uses {${name}}, which is no built-in, fact binding, or data field or phrase of a symptom the rule names`,
      );
  };
  for (const [where, name] of refs) resolve(where, name);
  for (const [where, template] of templatesOf(rule)) for (const name of placeholders(template)) resolve(where, name);
  return { problems, unchecked };
}

/** A table of symptoms and the data fields code reads from them (the policy's). */
export function fieldTableProblems(
  owner: string,
  table: ReadonlyArray<{ check: string; symptoms: readonly string[]; fields: readonly string[] }>,
  declared: ReadonlyMap<string, DeclaredSymptom>,
): string[] {
  const problems: string[] = [];
  for (const entry of table) {
    const symptoms = entry.symptoms.map((symptom) => `${entry.check}/${symptom}`);
    const known = symptoms.flatMap((id) => {
      const symptom = declared.get(id);
      if (!symptom) problems.push(`${owner} reads ${id}, which no check declares`);
      return symptom ? [symptom] : [];
    });
    if (known.some((symptom) => !symptom.typed)) continue;
    for (const field of entry.fields) {
      if (!known.some((symptom) => symptom.fields.has(field)))
        problems.push(`${owner} reads data field "${field}" of ${symptoms.join(' / ')}, which no schema declares`);
    }
  }
  return problems;
}

/** The symptoms and checks a scenario's expected.json names. */
export interface Expectation {
  findings?: Array<{ check: string; symptom?: string }>;
  absent?: Array<{ check: string; symptom?: string }>;
  statuses?: Record<string, string>;
}

export function expectationProblems(
  name: string,
  expected: Expectation,
  checks: readonly AnyCheck[],
  declared: ReadonlyMap<string, DeclaredSymptom>,
): string[] {
  const problems: string[] = [];
  const ids = new Set(checks.map((check) => check.id));
  const entries = [...(expected.findings ?? []), ...(expected.absent ?? [])];
  for (const entry of entries) {
    if (!ids.has(entry.check)) problems.push(`${name}: names check ${entry.check}, which does not exist`);
    else if (entry.symptom && !declared.has(`${entry.check}/${entry.symptom}`))
      problems.push(`${name}: names symptom ${entry.check}/${entry.symptom}, which no check declares`);
  }
  for (const check of Object.keys(expected.statuses ?? {}))
    if (!ids.has(check)) problems.push(`${name}: names check ${check} in statuses, which does not exist`);
  return problems;
}
