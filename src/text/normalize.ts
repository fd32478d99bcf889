/**
 * Undoes the damage tickets do to pasted outputs, line by line, keeping each line's number in
 * the original text so that the report can point at it. What is undone here is what can be
 * undone without knowing which command printed the line: CRLF, email quoting, Unicode spaces,
 * terminal timestamps and pager prompts. Wrapped lines need that knowledge (segment.ts rejoins
 * them).
 *
 * Every step is linear in the length of the text: the patterns are anchored and never put two
 * unbounded quantifiers over the same characters side by side, and a line is cut at
 * MAX_LINE_CHARS (no output nicdoctor reads has lines anywhere near that long).
 */

export interface SourceLine {
  /** 1-based line number in the text as given. */
  number: number;
  text: string;
  /** The terminal or log timestamp taken off the line's start, when one was: a kernel log's times are evidence. */
  stamp?: string;
}

export interface Normalized {
  lines: SourceLine[];
  /** What was undone, for the report ("email quoting removed"). */
  repairs: string[];
}

/** 64 KiB: the longest line kept; the rest of a longer line is dropped and said so in `repairs`. */
export const MAX_LINE_CHARS = 64 * 1024;

/** "> " (any depth, ">>" too) as email clients quote a reply; a quoted empty line is ">" alone. */
const QUOTING = /^[ \t]?(?:>[ \t]?)+/;
/**
 * Prefixes terminals and loggers put before each line: ISO and syslog timestamps, bracketed
 * clock times. dmesg's "[  12.345678]" is left alone: it is part of that output.
 */
const TIMESTAMPS = [
  /^\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?(?:\s+|$)/,
  /^\[\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\](?:\s+|$)/,
  /^\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\s+(?:[|-]\s+)?/,
  /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}\s+/,
];
const PAGER = /^\s*(?:--More--.*|\(END\)|lines \d+-\d+(?:\/\d+)?(?: \(END\))?|:\s*)$/;
/** Spaces a mailer or a word processor puts where the terminal had an ASCII space. */
const UNICODE_SPACES = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
/** Characters of no width (zero-width space and joiners, word joiner, a BOM inside the text). */
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

export function normalize(text: string): Normalized {
  const repairs = new Set<string>();
  if (text.includes('\r')) repairs.add('CRLF line ends');
  const raw = text.replace(/\r\n?/g, '\n').split('\n');
  let cut = 0;
  for (let index = 0; index < raw.length; index += 1) {
    if (raw[index]!.length > MAX_LINE_CHARS) {
      raw[index] = raw[index]!.slice(0, MAX_LINE_CHARS);
      cut += 1;
    }
  }
  if (cut) repairs.add(`${cut} line(s) longer than ${MAX_LINE_CHARS / 1024} KiB cut there (the rest of each is ignored)`);
  // Spaces first: whether the text is quoted, or timestamped, is told from what the terminal printed
  // (a zero-width space before a reply's "> " hides the quoting otherwise).
  for (let index = 0; index < raw.length; index += 1) {
    const line = raw[index]!;
    const spaced = line.replace(UNICODE_SPACES, ' ');
    const unzeroed = spaced.replace(ZERO_WIDTH, '');
    if (spaced !== line) repairs.add('Unicode spaces (NBSP and others) read as spaces');
    if (unzeroed !== spaced) repairs.add('zero-width characters removed');
    raw[index] = unzeroed;
  }
  const quoted = raw.some((line) => QUOTING.test(line));
  const lines: SourceLine[] = [];
  for (let index = 0; index < raw.length; index += 1) {
    let line = raw[index]!;
    let stamp: string | undefined;
    if (quoted && QUOTING.test(line)) {
      line = line.replace(QUOTING, '');
      repairs.add('email quoting (> )');
    }
    for (const pattern of TIMESTAMPS) {
      if (pattern.test(line) && timestampedRun(raw, index, pattern)) {
        stamp = pattern.exec(line)![0];
        line = line.slice(stamp.length);
        repairs.add('terminal timestamps');
        break;
      }
    }
    if (PAGER.test(line)) {
      repairs.add('pager prompts (--More--)');
      continue;
    }
    lines.push({ number: index + 1, text: line.trimEnd(), ...(stamp ? { stamp } : {}) });
  }
  return { lines, repairs: [...repairs] };
}

/** True when the line and a neighbour both carry the same prefix: a log prefix, not content. */
function timestampedRun(raw: readonly string[], index: number, pattern: RegExp): boolean {
  const strip = (line: string | undefined) => line?.replace(QUOTING, '') ?? '';
  return pattern.test(strip(raw[index - 1])) || pattern.test(strip(raw[index + 1]));
}
