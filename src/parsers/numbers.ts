import { ParseError } from './parse-error.js';

/**
 * Numbers read from command output must be finite and in range: a 400-digit "counter" is
 * Number("9…9") = Infinity, which no check can judge and the report's schema refuses. A number
 * out of range means the output is not what the parser expects: ParseError, and the fact is
 * `unknown` with the reason.
 */

/** Kernel counters and attributes are at most 64-bit: nothing a kernel prints lies outside ±2^64. */
export const KERNEL_INTEGER_RANGE = { min: -(2 ** 64), max: 2 ** 64 } as const;

export interface NumberRange {
  min: number;
  max: number;
}

/** Shows a long number by its length, not all of its digits. */
function shown(text: string): string {
  return text.length > 24 ? `${text.slice(0, 12)}… (${text.length} characters)` : text;
}

/** `text` as a finite number within `range`; ParseError naming `what` otherwise. */
export function numberInRange(text: string, what: string, range: NumberRange = KERNEL_INTEGER_RANGE): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new ParseError(`${what}: ${shown(text)} is not a finite number`);
  if (value < range.min || value > range.max) throw new ParseError(`${what}: ${shown(text)} is outside ${range.min}..${range.max}`);
  return value;
}
