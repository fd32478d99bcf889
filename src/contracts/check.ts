import type { z } from 'zod';
import type { Evidence, InterfaceSummary, Profile, Scalar, Severity, Source } from '../report/schema.js';
import type { FactId, FactResult, FactTypes } from './facts.js';
import type { SymptomFixTemplate } from '../report/fix-operations.js';

/**
 * A symptom's data schema: an object of numbers, booleans, enums and identifiers (interface
 * names, PCI addresses, cpulists, counter names), never sentences. Fields may be nullable/optional.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SymptomDataSchema = z.ZodObject<any>;

/** What a phrase may know besides the data: the finding's subject (an interface or "host"). */
export interface PhraseContext {
  subject: string;
}

/** Wording derived from typed data at render time; never stored in a finding's data. */
export type Phrases<D> = Record<string, (data: D, finding: PhraseContext) => string>;

export interface SymptomMeta<D extends SymptomDataSchema = SymptomDataSchema> {
  severity: Severity;
  /** What `report()` must pass as `data`; validated at run time (a throw under tests, a warning otherwise). */
  data: D;
  /** Named wording computed from the data: `{name}` in the message, the fix and rule templates. */
  phrases?: Phrases<z.output<D>>;
  /** Message template: `{subject}`, data fields and phrases are its placeholders. */
  message: string;
  /**
   * How to fix it, same templating; or a structured fix whose operations (src/fix/operations.ts)
   * fill `{commands}`. Rules (rules/*.yaml) add ranked causes on top.
   */
  fix?: string | SymptomFixTemplate;
}

/**
 * Declares one symptom. An identity function: it exists so that `phrases` is typed by the
 * symptom's own `data` schema.
 */
export function symptom<D extends SymptomDataSchema>(meta: SymptomMeta<D> & { data: D }): SymptomMeta<D> & { data: D } {
  return meta;
}

/** What `report()` takes as data for a symptom: the schema's input, or (undeclared) any scalars. */
export type SymptomInput<M> = M extends { data: infer D extends SymptomDataSchema } ? z.input<D> : Record<string, Scalar | undefined>;

export interface FindingInput<Data = Record<string, Scalar | undefined>> {
  /** Defaults to the interface the check runs for, or "host". */
  subject?: string;
  /** Overrides the symptom's default severity (e.g. a downgrade that still carries line rate). */
  severity?: Severity;
  evidence: Evidence[];
  data?: Data;
}

/** Returned by run() when the check cannot give a verdict for this subject. */
export type Skip = { status: 'not-applicable'; reason: string } | { status: 'unknown'; reason: string; hint?: string };

// `any`: each symptom's phrases take its own data type (a function parameter is contravariant).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SymptomTable = Record<string, SymptomMeta<any>>;

/** Function properties, not methods: checks destructure them (`run({ report, unknown })`). */
export interface CheckContext<R extends FactId, Opt extends FactId, Sy extends SymptomTable, O> {
  /** The interface under examination (interface checks) or "host". */
  readonly subject: string;
  /** Interfaces selected for this run. */
  readonly interfaces: readonly InterfaceSummary[];
  /** Required facts; a check is never run when one of them failed (it becomes unknown). */
  readonly facts: { readonly [K in R]: FactTypes[K] };
  /** Optional facts, with their error when they could not be had. */
  readonly optional: { readonly [K in Opt]: FactResult<FactTypes[K]> };
  readonly options: O;
  readonly profile: Profile;
  /** Where a fact came from (files read, commands run), for evidence. */
  source: (id: R | Opt, match?: string) => Source | undefined;
  /** Records a finding; `data` is typed (and at run time validated) by the symptom's schema. */
  report: <K extends keyof Sy & string>(symptom: K, finding: FindingInput<SymptomInput<Sy[K]>>) => void;
  notApplicable: (reason: string) => Skip;
  unknown: (reason: string, hint?: string) => Skip;
}

export interface CheckDefinition<
  R extends FactId = FactId,
  Opt extends FactId = FactId,
  Sy extends SymptomTable = SymptomTable,
  O = unknown,
  Id extends string = string,
> {
  /** Equals the file name in checks/ (conformance-tested). */
  id: Id;
  /** What is examined, as a neutral noun ("Ring sizes"): the status and the findings say what was found. */
  title: string;
  /**
   * @deprecated Not shown: a title that asserts the failure ("Rings are below their maximum") reads
   * wrong above a pass. Kept optional so that checks written before it still compile.
   */
  failureTitle?: string;
  description: string;
  scope: 'host' | 'interface';
  requires: readonly R[];
  optionalFacts?: readonly Opt[];
  symptoms: Sy;
  /**
   * Decided from the interface summary alone, before any fact is collected: a reason when the
   * check has nothing to examine on this interface (no PCIe link on a veth). It saves the scan
   * from running commands whose answer cannot matter; run() still handles what it sees.
   */
  appliesTo?: (iface: InterfaceSummary) => string | null;
  /** Thresholds live here, validated with defaults, never as literals in run(). */
  options?: z.ZodType<O>;
  run(ctx: CheckContext<R, Opt, Sy, O>): void | Skip;
}

export function defineCheck<
  const R extends FactId,
  const Sy extends SymptomTable,
  O = Record<string, never>,
  const Opt extends FactId = never,
  const Id extends string = string,
>(definition: CheckDefinition<R, Opt, Sy, O, Id>): CheckDefinition<R, Opt, Sy, O, Id> {
  return definition;
}

// Registry entries erase the fact/symptom generics: the engine only needs the shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCheck = CheckDefinition<any, any, any, any, string>;

/** `<check>/<symptom>` ids of a check type, e.g. "rx-rings/rx-ring-below-max". */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SymptomIdOf<C> = C extends CheckDefinition<any, any, infer Sy, any, infer Id> ? `${Id}/${keyof Sy & string}` : never;

/**
 * The phrases of a symptom for given finding data (rules and reporters render them from a saved
 * report's data). A phrase that cannot be computed from this data (a report from an older
 * version, a field missing) is left out: templates then treat it as absent.
 */
export function phrasesFor(meta: SymptomMeta | undefined, data: Record<string, Scalar>, finding: PhraseContext): Record<string, string> {
  const phrases: Record<string, string> = {};
  if (!meta?.phrases) return phrases;
  const parsed = meta.data.safeParse(data);
  if (!parsed.success) return phrases;
  for (const [name, phrase] of Object.entries(meta.phrases)) {
    const text = phrase(parsed.data, finding);
    if (typeof text === 'string') phrases[name] = text;
  }
  return phrases;
}

/** The declared fields of a symptom's data (conformance, rule fixtures). */
export function dataFields(meta: SymptomMeta): string[] {
  return Object.keys(meta.data.shape as Record<string, unknown>);
}
