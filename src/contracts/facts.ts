import type { Source } from '../report/schema.js';
import { ParseError } from '../parsers/parse-error.js';

/**
 * Every fact a collector can produce, by id. Collector modules add their own entries by
 * declaration merging, so adding a fact never edits a central list of types:
 *
 *   declare module '../contracts/facts.js' { interface FactTypes { 'ethtool.rings': Rings } }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface FactTypes {}
export type FactId = Extract<keyof FactTypes, string>;

export type FactErrorKind =
  | 'tool-missing'
  | 'permission-denied'
  | 'unsupported' // the driver or kernel does not offer this (e.g. ethtool -g on veth)
  | 'timeout'
  | 'parse-failed'
  | 'not-found'
  | 'not-captured' // an offline snapshot that lacks this input
  | 'dependency-failed'
  | 'failed';

export interface FactError {
  kind: FactErrorKind;
  message: string;
  /** What the user can do to get the fact: "run as root", "apt-get install ethtool". */
  hint?: string;
}

export type FactResult<T> =
  { ok: true; value: T; sources: Source[]; durationMs: number } | { ok: false; error: FactError; sources: Source[]; durationMs: number };

/** Thrown by collectors and parsers; the engine turns it into a failed FactResult. */
export class FactCollectionError extends Error implements FactError {
  constructor(
    readonly kind: FactErrorKind,
    message: string,
    readonly hint?: string,
  ) {
    // Thousands of these (an unsupported or uncaptured fact per interface) are expected; their
    // stack traces cost time and say nothing the kind and message do not.
    const limit = Error.stackTraceLimit;
    if (kind !== 'failed') Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'FactCollectionError';
  }
}

/** Parsers throw this on output they cannot read (defined with them; re-exported for the engine). */
export { ParseError };

/** A collector's own failure or a parser's: both become a fact failure with their kind. */
export function isFactFailure(error: unknown): error is FactCollectionError | ParseError {
  return error instanceof FactCollectionError || error instanceof ParseError;
}
