/**
 * Shell text for the fix script: quoting, and comments that cannot be escaped from. Nothing
 * here splits shell text back into words: what nicdoctor runs comes from typed operations.
 */

/** Characters that never need quoting in a POSIX shell word. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one argument for bash: bare when safe, else single quotes ('\'' for a quote). */
export function shellQuote(word: string): string {
  if (word !== '' && SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** True when a word (an interface name from evidence) would change meaning unquoted in a shell. */
export function needsQuoting(word: string): boolean {
  return word === '' || !SAFE_WORD.test(word);
}

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

export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
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
