import type { Logger } from 'pino';
import type { CheckResult, Evidence, Finding, InterfaceSummary, Profile, Scalar, Source, SubjectResult } from '../report/schema.js';
import { fill } from '../rules/template.js';
import {
  phrasesFor,
  type AnyCheck,
  type CheckContext,
  type FindingInput,
  type SymptomMeta,
  type SymptomTable,
  type Skip,
} from '../contracts/check.js';
import type { FactStore } from '../contracts/collector.js';
import type { FactId, FactResult } from '../contracts/facts.js';
import { isStrict } from '../contracts/strict.js';
import { fixCommandsBinding } from '../rules/fix-render.js';
import { forEachBounded } from '../util/bounded.js';

export const HOST_SUBJECT = 'host';
/**
 * Subjects of one check judged at once. Facts are shared between checks through the store, so
 * every check still runs side by side; the bound only keeps a 10,000-interface host from holding
 * every subject's work in memory at the same time. A host with fewer interfaces is unaffected.
 */
const SUBJECTS_IN_FLIGHT = 64;

export interface CheckRunOptions {
  store: FactStore;
  checks: readonly AnyCheck[];
  interfaces: readonly InterfaceSummary[];
  profile: Profile;
  log: Logger;
  /** Per-check option overrides (validated by each check's own schema). */
  checkOptions?: Record<string, unknown>;
}

/** Runs every check for every subject; results come back in registry order. */
export async function runChecks(options: CheckRunOptions): Promise<CheckResult[]> {
  return Promise.all(options.checks.map((check) => runCheck(check, options)));
}

async function runCheck(check: AnyCheck, options: CheckRunOptions): Promise<CheckResult> {
  const started = performance.now();
  const subjects = check.scope === 'interface' ? options.interfaces.map((iface) => iface.name) : [HOST_SUBJECT];
  const interfaceByName = new Map(options.interfaces.map((iface) => [iface.name, iface]));
  const findings: Finding[] = [];
  const subjectResults: SubjectResult[] = [];
  let firstError: CheckResult['error'];
  const parsedOptions = check.options
    ? check.options.safeParse(options.checkOptions?.[check.id] ?? {})
    : { success: true as const, data: {} };
  if (!parsedOptions.success) {
    return {
      id: check.id,
      title: check.title,
      status: 'error',
      reason: `invalid options for ${check.id}: ${parsedOptions.error.issues[0]?.message ?? 'invalid'}`,
      durationMs: 0,
      subjects: [],
      findings: [],
    };
  }

  await forEachBounded(subjects, SUBJECTS_IN_FLIGHT, async (subject) => {
    const factSubject = check.scope === 'interface' ? subject : undefined;
    const summary = interfaceByName.get(subject);
    const notApplicable = check.scope === 'interface' && summary && check.appliesTo ? check.appliesTo(summary) : null;
    if (notApplicable) {
      subjectResults.push({ subject, status: 'not-applicable', reason: notApplicable });
      return;
    }
    const required = (check.requires as FactId[]) ?? [];
    const optional = (check.optionalFacts as FactId[] | undefined) ?? [];
    const requiredResults = await Promise.all(required.map((id) => options.store.get(id, factSubject)));
    const optionalResults = await Promise.all(optional.map((id) => options.store.get(id, factSubject)));
    const failedIndex = requiredResults.findIndex((result) => !result.ok);
    if (failedIndex >= 0) {
      const failed = requiredResults[failedIndex] as Extract<FactResult<unknown>, { ok: false }>;
      subjectResults.push({
        subject,
        status: 'unknown',
        reason: `${required[failedIndex]}: ${failed.error.message}`,
        ...(failed.error.hint ? { hint: failed.error.hint } : {}),
      });
      return;
    }
    const subjectFindings: Finding[] = [];
    const ctx = makeContext(
      check,
      subject,
      required,
      requiredResults,
      optional,
      optionalResults,
      parsedOptions.data,
      options,
      subjectFindings,
    );
    try {
      const skip = check.run(ctx) as Skip | undefined;
      if (skip) {
        subjectResults.push({
          subject,
          status: skip.status,
          reason: skip.reason,
          ...('hint' in skip && skip.hint ? { hint: skip.hint } : {}),
        });
        return;
      }
      findings.push(...subjectFindings);
      const failed = subjectFindings.some((finding) => finding.severity !== 'info');
      subjectResults.push({ subject, status: failed ? 'fail' : 'pass' });
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      options.log.error({ check: check.id, subject, err }, 'check crashed');
      firstError ??= { message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
      subjectResults.push({ subject, status: 'error', reason: `the check broke: ${err.message}` });
    }
  });

  // Subjects finish in any order; the report lists them in the order they were given.
  const order = new Map(subjects.map((subject, index) => [subject, index]));
  subjectResults.sort((a, b) => order.get(a.subject)! - order.get(b.subject)!);
  findings.sort((a, b) => (order.get(a.subject) ?? -1) - (order.get(b.subject) ?? -1));
  const status = combineStatus(subjectResults);
  const explained = subjectResults.find((result) => result.status === status && result.reason);
  return {
    id: check.id,
    title: check.title,
    status,
    ...(explained?.reason
      ? {
          reason:
            subjects.length > 1 && !explained.reason.startsWith(explained.subject)
              ? `${explained.subject}: ${explained.reason}`
              : explained.reason,
        }
      : {}),
    ...(explained?.hint ? { hint: explained.hint } : {}),
    durationMs: performance.now() - started,
    subjects: subjectResults,
    findings,
    ...(firstError ? { error: firstError } : {}),
  };
}

/**
 * One status for the check across its subjects: a fault anywhere is what matters most; a
 * missing fact anywhere means the check cannot claim a pass.
 */
export function combineStatus(results: readonly SubjectResult[]): CheckResult['status'] {
  const order: CheckResult['status'][] = ['fail', 'error', 'unknown', 'pass', 'not-applicable'];
  for (const status of order) if (results.some((result) => result.status === status)) return status;
  return 'not-applicable';
}

function makeContext(
  check: AnyCheck,
  subject: string,
  required: FactId[],
  requiredResults: FactResult<unknown>[],
  optional: FactId[],
  optionalResults: FactResult<unknown>[],
  checkOptions: unknown,
  options: CheckRunOptions,
  sink: Finding[],
): CheckContext<FactId, FactId, SymptomTable, unknown> {
  const values = new Map<string, unknown>(required.map((id, index) => [id, (requiredResults[index] as { value: unknown }).value]));
  const optionalMap = new Map<string, FactResult<unknown>>(optional.map((id, index) => [id, optionalResults[index]!]));
  const allSources = new Map<string, Source[]>([
    ...required.map((id, index) => [id, requiredResults[index]!.sources] as const),
    ...optional.map((id, index) => [id, optionalResults[index]!.sources] as const),
  ]);
  // Checks read only what they declared; reading anything else is a bug caught in tests.
  const guard = <T>(map: Map<string, T>, kind: string): Record<string, T> =>
    new Proxy<Record<string, T>>(
      {},
      {
        get(_, key) {
          if (typeof key !== 'string') return undefined;
          if (!map.has(key)) throw new Error(`check ${check.id} read ${kind} fact "${key}" that it did not declare`);
          return map.get(key);
        },
        has: (_, key) => typeof key === 'string' && map.has(key),
        ownKeys: () => [...map.keys()],
        getOwnPropertyDescriptor: (_, key) =>
          typeof key === 'string' && map.has(key) ? { enumerable: true, configurable: true, value: map.get(key) } : undefined,
      },
    );

  return {
    subject,
    interfaces: options.interfaces,
    facts: guard(values, 'required') as never,
    optional: guard(optionalMap, 'optional') as never,
    options: checkOptions,
    profile: options.profile,
    source(id, match) {
      const sources = allSources.get(id) ?? [];
      if (!match) return sources[0];
      return sources.find((source) =>
        source.kind === 'file' ? source.path.includes(match) : source.kind === 'command' ? source.argv.join(' ').includes(match) : false,
      );
    },
    report(symptom, input: FindingInput) {
      const meta = (check.symptoms as Record<string, SymptomMeta>)[symptom];
      if (!meta) throw new Error(`check ${check.id} reported undeclared symptom "${symptom}"`);
      const findingSubject = input.subject ?? subject;
      const data = validData(check.id, symptom, meta, input.data ?? {}, options.log);
      const bindings = { subject: findingSubject, ...data, ...phrasesFor(meta, data, { subject: findingSubject }) };
      const text = (template: string, what: string, extra: Record<string, Scalar> = {}) => {
        const filled = fill(template, { ...bindings, ...extra });
        if (filled.missing.length > 0) {
          const problem = `${check.id}/${symptom} ${what} has no value for {${filled.missing.join('}, {')}}`;
          if (isStrict()) throw new Error(problem);
          options.log.warn({ check: check.id, symptom, missing: filled.missing }, problem);
        }
        return filled.text;
      };
      sink.push({
        symptom,
        check: check.id,
        subject: findingSubject,
        severity: input.severity ?? meta.severity,
        message: text(meta.message, 'message'),
        ...(meta.fix
          ? {
              fix:
                typeof meta.fix === 'string' ? text(meta.fix, 'fix') : text(meta.fix.text, 'fix', fixCommandsBinding(meta.fix, bindings)),
            }
          : {}),
        evidence: input.evidence.map((item: Evidence) => item),
        data,
      });
    },
    notApplicable: (reason) => ({ status: 'not-applicable', reason }),
    unknown: (reason, hint) => ({ status: 'unknown', reason, ...(hint ? { hint } : {}) }),
  };
}

/**
 * The finding's data as its symptom's schema makes it (defaults applied, undeclared keys
 * dropped), without undefined values. An invalid payload is a bug in the check: under tests it
 * throws (the check result becomes `error` with zod's message); in production it is logged and
 * the finding kept with what the check gave.
 */
function validData(
  checkId: string,
  symptom: string,
  meta: SymptomMeta,
  given: Record<string, Scalar | undefined>,
  log: Logger,
): Record<string, Scalar> {
  let data: Record<string, unknown> = given;
  const parsed = meta.data.safeParse(given);
  if (parsed.success) data = parsed.data;
  else {
    const problem = `${checkId}/${symptom} reported data that does not match its schema: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`).join('; ')}`;
    if (isStrict()) throw new Error(problem);
    log.warn({ check: checkId, symptom, issues: parsed.error.issues }, problem);
  }
  const kept: Record<string, Scalar> = {};
  for (const [key, value] of Object.entries(data)) if (value !== undefined) kept[key] = value as Scalar;
  return kept;
}
