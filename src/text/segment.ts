import { FORMATS, formatForAnchor, formatForCommand, type Format, type SegmentKind } from './formats.js';
import { normalize, type SourceLine } from './normalize.js';

/**
 * Splits free text (a ticket, a forum post, a terminal log) into the command outputs nicdoctor
 * can read:
 *   1. by shell prompts (`$ `, `# `, `[root@host ~]# `, `user@host:~$ `, `PS C:\>`), by Markdown
 *      code fences and by `=== ethtool -S eth0 ===` headers: the command names the output;
 *   2. where no prompt says what ran, by the shape of each output's first line (formats.ts);
 *   3. lines that belong to no output are reported as ignored, never guessed at.
 * Several hosts in one text are told apart by the hostnames in their prompts.
 *
 * Linear in the length of the text: every pattern is anchored with no two unbounded quantifiers
 * over the same characters side by side, loops move an index (no `slice` per line) and hosts are
 * kept in a Set.
 */

export interface Segment {
  kind: SegmentKind;
  /** Hostname from the prompt the output followed (or the last one seen); null when none. */
  host: string | null;
  iface: string | null;
  /** The command as typed, when a prompt or header gave it. */
  command: string | null;
  /** The output went through `| grep`, `| head`...: only part of it is here. */
  filtered: boolean;
  /** A fragment quoted inside prose (the rest of its lines is prose). */
  inline?: boolean;
  /** Typed at a Windows prompt (`PS C:\\>`, `C:\\>`). */
  windows?: boolean;
  firstLine: number;
  lastLine: number;
  text: string;
}

export interface IgnoredText {
  /** The host whose prompt the text followed (null before any prompt with a hostname). */
  host: string | null;
  firstLine: number;
  lastLine: number;
  preview: string;
}

export interface Segmentation {
  segments: Segment[];
  ignored: IgnoredText[];
  /** Hostnames in the order they appear. */
  hosts: string[];
  /**
   * The text's own words, normalized (quoting, Unicode spaces undone): the ignored lines and the
   * sentences that quoted a fragment inline, in text order. Where prose states a link speed.
   */
  prose: string;
  repairs: string[];
}

interface Prompt {
  host: string | null;
  command: string;
  windows: boolean;
}

/**
 * Shell prompts, most specific first. `> ` is not among them: it is email quoting
 * (normalize.ts). The shapes that prose or outputs could also take (`# `, `% `, `h# `, SUSE's
 * `h:~ # `) count only before a command nicdoctor knows.
 */
const PROMPTS: Array<{ pattern: RegExp; host?: number; command: number; needsKnownCommand?: boolean }> = [
  // [root@h ~]#   [user@h dir]$
  { pattern: /^\s*\[[\w.-]+@([\w.-]+)(?:\s[^\]]*)?\]\s?[#$]\s?(.*)$/, host: 1, command: 2 },
  // user@h:~$   root@h:/#
  { pattern: /^\s*[\w.-]+@([\w.-]+):[^\s$#]*\s?[#$]\s?(.*)$/, host: 1, command: 2 },
  // zsh: user@h ~ %
  { pattern: /^\s*[\w.-]+@([\w.-]+) [^\s%#$]* ?[%#$] (.*)$/, host: 1, command: 2, needsKnownCommand: true },
  // SUSE: h:~ #
  { pattern: /^\s*([A-Za-z][\w.-]*):[~/][^\s$#]* ?[#$] ?(.*)$/, host: 1, command: 2, needsKnownCommand: true },
  { pattern: /^\s*PS [A-Za-z]:\\[^>]*>\s?(.*)$/, command: 1 },
  { pattern: /^\s*[A-Za-z]:\\[^>]*>\s?(.*)$/, command: 1 },
  { pattern: /^\s*\$\s+(\S.*)$/, command: 1 },
  // root's `# `, zsh/csh's `% `
  { pattern: /^\s*[#%]\s+(\S.*)$/, command: 1, needsKnownCommand: true },
  // h#   h$
  { pattern: /^\s*([A-Za-z][\w.-]*)[#$] ?(\S.*)$/, host: 1, command: 2, needsKnownCommand: true },
];
const KNOWN_COMMAND =
  /^(?:sudo\s+)?(?:ethtool|lspci|cat|grep|egrep|sysctl|ip|tc|numactl|lscpu|uname|iperf3?|hostname|ifconfig|dmesg|journalctl|ls|head|tail|less|more|taskset|cpupower|mlnx_tune|systemctl|modinfo|nstat|netstat|ss|pciconf|vmstat|freebsd-version|sockstat|cpuset|kenv)\b/;
/** What opens a header line (`=== ethtool -S eth0 ===`, `## ethtool -i eth0`, `**lspci -vv**`), on the trimmed line. */
const HEADER_LEAD = /^(?:={2,}|-{3,}|#{1,6}(?=\s)|\*\*|__)/;
/** Markdown list items before a command: `- `, `* `, `+ `, `1. `, `2) `. */
const LIST_MARK = /^(?:[-*+]|\d{1,3}[.)])\s+/;
const FENCE = /^\s*(?:```|~~~)/;
/** A shell's own default prompt (`bash-4.2# `, `sh-5.1$ `): it names the shell's version, not a host. */
const SHELL_DEFAULT_PROMPT = /^(?:ba|da|k|z)?sh-\d+(?:\.\d+)*$/;
/** Filters that leave only part of an output. */
const FILTERS = /^\s*(?:grep|egrep|fgrep|head|tail|awk|sed|cut|sort|uniq|tr)\b/;

function parsePrompt(line: string): Prompt | undefined {
  for (const prompt of PROMPTS) {
    const match = prompt.pattern.exec(line);
    if (!match) continue;
    const command = match[prompt.command]!.trim();
    if (prompt.needsKnownCommand && !KNOWN_COMMAND.test(command) && !formatForCommand(command)) continue;
    const host = prompt.host ? match[prompt.host]! : null;
    return { host: host && !SHELL_DEFAULT_PROMPT.test(host) ? host : null, command, windows: /^\s*(?:PS )?[A-Za-z]:\\/.test(line) };
  }
  return undefined;
}

function parseHeader(line: string): string | undefined {
  const trimmed = line.trim();
  const lead = HEADER_LEAD.exec(trimmed);
  if (!lead) return undefined;
  return commandIn(trimmed.slice(lead[0].length), true);
}

/** Removes what closes a header or introduces an output: `===`, `---`, `**`, `__`, a colon. */
function stripClosingMarks(text: string): string {
  let rest = text.trimEnd();
  for (;;) {
    const before = rest;
    if (rest.endsWith('**') || rest.endsWith('__')) rest = rest.slice(0, -2);
    else if (rest.endsWith(':')) rest = rest.slice(0, -1);
    else if (rest.endsWith('==') || rest.endsWith('---')) {
      const mark = rest.at(-1)!;
      let end = rest.length;
      while (end > 0 && rest[end - 1] === mark) end -= 1;
      rest = rest.slice(0, end);
    }
    rest = rest.trimEnd();
    if (rest === before) return rest;
  }
}

/**
 * The command a line names, when the line is only that: a bare command, a Markdown list item,
 * bold, inline code (`` `ethtool -S eth0`: ``), a header's inside, or prose that ends in a colon
 * after quoting one command as inline code ("Output of `ethtool -i eth0`:").
 */
function commandIn(line: string, header = false): string | undefined {
  if (line.length > 240) return undefined;
  const introduces = line.trimEnd().endsWith(':');
  let text = stripClosingMarks(line.trim().replace(LIST_MARK, ''));
  if (text.startsWith('**') || text.startsWith('__')) text = text.slice(2);
  if (text.includes('`')) {
    const spans = text.split('`').filter((_, index) => index % 2 === 1);
    if (spans.length !== 1 || !(text.startsWith('`') || introduces || header)) return undefined;
    text = spans[0]!;
  }
  text = text
    .trim()
    .replace(/^(?:output of|command:)\s*/i, '')
    .replace(/^[$#%]\s+/, '');
  if (!text || /[.!?]$/.test(text) || readsAsProse(text)) return undefined;
  if (formatForCommand(text)) return text;
  return header && /^\/proc\//.test(text) ? text : undefined;
}

/**
 * Prose that happens to start with a command's name ("ifconfig ice0 shows status: no carrier, and
 * ...", a sentence a mailer's wrap put at the start of a line): outside quotes, a command has no
 * "word: word" and no ", word".
 */
function readsAsProse(text: string): boolean {
  const unquoted = text.replace(/"[^"]{0,200}"|'[^']{0,200}'/g, '""');
  return /\w: [a-z]|, [a-z]/.test(unquoted);
}

/** The part of a pipeline that printed the output, and whether a filter cut it. */
function splitPipeline(command: string): { base: string; filtered: boolean } {
  const parts = command.split(/\s\|\s?|\|\s/);
  let base = parts[0]!.trim();
  for (const redirect of ['2>&1', '2>/dev/null']) if (base.endsWith(redirect)) base = base.slice(0, -redirect.length).trimEnd();
  return {
    base,
    filtered: parts.slice(1).some((part) => FILTERS.test(part)) || /^(?:grep|egrep)\b/.test(base),
  };
}

interface Block {
  windows?: boolean;
  lines: SourceLine[];
  host: string | null;
  command: string | null;
  commandLine: number | null;
}

/**
 * Prompts, fences and headers cut the text into blocks; a block's command names its output.
 * A fence that opens right after a command line (`` `ethtool -S eth0`: `` then ```` ```text ````)
 * holds that command's output; the fence that closes it ends the block.
 */
function blocks(lines: readonly SourceLine[]): { blocks: Block[]; hosts: string[] } {
  const result: Block[] = [];
  const hosts = new Set<string>();
  let host: string | null = null;
  let current: Block = { lines: [], host, command: null, commandLine: null };
  let inFence = false;
  const open = (command: string | null, commandLine: number | null) => {
    if (current.lines.length || current.command) result.push(current);
    current = { lines: [], host, command, commandLine };
  };
  for (const line of lines) {
    if (FENCE.test(line.text)) {
      const awaitingOutput = !inFence && current.command !== null && current.lines.every((taken) => !taken.text.trim());
      inFence = !inFence;
      if (!awaitingOutput) open(null, null);
      continue;
    }
    const prompt = parsePrompt(line.text);
    if (prompt) {
      if (prompt.host) {
        host = prompt.host;
        hosts.add(host);
      }
      open(prompt.command || null, line.number);
      if (prompt.windows) current.windows = true;
      continue;
    }
    const header = parseHeader(line.text);
    if (header) {
      open(header, line.number);
      continue;
    }
    // A command line on its own ("ethtool -S eth3", "- `ethtool -S eth3`:", "**ethtool eth3**"), then its output.
    const command = commandIn(line.text);
    if (command) {
      open(command, line.number);
      continue;
    }
    current.lines.push(line);
  }
  open(null, null);
  return { blocks: result, hosts: [...hosts] };
}

/**
 * A note the user added after a value, on the same line ("Speed: 10000Mb/s   <-- should be
 * 25G", "rx_dropped: 12  # after the test", "// wrong"): cut before the output is parsed.
 */
const ANNOTATION = /\s(?:<-+|<=+|\u2190|\/\/ |# |#$)/;

function stripAnnotation(text: string): string {
  const match = ANNOTATION.exec(text);
  return match ? text.slice(0, match.index).trimEnd() : text;
}

/** A mailer wraps at 72-80 columns: a piece cut there is 55-80 characters long (the cut is at a space). */
const WRAP_MIN = 55;
const WRAP_MAX = 80;

/**
 * Takes the lines of one output from `lines[start]` on: its anchor, then lines that fit its
 * body, blank lines inside it (and before it, where a quoted prompt is followed by an empty
 * `>` line), and lines an email client wrapped (rejoined, however many pieces). Notes after
 * values are cut. Returns the index after the last line taken.
 */
function consume(
  format: Format,
  lines: readonly SourceLine[],
  start: number,
  taken: SourceLine[],
  repairs: Set<string>,
  iface: string | null,
): number {
  let index = start;
  /** Length of the last physical line that went into taken's last line (a wrapped piece). */
  let pieceLength = 0;
  const fits = (text: string) => {
    const anchor = format.anchor.exec(text) ?? format.anchor.exec(text.trimStart());
    // "Settings for eth4:" after eth3's settings starts another output.
    if (anchor && anchor[1] !== undefined && iface !== null) return anchor[1] === iface;
    return Boolean(anchor) || format.body.test(text);
  };
  const annotated = format.kind !== 'iperf3-json';
  while (index < lines.length) {
    const raw = lines[index]!.text;
    const text = annotated ? stripAnnotation(raw) : raw;
    if (!text.trim()) {
      // One pass over the blank run: the line after it decides whether the output goes on.
      let next = index + 1;
      while (next < lines.length && !lines[next]!.text.trim()) next += 1;
      const following = next < lines.length ? lines[next]!.text : undefined;
      if (following === undefined || !fits(following) || (taken.length && isOtherAnchor(format, following))) break;
      index = next;
      continue;
    }
    if (isOtherAnchor(format, text)) break;
    // iperf3 -J ends with its top-level "}" in column 0: what follows is not JSON.
    if (format.kind === 'iperf3-json' && /^\}\s*$/.test(taken.at(-1)?.text ?? '')) break;
    // iperf3 runs pasted one after another: a finished run ends its output.
    if (
      format.kind === 'iperf3-text' &&
      /(?:receiver|iperf Done\.)$/.test(taken.at(-1)?.text ?? '') &&
      /^\s*(?:\[ ID ?\]|Connecting to host|-{20,})/.test(text)
    )
      break;
    const previous = taken.at(-1);
    const cut = previous !== undefined && !format.noUnwrap && pieceLength >= WRAP_MIN && pieceLength <= WRAP_MAX;
    if (!fits(text) || (cut && format.incomplete?.(previous.text))) {
      const joined = previous ? `${previous.text} ${text.trim()}` : '';
      if (previous && cut && fits(joined)) {
        taken[taken.length - 1] = { number: previous.number, text: joined };
        repairs.add('wrapped lines rejoined');
        pieceLength = raw.length;
        index += 1;
        continue;
      }
      break;
    }
    if (text !== raw) repairs.add('notes after values removed (<--, #, //)');
    taken.push(text === raw ? lines[index]! : { number: lines[index]!.number, text });
    pieceLength = raw.length;
    index += 1;
  }
  return index;
}

/**
 * An output's first line that a mailer cut at 72-80 columns (a grep'd /proc/interrupts row whose
 * counts run on the next line): the line and the next one joined are the anchor. The rest of the
 * output is rejoined by consume().
 */
function cutAnchor(
  lines: readonly SourceLine[],
  index: number,
): { anchored: NonNullable<ReturnType<typeof formatForAnchor>>; line: SourceLine; next: number } | undefined {
  let joined = lines[index]!.text.trimEnd();
  // A wide row (32 CPU columns: 350+ characters) is cut into several pieces; a few are enough.
  for (let next = index + 1; next < Math.min(lines.length, index + CUT_ANCHOR_PIECES); next++) {
    const piece = lines[next - 1]!.text.trimEnd().length;
    if (piece < WRAP_MIN || piece > WRAP_MAX) return undefined;
    joined = `${joined} ${lines[next]!.text.trim()}`;
    const anchored = formatForAnchor(joined);
    if (anchored)
      return anchored.format.noUnwrap ? undefined : { anchored, line: { number: lines[index]!.number, text: joined }, next: next + 1 };
  }
  return undefined;
}
const CUT_ANCHOR_PIECES = 8;

/** First lines that always start a new output, even where they would fit the current one's body. */
const STRONG_ANCHOR =
  /^\s*(?:Settings for \S+:|NIC statistics:|Ring parameters for|Channel parameters for|Features for|Coalesce parameters for|Pause parameters for|driver:\s|RX flow hash indirection|Connecting to host|Client connecting to|available: \d+ nodes|Architecture:|\s*CPU0\s)/;

/** The first line of a different output (same-kind anchors are judged by `fits`). */
function isOtherAnchor(format: Format, text: string): boolean {
  const other = formatForAnchor(text);
  if (!other || other.format.kind === format.kind) return false;
  return !format.body.test(text) || STRONG_ANCHOR.test(text);
}

/** Inline fragments quoted inside prose: "LnkSta: Speed 5GT/s, Width x1 (degraded)". */
const INLINE_LSPCI = /(LnkSta|LnkCap):\s*Speed\s+[\d.]+GT\/s(?:\s*\(\w+\))?,\s*Width\s+x\d+(?:\s*\(\w+\))?/g;
const INLINE_IPERF3_ROW =
  /\[\s*(?:\d+|SUM)\](?:\[[A-Z-]+\])?\s+\d+\.\d\d\s*-\s*\d+\.\d\d\s+sec\s+[\d.]+\s+[KMGT]?Bytes\s+[\d.]+\s+[KMGT]?bits\/sec/;

export function segment(text: string): Segmentation {
  const normalized = normalize(text);
  const repairs = new Set(normalized.repairs);
  if (/\t/.test(text) === false && /^ {4,}\S/m.test(text) && /Settings for|NIC statistics|Ring parameters/.test(text))
    repairs.add('tabs turned into spaces (read as whitespace)');
  const { blocks: found, hosts } = blocks(normalized.lines);
  const segments: Segment[] = [];
  const ignored: Array<SourceLine & { host: string | null }> = [];
  const prose: SourceLine[] = [];

  for (const block of found) {
    let index = 0;
    const lines = block.lines;
    const add = (format: Format, iface: string | null, command: string | null, filtered: boolean, taken: SourceLine[]) => {
      if (!taken.length && !command) return;
      const first = taken[0]?.number ?? block.commandLine ?? 0;
      segments.push({
        ...(block.windows ? { windows: true } : {}),
        kind: format.kind,
        host: block.host,
        iface,
        command,
        filtered,
        firstLine: block.commandLine && command ? Math.min(block.commandLine, first) : first,
        lastLine: taken.at(-1)?.number ?? first,
        text: (format.kind === 'proc-interrupts' ? withCpuHeader(taken, repairs) : '') + taken.map((line) => line.text).join('\n') + '\n',
      });
    };
    if (block.command) {
      const { base, filtered } = splitPipeline(block.command);
      const known =
        formatForCommand(base) ??
        (/\/proc\/interrupts\b/.test(base) ? { format: FORMATS.find((f) => f.kind === 'proc-interrupts')!, iface: null } : undefined);
      if (known) {
        const taken: SourceLine[] = [];
        // Everything up to the next prompt is the command's output, as long as it fits its shape.
        index = consume(known.format, lines, 0, taken, repairs, known.iface);
        if (known.format.kind === 'iperf3-text' && /(?:^|\s)(?:-v|--version)(?:\s|$)/.test(base)) {
          // `iperf3 -v` prints its banner only: what follows without a prompt is another output.
          const banner = taken.findIndex((line) => !/^(?:iperf 3|Linux |Optional features)/.test(line.text));
          if (banner >= 0) {
            index = lines.indexOf(taken[banner]!);
            taken.length = banner;
          }
        }
        const headerIface = taken.length ? (formatForAnchor(taken[0]!.text)?.iface ?? null) : null;
        if (taken.length || !filtered) add(known.format, known.iface ?? headerIface, block.command, filtered, taken);
      }
    }
    while (index < lines.length) {
      const line = lines[index]!;
      if (!line.text.trim()) {
        index += 1;
        continue;
      }
      const whole = formatForAnchor(line.text);
      // A first line the mailer cut: its pieces joined are the anchor, and the body follows them.
      const cut = whole ? undefined : cutAnchor(lines, index);
      const anchored = whole ?? cut?.anchored;
      if (anchored) {
        const taken: SourceLine[] = cut ? [cut.line] : [];
        if (cut) repairs.add('wrapped lines rejoined');
        const next = consume(anchored.format, lines, cut ? cut.next : index, taken, repairs, anchored.iface);
        if (next > index) {
          add(anchored.format, anchored.iface, null, false, taken);
          index = next;
          continue;
        }
      }
      // A run flattened into prose (whitespace collapsed as published) or a fragment quoted inline.
      if (line.text.includes(' sec ') && INLINE_IPERF3_ROW.test(line.text)) {
        const taken: SourceLine[] = [line];
        let next = index + 1;
        while (next < lines.length && (INLINE_IPERF3_ROW.test(lines[next]!.text) || /sender|receiver/.test(lines[next]!.text)))
          taken.push(lines[next++]!);
        add(
          FORMATS.find((f) => f.kind === 'iperf3-text')!,
          null,
          null,
          false,
          taken,
        );
        index = next;
        continue;
      }
      const inline = line.text.includes('Lnk') ? [...line.text.matchAll(INLINE_LSPCI)] : [];
      if (inline.length) {
        add(
          FORMATS.find((f) => f.kind === 'lspci')!,
          null,
          null,
          true,
          [{ number: line.number, text: inline.map((match) => match[0]).join('\n') }],
        );
        segments.at(-1)!.inline = true;
        prose.push(line);
        index += 1;
        continue;
      }
      ignored.push({ ...line, host: block.host });
      prose.push(line);
      index += 1;
    }
  }
  return {
    segments: mergeIperf3(segments, normalized.lines),
    ignored: groupIgnored(ignored),
    hosts,
    prose: prose
      .sort((a, b) => a.number - b.number)
      .map((line) => line.text)
      .join('\n'),
    repairs: [...repairs],
  };
}

/** A kernel log line ("[ 2792.074526] adi-dwmac ...: NETDEV WATCHDOG") printed into a running test's output. */
const KERNEL_LOG_LINE = /^\s*\[\s*\d{1,10}\.\d{3,9}\]\s/;
/** The most lines of kernel messages (with their wrapped pieces) a run may be interrupted by. */
const MAX_INTERRUPTION = 12;

/**
 * Whether the lines between two pieces of a run are only kernel messages that the console printed
 * into it (a transmit timeout in the middle of the test), blank lines and the pieces a mailer
 * wrapped those messages into.
 */
function onlyKernelLinesBetween(lines: ReadonlyMap<number, string>, last: number, first: number): boolean {
  if (first - last - 1 > MAX_INTERRUPTION) return false;
  let previous = '';
  for (let number = last + 1; number < first; number++) {
    const text = lines.get(number) ?? '';
    const continuation = previous.length >= WRAP_MIN && previous.length <= WRAP_MAX && !KERNEL_LOG_LINE.test(text);
    if (text.trim() !== '' && !KERNEL_LOG_LINE.test(text) && !continuation) return false;
    previous = text.trimEnd();
  }
  return true;
}

/**
 * iperf3 prints its "Connecting to host" and a dashed rule before the rows; when those came from
 * content shape they may have become their own small segment. Adjacent iperf3 pieces of one
 * host with no other output between them are one run.
 */
function mergeIperf3(segments: Segment[], lines: readonly SourceLine[]): Segment[] {
  const byNumber = new Map(lines.map((line) => [line.number, line.text]));
  const merged: Segment[] = [];
  for (const current of segments) {
    const previous = merged.at(-1);
    if (
      previous &&
      previous.kind === 'iperf3-text' &&
      current.kind === 'iperf3-text' &&
      current.command === null &&
      !/(?:^|\s)(?:-v|--version)(?:\s|$)/.test(previous.command ?? '') &&
      previous.host === current.host &&
      !/\b(?:sender|receiver)\s*$/.test(previous.text.trimEnd()) &&
      (current.firstLine - previous.lastLine <= 3 || onlyKernelLinesBetween(byNumber, previous.lastLine, current.firstLine))
    ) {
      previous.text += current.text;
      previous.lastLine = current.lastLine;
      continue;
    }
    merged.push({ ...current });
  }
  return merged;
}

/**
 * /proc/interrupts rows grep'd without their `CPU0 CPU1 ...` header: the header the rows' count
 * columns need, numbered from CPU0 (what the kernel prints when every CPU is online).
 */
function withCpuHeader(rows: readonly SourceLine[], repairs: Set<string>): string {
  if (!rows.length || /^\s*CPU0/.test(rows[0]!.text)) return '';
  let columns = 0;
  for (const row of rows) {
    const fields = row.text.trim().split(/\s+/);
    let count = 0;
    while (count + 1 < fields.length && /^\d+$/.test(fields[count + 1]!)) count += 1;
    columns = Math.max(columns, count);
  }
  if (!columns) return '';
  repairs.add('/proc/interrupts rows without their CPU header: count columns read as CPU0 onwards');
  return `${Array.from({ length: columns }, (_, cpu) => `CPU${cpu}`.padStart(11)).join('')}\n`;
}

function groupIgnored(lines: ReadonlyArray<SourceLine & { host: string | null }>): IgnoredText[] {
  const groups: IgnoredText[] = [];
  for (const line of lines) {
    const last = groups.at(-1);
    if (last && last.host === line.host && line.number - last.lastLine <= 2) {
      last.lastLine = line.number;
      continue;
    }
    groups.push({ host: line.host, firstLine: line.number, lastLine: line.number, preview: line.text.trim().slice(0, 60) });
  }
  return groups;
}
