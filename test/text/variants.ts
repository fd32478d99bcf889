import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * What mailers, forums and people do to a pasted text, as functions from a text to its damaged
 * copy (issue 17, item 2). Each variant either applies to a text or says by a stated rule why it
 * cannot (`skip`): the rules are about the text's shape, never about which fixture it is.
 */
export interface Variant {
  name: string;
  /** The damaged copy, or the reason this variant cannot apply to this text. */
  make: (text: string) => { text: string } | { skip: string };
}

const lines = (text: string) => text.replace(/\r\n?/g, '\n').split('\n');
/** An output flattened into a prose line: a prompt, an iperf3 interval row or `LnkSta:` after other words. */
const FLATTENED = /[^\s:] {1,3}(?:\[[\w.-]+@[\w.-]+ [^\]]*\][#$] |\[ *\d+\] +\d+\.\d\d-|.{0,40}LnkSta: )/;
/** A JSON document (iperf3 -J): a line that is `{` alone. */
const HOLDS_JSON = /^\s*\{\s*$/m;

/** Email quoting at one depth: `> line`, and `>` alone on an empty line (what mail clients write). */
function quote(prefix: string): Variant['make'] {
  return (text) => ({
    text: lines(text)
      .map((line) => (line ? `${prefix} ${line}` : prefix))
      .join('\n'),
  });
}

/** Hard wrap at `width` columns at the last space, as mailers do; a word longer than the width is not broken. */
export function wrap(text: string, width: number): string {
  const out: string[] = [];
  for (const line of lines(text)) {
    let rest = line;
    while (rest.length > width) {
      const cut = rest.lastIndexOf(' ', width);
      if (cut <= 0) break;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut + 1);
    }
    out.push(rest);
  }
  return out.join('\n');
}

/** Every `every`-th space of each line replaced by `chars` in turn. */
function respace(text: string, every: number, chars: readonly string[]): string {
  let count = 0;
  return text.replace(/ /g, () => {
    count += 1;
    return count % every === 0 ? chars[Math.floor(count / every) % chars.length]! : ' ';
  });
}

/** A shell prompt line with the command it typed: `$ cmd`, `# cmd`, `[root@h ~]# cmd`, `user@h:~$ cmd`, `PS C:\> cmd`. */
const PROMPT = /^\s*(?:\$ |# (?=[a-z/])|\[[^\]\s]+@[^\]]+\][#$] ?|[\w.-]+@[\w.-]+:\S*[#$] ?|PS [A-Z]:\\[^>]*> ?|[A-Z]:\\[^>]*> ?)(\S.*)$/;
const HOSTNAME_PROMPT = /^\s*(?:\[[^\]\s]+@|[\w.-]+@[\w.-]+:)/;

/**
 * Each prompt's output fenced (the prompt line opens the fence, inside it, as in ```console);
 * a text with no prompt is fenced whole, as a forum post of one output is.
 */
function fenced(open: string, close: string): Variant['make'] {
  return (text) => {
    const source = lines(text);
    if (!source.some((line) => PROMPT.test(line))) return { text: `${open}\n${text.trimEnd()}\n${close}\n` };
    const out: string[] = [];
    let inside = false;
    for (const line of source) {
      if (PROMPT.test(line)) {
        if (inside) out.push(close);
        out.push(open, line);
        inside = true;
        continue;
      }
      out.push(line);
    }
    if (inside) out.push(close);
    return { text: out.join('\n') };
  };
}

/**
 * Markdown as people write a ticket: each command as inline code with a trailing colon, as a
 * list item, in bold or as a heading (in turn), its output in a fence with an info string.
 * Only for texts whose prompts name no host: Markdown has no place for one.
 */
const inlineCode: Variant['make'] = (text) => {
  const source = lines(text);
  const prompts = source.filter((line) => PROMPT.test(line));
  if (!prompts.length) return { skip: 'no prompt: no command to write as inline code' };
  if (prompts.some((line) => HOSTNAME_PROMPT.test(line))) return { skip: 'prompts name hosts: Markdown command lines would lose them' };
  const styles = [
    (command: string) => `\`${command}\`:`,
    (command: string) => `- \`${command}\`:`,
    (command: string) => `**${command}**`,
    (command: string) => `### ${command}`,
  ];
  const out: string[] = [];
  let inside = false;
  let nth = 0;
  for (const line of source) {
    const prompt = PROMPT.exec(line);
    if (prompt) {
      if (inside) out.push('```');
      out.push(styles[nth++ % styles.length]!(prompt[1]!.trim()), '```text');
      inside = true;
      continue;
    }
    out.push(line);
  }
  if (inside) out.push('```');
  return { text: out.join('\n') };
};

export const VARIANTS: readonly Variant[] = [
  { name: '> quoted', make: quote('>') },
  { name: '>> quoted', make: quote('>>') },
  { name: '> > quoted', make: quote('> >') },
  ...[72, 80].map((width) => ({
    name: `wrapped at ${width}`,
    make: (text: string) => {
      if (HOLDS_JSON.test(text)) return { skip: 'holds a JSON document: a mailer wrapping it makes another document' };
      if (lines(text).some((line) => FLATTENED.test(line)))
        return {
          skip: 'outputs flattened into prose (a prompt, an iperf3 row or LnkSta: after other words on one line): a break inside them starts a prompt or cuts a fragment, which says something else',
        };
      return { text: wrap(text, width) };
    },
  })),
  {
    name: 'tabs stripped',
    // Leading tabs dropped, a tab between words left as one space (what an HTML mail view keeps).
    make: (text) => ({
      text: lines(text)
        .map((line) => line.replace(/^\t+/, '').replace(/\t+/g, ' '))
        .join('\n'),
    }),
  },
  { name: 'CRLF', make: (text) => ({ text: lines(text).join('\r\n') }) },
  { name: 'NBSP', make: (text) => ({ text: respace(text, 2, ['\u00a0']) }) },
  {
    name: 'Unicode spaces, zero-width',
    make: (text) => ({
      text: lines(respace(text, 3, ['\u2007', '\u202f', '\u3000']))
        .map((line) => (line ? `\u200b${line}` : line))
        .join('\n'),
    }),
  },
  { name: 'fenced ```', make: fenced('```', '```') },
  { name: 'fenced ```console', make: fenced('```console', '```') },
  { name: 'fenced ~~~text', make: fenced('~~~text', '~~~') },
  { name: 'Markdown inline-code commands', make: inlineCode },
];

/** sos's file name for a command → the command line (`ethtool_-S_eth0` → `ethtool -S eth0`). */
const PASTED_COMMANDS = /^(?:ethtool|lspci|lscpu|sysctl|ip|tc|numactl|uname)(?:_|$)/;
/** Files at their real path that people paste with `cat`. */
const PASTED_FILES = ['proc/interrupts', 'proc/net/softnet_stat'];

export interface PastedCase {
  text: string;
  /** Every file of the sosreport went into the text: its diagnosis must be the sosreport's. */
  complete: boolean;
  /** Files the text path has no pasted form for (sysfs trees, dmesg, /proc/cpuinfo...). */
  leftOut: string[];
}

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    // A link (sysfs's device and driver links) is listed, not followed: it has no pasted form.
    return lstatSync(full).isDirectory() ? filesUnder(full, base) : [path.relative(base, full)];
  });
}

/**
 * An extracted sosreport as a customer would paste it: each command output after its command
 * at a `$ ` prompt, `cat` for /proc files, in sos's order.
 */
export function sosreportAsText(inputDir: string): PastedCase {
  const parts: string[] = [];
  const leftOut: string[] = [];
  for (const file of filesUnder(inputDir).sort()) {
    const name = path.basename(file);
    if (name === '.gitkeep') continue;
    const full = path.join(inputDir, file);
    const pasted =
      lstatSync(full).isFile() && ((file.startsWith('sos_commands/') && PASTED_COMMANDS.test(name)) || PASTED_FILES.includes(file));
    if (!pasted) {
      leftOut.push(file);
      continue;
    }
    const command = file.startsWith('sos_commands/') ? name.split('_').join(' ') : `cat /${file}`;
    parts.push(`$ ${command}\n${readFileSync(full, 'utf8').trimEnd()}\n`);
  }
  return { text: parts.join('\n'), complete: leftOut.length === 0, leftOut };
}
