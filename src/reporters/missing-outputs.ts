import type { Report } from '../report/schema.js';

/**
 * What was not examined, grouped by the command that would supply it: one entry per command with
 * every check it would decide, so no command is asked for twice. The commands come from the text
 * input's ask-for list or from the checks' hints (their `backquoted` commands); a compound command
 * ("ls ...; cat /proc/interrupts") counts as its parts, so a part asked for elsewhere merges there.
 * What names no command (a broken check, a reason) keeps its own line.
 */
export interface MissingOutput {
  /** A shell command, or a sentence when the check named none. */
  what: string;
  command: boolean;
  checks: string[];
}

/** The bench's own check: its absence is one line of its own. */
const BENCH_CHECK = 'throughput';
/** A hint with more spans than this is prose quoting itself, not a list of commands. */
const MAX_COMMANDS_PER_HINT = 6;

/**
 * Splits a command line on top-level `;` (not inside quotes or parentheses: "(and the same with
 * -R; ...)" is a remark on one command), trimmed, empty parts dropped.
 */
export function commandParts(command: string): string[] {
  const parts: string[] = [];
  let quote: string | null = null;
  let depth = 0;
  let current = '';
  for (const char of command) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '(' || char === ')') {
      depth = Math.max(0, depth + (char === '(' ? 1 : -1));
    } else if (char === ';' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** The `backquoted` commands of a hint ("not captured: run `ethtool -a eth0` on the host ..."). */
export function hintCommands(hint: string): string[] {
  const spans = [...hint.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
  // "record it with nicdoctor collect" and the like name nicdoctor itself, not an output.
  const commands = spans.filter((span) => !/^(?:sudo\s+)?nicdoctor\b/.test(span));
  return commands.length <= MAX_COMMANDS_PER_HINT ? commands : [];
}

export function missingOutputs(report: Report): MissingOutput[] {
  const entries = new Map<string, MissingOutput>();
  const add = (what: string, command: boolean, checks: readonly string[]) => {
    const entry = entries.get(what) ?? { what, command, checks: [] };
    for (const check of checks) if (!entry.checks.includes(check)) entry.checks.push(check);
    entries.set(what, entry);
  };
  // The text input's own list first: it also names outputs for checks that found nothing to judge.
  const asked = new Set<string>();
  for (const entry of report.askFor ?? []) {
    for (const part of commandParts(entry.command)) add(part, true, entry.checks);
    for (const check of entry.checks) asked.add(check);
  }
  const own: MissingOutput[] = [];
  for (const check of report.checks) {
    if (asked.has(check.id) || (check.id === BENCH_CHECK && !report.bench)) continue;
    if (check.status === 'error') {
      own.push({ what: `the check broke (${check.error?.message ?? 'error'})`, command: false, checks: [check.id] });
      continue;
    }
    if (check.status !== 'unknown') continue;
    const commands = check.hint ? hintCommands(check.hint) : [];
    if (commands.length) for (const command of commands) add(command, true, [check.id]);
    else if (check.hint) add(check.hint, false, [check.id]);
    else own.push({ what: check.reason ?? 'unknown', command: false, checks: [check.id] });
  }
  if (!report.bench && !asked.has(BENCH_CHECK))
    own.push({ what: 'no bench was run (add --peer HOST or --loopback)', command: false, checks: [BENCH_CHECK] });
  return [...entries.values(), ...own];
}
