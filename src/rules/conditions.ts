import type { CheckStatus, Finding, Scalar } from '../report/schema.js';
import type { Condition, ConditionValue, Op } from './schema.js';
import type { Bindings } from './template.js';

/** Evidence a diagnosis used: a finding, or a fact value at a path. */
export type DiagnosisEvidence = { check: string; symptom: string; subject: string } | { fact: string; path: string; value: Scalar };

export interface EvalContext {
  /** The interface under evaluation, or "host". */
  subject: string;
  findings: readonly Finding[];
  /**
   * Findings of one symptom ("check/symptom"), on this subject and the host or on any subject:
   * an index, so that evaluating every rule on thousands of interfaces stays linear. The subject
   * 'any' asks for the symptom's findings on every subject.
   */
  findingsOf?(symptom: string, subject: string): readonly Finding[];
  checkStatus(check: string, subject: string): CheckStatus | undefined;
  /** A collected fact's value, undefined when it was not collected or failed. */
  fact(id: string, subject: string | undefined): unknown;
  isInterfaceFact(id: string): boolean;
  /** The wording a finding's symptom derives from its data (its `phrases`), bound like data fields. */
  phrases?(finding: Finding): Record<string, string>;
}

export interface Match {
  evidence: DiagnosisEvidence[];
  bindings: Bindings;
  /** Used something that belongs to one interface (a finding on it, an interface fact). */
  interfaceSpecific: boolean;
}

const HOST = 'host';

function numeric(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
}

function resolveValue(value: ConditionValue | undefined, bindings: Bindings): Scalar | Scalar[] | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const bound = bindings[value.ref];
    if (bound === undefined || bound === null) return undefined;
    if (value.times === undefined) return bound;
    const number = numeric(bound);
    return number === null ? undefined : number * value.times;
  }
  return value;
}

/** One comparison. A missing actual value satisfies only `absent`: no value is no evidence. */
/** A value as a `matches` pattern sees it: scalars as printed, anything else as JSON. */
function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : (JSON.stringify(value) ?? '');
}

export function compare(actual: unknown, op: Op, expected: Scalar | Scalar[] | undefined): boolean {
  const missing = actual === undefined || actual === null;
  if (op === 'absent') return missing;
  if (op === 'exists') return !missing;
  if (missing) return false;
  switch (op) {
    case 'eq':
    case 'ne': {
      const a = numeric(actual);
      const b = numeric(expected);
      const equal = a !== null && b !== null ? a === b : actual === expected;
      return op === 'eq' ? equal : !equal;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const a = numeric(actual);
      const b = numeric(expected);
      if (a === null || b === null) return false;
      return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
    }
    case 'in':
      return Array.isArray(expected) && expected.some((candidate) => compare(actual, 'eq', candidate));
    case 'matches':
      return typeof expected === 'string' && new RegExp(expected).test(textOf(actual));
  }
}

/** Value at a dotted path ("link.width", "cpus.0.siblings"). */
export function valueAt(root: unknown, path: string): unknown {
  let current: unknown = root;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function toScalar(value: unknown): Scalar {
  if (value === undefined) return null;
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

function bind(into: Bindings, name: string, value: Scalar): void {
  // The first value bound under a name wins: built-ins ({subject}) are never overwritten.
  if (into[name] === undefined && value !== null) into[name] = value;
}

function merge(target: Match, source: Match): void {
  target.evidence.push(...source.evidence);
  for (const [name, value] of Object.entries(source.bindings)) bind(target.bindings, name, value);
  target.interfaceSpecific ||= source.interfaceSpecific;
}

/**
 * Evaluates a condition for ctx.subject. `bindings` holds what is known so far (built-ins and
 * earlier conditions of an `all`), for `{ref: name}` values. Returns null when it does not hold.
 */
export function evaluate(condition: Condition, ctx: EvalContext, bindings: Bindings): Match | null {
  if ('all' in condition) {
    const result: Match = { evidence: [], bindings: {}, interfaceSpecific: false };
    for (const part of condition.all) {
      const match = evaluate(part, ctx, { ...bindings, ...result.bindings });
      if (!match) return null;
      merge(result, match);
    }
    return result;
  }
  if ('any' in condition) {
    // Every branch that holds contributes evidence: two independent observations are stronger than one.
    const result: Match = { evidence: [], bindings: {}, interfaceSpecific: false };
    let held = false;
    for (const part of condition.any) {
      const match = evaluate(part, ctx, { ...bindings, ...result.bindings });
      if (!match) continue;
      held = true;
      merge(result, match);
    }
    return held ? result : null;
  }
  if ('not' in condition) {
    return evaluate(condition.not, ctx, bindings) ? null : { evidence: [], bindings: {}, interfaceSpecific: false };
  }
  if ('symptom' in condition) {
    const expected = resolveValue(condition.value, bindings);
    const candidates = ctx.findingsOf ? ctx.findingsOf(condition.symptom, condition.subject === 'any' ? 'any' : ctx.subject) : ctx.findings;
    const matched = candidates.filter((finding) => {
      if (`${finding.check}/${finding.symptom}` !== condition.symptom) return false;
      const onSubject = condition.subject === 'any' || finding.subject === ctx.subject || finding.subject === HOST;
      if (!onSubject) return false;
      if (!condition.data) return true;
      return compare(finding.data[condition.data], condition.op ?? 'exists', expected);
    });
    if (matched.length === 0) return null;
    const result: Match = { evidence: [], bindings: {}, interfaceSpecific: matched.some((finding) => finding.subject !== HOST) };
    for (const finding of matched) result.evidence.push({ check: finding.check, symptom: finding.symptom, subject: finding.subject });
    const first = matched[0]!;
    if (condition.as && condition.data) bind(result.bindings, condition.as, first.data[condition.data] ?? null);
    for (const [key, value] of Object.entries({ ...first.data, ...ctx.phrases?.(first) })) {
      bind(result.bindings, `${condition.symptom}.${key}`, value);
      bind(result.bindings, key, value);
    }
    return result;
  }
  if ('fact' in condition) {
    const perInterface = ctx.isInterfaceFact(condition.fact);
    // An interface fact has no value for the host as a whole.
    const root = perInterface
      ? ctx.subject === HOST
        ? undefined
        : ctx.fact(condition.fact, ctx.subject)
      : ctx.fact(condition.fact, undefined);
    const about = !perInterface && condition.about !== undefined ? aboutSubjects(root, condition.about) : null;
    if (about !== null && !about.includes(ctx.subject)) return null;
    const actual = valueAt(root, condition.path);
    if (!compare(actual, condition.op, resolveValue(condition.value, bindings))) return null;
    const value = toScalar(actual);
    const result: Match = {
      evidence: [{ fact: condition.fact, path: condition.path, value }],
      bindings: {},
      interfaceSpecific: perInterface || (about !== null && ctx.subject !== HOST),
    };
    bind(result.bindings, condition.as ?? `${condition.fact}.${condition.path}`, value);
    return result;
  }
  if ('check' in condition) {
    const status = ctx.checkStatus(condition.check, ctx.subject);
    const wanted = Array.isArray(condition.status) ? condition.status : [condition.status];
    return status !== undefined && wanted.includes(status) ? { evidence: [], bindings: {}, interfaceSpecific: false } : null;
  }
  const actual = bindings[condition.var];
  return compare(actual, condition.op, resolveValue(condition.value, bindings))
    ? { evidence: [], bindings: {}, interfaceSpecific: false }
    : null;
}

/** The subjects a host fact's value is about: the interface(s) named at `path`, else the host. */
function aboutSubjects(root: unknown, path: string): string[] {
  const named = valueAt(root, path);
  const names = (Array.isArray(named) ? named : [named]).filter((name): name is string => typeof name === 'string' && name !== '');
  return names.length > 0 ? names : [HOST];
}

/** Every `<check>/<symptom>` and fact id a condition tree mentions (conformance, fact snapshots). */
export function references(
  condition: Condition | undefined,
  into: { symptoms: Set<string>; facts: Set<string>; checks: Set<string> },
): void {
  if (!condition) return;
  if ('all' in condition) condition.all.forEach((part) => references(part, into));
  else if ('any' in condition) condition.any.forEach((part) => references(part, into));
  else if ('not' in condition) references(condition.not, into);
  else if ('symptom' in condition) into.symptoms.add(condition.symptom);
  else if ('fact' in condition) into.facts.add(condition.fact);
  else if ('check' in condition) into.checks.add(condition.check);
}
