/**
 * Escaping of untrusted text (interface names, recorded errors, anything from a snapshot or a
 * sosreport) for each medium a report is shown in:
 * - terminal: control characters made visible, so that ESC sequences cannot clear the screen,
 *   move the cursor or rewrite lines, and bidi overrides cannot reorder what is read;
 * - HTML: the five special characters;
 * - Markdown: code spans and fences that the text cannot close.
 */

/**
 * C0 controls except newline and tab, DEL, C1 controls (0x9b is a one-byte CSI on some
 * terminals), and the Unicode bidi/line controls that reorder or break displayed text.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** "\u001b[2J" → "\x1b[2J": the text is still readable, nothing is interpreted. */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

/** A Markdown code span that the text cannot end early (CommonMark: a longer backtick string). */
export function codeSpan(text: string): string {
  const flat = visibleControls(text).replace(/\r?\n/g, ' ');
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  // A space on each side when the text starts or ends with a backtick (CommonMark strips one).
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** The fence for a Markdown code block holding these lines: longer than any backtick run in them. */
export function codeFence(lines: readonly string[]): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(lines.join('\n')) + 1));
}

/** Every string in a value (a whole report), passed through escape: for media that show all of it. */
export function escapeStrings<T>(value: T, escape: (text: string) => string): T {
  if (typeof value === 'string') return escape(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => escapeStrings(item, escape)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = escapeStrings(item, escape);
    return out as T;
  }
  return value;
}
