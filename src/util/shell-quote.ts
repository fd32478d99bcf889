/**
 * Quoting of words for a POSIX shell (bash): what the fix script and the reports print, so
 * that a value from evidence (an interface name may hold `$(...)`) stays one literal word.
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

export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
