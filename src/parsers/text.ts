import { ParseError } from './parse-error.js';
import { numberInRange } from './numbers.js';

/** Small helpers shared by the text parsers. Parsers are pure: text in, typed value out. */

/** Splits into lines, without trailing whitespace and without a trailing empty line. */
export function lines(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd());
}

/** "n/a", "" and "unknown" mean the driver does not report the value. */
export function parseOptionalNumber(value: string | undefined): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (!/^-?\d+$/.test(trimmed)) return null;
  return numberInRange(trimmed, 'a count');
}

/** ethtool's "on" / "off"; anything else ("n/a", absent) is null. */
export function parseOnOff(value: string | undefined): boolean | null {
  return value === 'on' ? true : value === 'off' ? false : null;
}

/** `key: value` lines (ethtool, lspci) into pairs, keeping order and repeated keys. */
export function keyValuePairs(text: string, separator = ':'): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const line of lines(text)) {
    const index = line.indexOf(separator);
    if (index <= 0) continue;
    pairs.push([line.slice(0, index).trim(), line.slice(index + separator.length).trim()]);
  }
  return pairs;
}

/** Trimmed, non-empty lines: for outputs whose indentation means nothing. */
export function contentLines(text: string): string[] {
  return lines(text)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** The interface of an ethtool block header ("Ring parameters for eth0:" → "eth0"), or null. */
export function ethtoolHeader(line: string, title: 'Channel' | 'Coalesce' | 'Pause' | 'Ring'): string | null {
  const match = new RegExp(`^${title} parameters for (\\S+?):?$`).exec(line);
  return match ? match[1]! : null;
}

/** Which block of `ethtool -l` / `-g` a section header line opens, or null for other lines. */
export function ethtoolSection(line: string): 'max' | 'current' | null {
  if (/^Pre-set maximums:?$/i.test(line)) return 'max';
  if (/^Current hardware settings:?$/i.test(line)) return 'current';
  return null;
}

/**
 * An ethtool count field: digits, or "n/a" / empty for a value the driver does not report
 * (null); anything else means this is not the output the parser expects.
 */
export function ethtoolCount(command: string, field: string, value: string): number | null {
  if (value !== '' && value.toLowerCase() !== 'n/a' && !/^\d+$/.test(value)) {
    throw new ParseError(`${command}: unexpected value "${value}" for ${field}`);
  }
  return parseOptionalNumber(value);
}

/** True when ethtool output is its --json form (an array or object) rather than text. */
export function isJsonOutput(text: string): boolean {
  const trimmed = text.trimStart();
  return trimmed.startsWith('[') || trimmed.startsWith('{');
}

/** JSON.parse with a ParseError that names the command ("ethtool --json -g: not valid JSON (...)"). */
export function parseJsonOutput(command: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ParseError(`${command}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * A short, quoted, printable excerpt of input for an error message: a crafted capture must not
 * put pages of text (or a file's secrets) or terminal control sequences into a report.
 */
export function excerpt(text: string, max = 60): string {
  const short = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(short).replace(/[\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Where `needle` last occurs in the `reach` characters before `at`, or -1: a bounded lastIndexOf,
 * so that finding the sentence around each of many matches stays linear in the text.
 */
export function lastIndexWithin(text: string, needle: string, at: number, reach: number): number {
  const from = Math.max(0, at - reach);
  const found = text.slice(from, at).lastIndexOf(needle);
  return found < 0 ? -1 : from + found;
}

/** Where `needle` first occurs in the `reach` characters from `at`, or -1: a bounded indexOf. */
export function indexWithin(text: string, needle: string, at: number, reach: number): number {
  const found = text.slice(at, at + reach).indexOf(needle);
  return found < 0 ? -1 : at + found;
}
