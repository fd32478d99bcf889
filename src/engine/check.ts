import type { z } from 'zod';
import type { Evidence, InterfaceSummary, Profile, Scalar, Severity, Source } from '../report/schema.js';
import type { FactId, FactResult, FactTypes } from './facts.js';
import type { SymptomFixTemplate } from '../report/fix-operations.js';

export interface SymptomMeta {
  severity: Severity;
  /** Message template: `{name}` is replaced by data.name. */
  message: string;
  /**
   * How to fix it, same templating; or a structured fix whose operations (src/fix/operations.ts)
   * fill `{commands}`. Rules (rules/*.yaml) add ranked causes on top.
   */
  fix?: string | SymptomFixTemplate;
}

export interface FindingInput {
  /** Defaults to the interface the check runs for, or "host". */
  subject?: string;
  /** Overrides the symptom's default severity (e.g. a downgrade that still carries line rate). */
  severity?: Severity;
  evidence: Evidence[];
  data?: Record<string, Scalar>;
}

/** Returned by run() when the check cannot give a verdict for this subject. */
export type Skip =
  | { status: 'not-applicable'; reason: string }
  | { status: 'unknown'; reason: string; hint?: string };

export interface CheckContext<R extends FactId, Opt extends FactId, S extends string, O> {
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
  source(id: R | Opt, match?: string): Source | undefined;
  report(symptom: S, finding: FindingInput): void;
  notApplicable(reason: string): Skip;
  unknown(reason: string, hint?: string): Skip;
}

export interface CheckDefinition<R extends FactId = FactId, Opt extends FactId = FactId, S extends string = string, O = unknown> {
  /** Equals the file name in checks/ (conformance-tested). */
  id: string;
  title: string;
  failureTitle: string;
  description: string;
  scope: 'host' | 'interface';
  requires: readonly R[];
  optionalFacts?: readonly Opt[];
  symptoms: Record<S, SymptomMeta>;
  /**
   * Decided from the interface summary alone, before any fact is collected: a reason when the
   * check has nothing to examine on this interface (no PCIe link on a veth). It saves the scan
   * from running commands whose answer cannot matter; run() still handles what it sees.
   */
  appliesTo?: (iface: InterfaceSummary) => string | null;
  /** Thresholds live here, validated with defaults, never as literals in run(). */
  options?: z.ZodType<O>;
  run(ctx: CheckContext<R, Opt, S, O>): void | Skip;
}

export function defineCheck<const R extends FactId, const S extends string, O = Record<string, never>, const Opt extends FactId = never>(
  definition: CheckDefinition<R, Opt, S, O>,
): CheckDefinition<R, Opt, S, O> {
  return definition;
}

// Registry entries erase the fact/symptom generics: the engine only needs the shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCheck = CheckDefinition<any, any, any, any>;
