/**
 * Escaping of untrusted text (host names, interface names, file names, recorded errors, anything
 * from a snapshot or a sosreport) for each medium a report is shown in, used by every command
 * (scan/analyze reports, fleet, diff):
 * - terminal (and every medium but JSON first): control characters made visible, so that ESC
 *   sequences cannot clear the screen, move the cursor or rewrite lines, BEL cannot ring, and
 *   bidi overrides cannot reorder what is read;
 * - HTML: the five special characters, after the controls;
 * - XML (JUnit): text and attribute values, with what XML 1.0 cannot hold removed;
 * - Markdown: code spans and fences that the text cannot close, table cells whose pipes are
 *   escaped, and no raw HTML anywhere outside code (inertMarkdown), so that a host name such as
 *   `<img src=x onerror=...>` stays text in any renderer.
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

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML (and SVG) text or attribute value: no markup, and no raw control bytes. */
export function escapeHtml(text: string): string {
  return visibleControls(text).replace(/[&<>"']/g, (char) => HTML_ENTITIES[char]!);
}

/** What XML 1.0 cannot hold at all: the controls visibleControls leaves (none), U+FFFE/U+FFFF, lone surrogates. */
const INVALID_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** XML text content: controls made visible, <, & and > (for "]]>") escaped, what XML cannot hold dropped. */
export function xmlText(text: string): string {
  return visibleControls(text).replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** XML attribute value in double quotes; newlines and tabs kept as references (parsers normalise raw ones to spaces). */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/** Text inside a Markdown table cell: pipes and newlines would break the table. */
export function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

const ASCII_PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const MARKDOWN_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * A rendered Markdown document with no raw HTML left: outside code, <, > and & become entities
 * (shown as themselves), and control characters are made visible. Code is left as it is, since
 * renderers show it literally, but only code that every CommonMark renderer agrees is code:
 * - fenced blocks whose fence starts at the first column (an indented one may belong to a list
 *   item that ends early, and is escaped like text instead);
 * - code spans closed on the same line by a backtick run of the same length, not opened by an
 *   escaped backtick (`\``).
 * Being unsure makes this escape more, never less: the cost is an entity shown literally.
 */
/**
 * A fence's marker (a run of three or more backticks or tildes at the line's start) and what
 * follows it; scanned by hand, since a pattern with the run and a free tail backtracks.
 */
function fenceMarker(line: string): { marker: string; info: string } | null {
  const char = line[0];
  if (char !== '`' && char !== '~') return null;
  let end = 0;
  while (line[end] === char) end++;
  return end >= 3 ? { marker: line.slice(0, end), info: line.slice(end) } : null;
}

export function inertMarkdown(markdown: string): string {
  let fence: string | null = null;
  return visibleControls(markdown)
    .split('\n')
    .map((line) => {
      if (fence !== null) {
        const close = fenceMarker(line);
        if (close && /^[ \t]*$/.test(close.info) && close.marker[0] === fence[0] && close.marker.length >= fence.length) fence = null;
        return line;
      }
      const open = fenceMarker(line);
      // A backtick fence's info string has no backtick (CommonMark), else the line is text.
      if (open && !(open.marker.startsWith('`') && open.info.includes('`'))) {
        fence = open.marker;
        return line;
      }
      return inertLine(line);
    })
    .join('\n');
}

/**
 * One line of Markdown text: HTML escaped outside the code spans it holds. One pass, plus one
 * search to the end of the line per backtick run length that is never closed (at most √n of them).
 */
function inertLine(line: string): string {
  let out = '';
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '\\' && index + 1 < line.length && ASCII_PUNCTUATION.has(line[index + 1]!)) {
      const next = line[index + 1]!;
      // "\<" shows "<": so does "&lt;"; any other escape stays as written.
      out += MARKDOWN_ENTITIES[next] ?? `\\${next}`;
      index += 2;
      continue;
    }
    if (char === '`') {
      let end = index;
      while (line[end] === '`') end += 1;
      const run = line.slice(index, end);
      const close = closingRun(line, end, run.length);
      if (close !== -1) {
        out += line.slice(index, close + run.length);
        index = close + run.length;
      } else {
        out += run;
        index = end;
      }
      continue;
    }
    out += MARKDOWN_ENTITIES[char] ?? char;
    index += 1;
  }
  return out;
}

/** Where the next backtick run of exactly `length` starts at or after `from`, or -1. */
function closingRun(line: string, from: number, length: number): number {
  for (let at = line.indexOf('`', from); at !== -1;) {
    let end = at;
    while (line[end] === '`') end += 1;
    if (end - at === length) return at;
    at = line.indexOf('`', end);
  }
  return -1;
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
