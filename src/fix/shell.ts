/**
 * Shell text for the fix script: quoting, and comments that cannot be escaped from. Nothing
 * here splits shell text back into words: what nicdoctor runs comes from typed operations.
 */
import { needsQuoting, shellQuote } from '../util/shell-quote.js';

export { needsQuoting, shellJoin, shellQuote } from '../util/shell-quote.js';

/**
 * Quotes every occurrence of the given words (interface names the kernel allows but a shell
 * would expand: `e$(touch${IFS}x)`) in a command rendered from a template. Longest first, in one
 * pass, so a quoted name is never quoted again.
 */
export function quoteWords(text: string, words: readonly string[]): string {
  const hostile = [...new Set(words.filter(needsQuoting))].sort((a, b) => b.length - a.length);
  if (hostile.length === 0) return text;
  const pattern = new RegExp(hostile.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return text.replace(pattern, (word) => shellQuote(word));
}

/** Control characters other than tab: a newline or CR in a value could end a comment line. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u0085\u2028\u2029]/g;

/** One or more `# ...` lines: every line of text is commented, control characters dropped. */
export function comment(text: string, prefix = '# '): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => `${prefix}${line.replace(CONTROL, ' ').replace(/\t/g, ' ')}`.trimEnd());
}

/** True when a command string is one line of printable text (it can be printed as a line). */
export function isSingleLine(text: string): boolean {
  return !/[\n\r]/.test(text) && !new RegExp(CONTROL.source).test(text);
}

/**
 * Placeholders left unfilled by a template: `{rxMax}` (the rule engine's syntax) or `<peer>`
 * / `<if>` (hand-written). `${var}` is shell, not a placeholder.
 */
export function unfilledPlaceholders(command: string): string[] {
  const braces = [...command.matchAll(/(^|[^$])\{([A-Za-z][A-Za-z0-9_.\-/]*)\}/g)].map((match) => `{${match[2]}}`);
  const angles = [...command.matchAll(/<([A-Za-z][A-Za-z0-9 _-]*)>/g)].map((match) => `<${match[1]}>`);
  return [...new Set([...braces, ...angles])];
}
