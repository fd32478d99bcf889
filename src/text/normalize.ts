/**
 * Undoes the damage tickets do to pasted outputs, line by line, keeping each line's number in
 * the original text so that the report can point at it. What is undone here is what can be
 * undone without knowing which command printed the line: CRLF, email quoting, terminal
 * timestamps and pager prompts. Wrapped lines need that knowledge (segment.ts rejoins them).
 */

export interface SourceLine {
  /** 1-based line number in the text as given. */
  number: number;
  text: string;
}

export interface Normalized {
  lines: SourceLine[];
  /** What was undone, for the report ("email quoting removed"). */
  repairs: string[];
}

/** "> " (any depth) as email clients quote a reply. */
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

export function normalize(text: string): Normalized {
  const repairs = new Set<string>();
  if (/\r/.test(text)) repairs.add('CRLF line ends');
  const raw = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  // Quoting and timestamps are removed only when they are how the text is written: on most of
  // its non-blank lines, or on a run of them (one quoted reply inside a longer message).
  const nonBlank = raw.filter((line) => line.trim());
  const quoted = nonBlank.filter((line) => QUOTING.test(line)).length;
  const lines: SourceLine[] = [];
  raw.forEach((line, index) => {
    let text = line.replace(/\u00a0/g, ' ');
    if (quoted > 0 && QUOTING.test(text)) {
      text = text.replace(QUOTING, '');
      repairs.add('email quoting (> )');
    }
    for (const pattern of TIMESTAMPS) {
      if (pattern.test(text) && timestampedRun(raw, index, pattern)) {
        text = text.replace(pattern, '');
        repairs.add('terminal timestamps');
        break;
      }
    }
    if (PAGER.test(text) && text.trim()) {
      repairs.add('pager prompts (--More--)');
      return;
    }
    lines.push({ number: index + 1, text: text.replace(/\s+$/, '') });
  });
  return { lines, repairs: [...repairs] };
}

/** True when the line and a neighbour both carry the same prefix: a log prefix, not content. */
function timestampedRun(raw: readonly string[], index: number, pattern: RegExp): boolean {
  const strip = (line: string | undefined) => line?.replace(QUOTING, '') ?? '';
  return pattern.test(strip(raw[index - 1])) || pattern.test(strip(raw[index + 1]));
}
