import { compareVersions, parseIperf3VersionLine } from './iperf3-version.js';

/**
 * What a ticket's own words say about the test tools it ran: the iperf3 version ("iperf3 3.7 on
 * the client", "Iperf3 v 3.1.2", "iperf version 3.0-BETA5"), the rates each tool reached ("iperf
 * 2.0.5 gives 9.5 - 9.9 Gbps", "only around 6.5 Gbits/sec"), and whether the poster says a
 * multi-threaded tool (iperf 2) goes faster than iperf3 ("iperf3 reports lower throughput than
 * iperf 2.1.5"). Every pattern is a short bounded token sequence and lines are capped, so the
 * cost is linear in the text.
 */

/** Lines of prose read at most (a ticket is a few hundred lines; a pasted log is not prose). */
const MAX_LINES = 2000;
/** Lines after a tool's name that still belong to it when they name no tool (a wrapped row). */
const CARRY_LINES = 3;

// "iperf3 3.7", "iperf3 v 3.1.2", "Iperf3 v3.9", "iperf version 3.0-BETA5", "iperf 3.9 (cJSON": a
// version number right after the tool's name, not a rate ("iperf 3.5 Gbit/s" is a rate).
const VERSION =
  /\biperf3?\s{1,3}(?:version\s{1,3}|v\s?)?(3\.\d{1,2}(?:\.\d{1,2})?(?:[-+][a-z]{0,8}\d{0,3})?)(?![\d.]|\s?(?:[GMK](?:bit|b\/s|bps|B)|%))/gi;

/** A mention of iperf 2 (multi-threaded: one thread per stream), by name, version or its -c/-s form. */
const IPERF2 = /\biperf\s?2\b|\biperf\s{1,3}(?:version\s{1,3}|v\s?)?2\.\d|\biperf\s{1,3}-[csP]\b/i;
const IPERF3 = /\biperf3\b|\biperf\s{1,3}(?:version\s{1,3}|v\s?)?3\.\d/i;
/**
 * Other network benchmarks that run one thread or process per stream (netperf with several
 * clients, nuttcp, uperf, ntttcp): on the same hosts, one of them far faster than iperf3 shows that
 * the tool, not the path, limits iperf3.
 */
const BENCH_TOOL = /\b(?:netperf|nuttcp|uperf|ntttcp)\b/i;
/** File copies and other transfers: their rates are not iperf3's, nor a benchmark's. */
const OTHER_TOOL = /\b(?:scp|rsync|smb|nfs|samba|ftp|wget|curl|dd)\b/i;

// "9.9 Gbps", "6.5 Gbits/sec", "940 Mbit/s", "84504.846667 (Mb/s)" (a report table's unit in
// parentheses): a bit rate (byte rates are file copies, not tests).
const RATE = /(?<![\d.])(\d{1,6}(?:\.\d{1,6})?)\s?\(?(G|M)(?:bits?\/sec|bits?\/s|b\/s|bps|bit)\b/gi;

// "iperf3 ... lower/slower/less ... than iperf 2", "iperf3 reports low throughput compared to iperf 2".
const IPERF3_SLOWER =
  /\biperf\s?3[^\n]{0,80}?\b(?:lower|slower|less|worse|low|slow|poor|fails? to saturate)\b[^\n]{0,60}?\b(?:than|compared (?:to|with)|vs\.?|versus)\b[^\n]{0,40}?\biperf\s?(?:2|version 2|v\s?2)/i;
// "iperf 2 ... faster/higher/more than ... iperf3", "iperf2 saturates the link".
const IPERF2_FASTER =
  /\biperf\s?(?:2|version 2|v\s?2)[^\n]{0,80}?\b(?:faster|higher|more|better|saturates?)\b(?:[^\n]{0,60}?\b(?:than|vs\.?|versus)\b[^\n]{0,40}?\biperf\s?3|[^\n]{0,20}?\b(?:the )?(?:link|network|line rate))/i;

/** The oldest iperf3 version the prose names (the one that limits a test between two ends). */
export function statedIperf3Version(prose: string): string | null {
  let oldest: ReturnType<typeof parseIperf3VersionLine> | null = null;
  for (const match of prose.slice(0, 200_000).matchAll(VERSION)) {
    let parsed;
    try {
      parsed = parseIperf3VersionLine(`iperf ${match[1]!}`);
    } catch {
      continue;
    }
    if (!oldest || compareVersions(parsed, oldest) < 0) oldest = parsed;
  }
  return oldest?.version ?? null;
}

export interface StatedToolRates {
  /** The best rate the prose gives iperf3 (Mb/s), null when it gives none. */
  iperf3BestMbps: number | null;
  /** The best rate the prose gives iperf 2 (Mb/s), null when it gives none. */
  iperf2BestMbps: number | null;
  /** The poster says iperf 2 reaches more than iperf3 on the same hosts (in words or by the numbers). */
  iperf2Faster: boolean;
  /** The best rate the prose gives another benchmark (netperf, nuttcp, ...), with its name; null when none. */
  benchBestMbps: number | null;
  benchTool: string | null;
}

/**
 * Rates per tool: a rate belongs to the tool named last before it on its line ("a) iperf 2.0.5
 * gives 9.9 Gbps b) iperf3 ... 7 Gbps" on one line gives each its own); a rate with no tool
 * before it is iperf3's only when iperf3 is the one tool the whole text speaks of.
 */
export function statedToolRates(prose: string): StatedToolRates {
  const lines = prose.split('\n').slice(0, MAX_LINES);
  const onlyIperf3 = IPERF3.test(prose) && !IPERF2.test(prose) && !OTHER_TOOL.test(prose) && !BENCH_TOOL.test(prose);
  let iperf3: number | null = null;
  let iperf2: number | null = null;
  let bench: number | null = null;
  let saidFaster = false;
  // A table row or sentence a mailer wrapped at 72-80 columns puts its rate on the next line: the
  // tool named last carries over to the few lines after it that name none, up to an empty line.
  let carried: Carried | null = null;
  for (const line of lines) {
    if (IPERF3_SLOWER.test(line) || IPERF2_FASTER.test(line)) saidFaster = true;
    const mentions = toolMentions(line);
    if (line.trim() === '') carried = null;
    const fromAbove = carried && carried.lines < CARRY_LINES ? carried.tool : null;
    for (const rate of ratesMbps(line)) {
      const tool = mentions.filter((mention) => mention.index < rate.index).at(-1)?.tool ?? fromAbove ?? (onlyIperf3 ? 'iperf3' : null);
      if (tool === 'iperf2') iperf2 = Math.max(iperf2 ?? 0, rate.mbps);
      else if (tool === 'iperf3') iperf3 = Math.max(iperf3 ?? 0, rate.mbps);
      else if (tool === 'bench') bench = Math.max(bench ?? 0, rate.mbps);
    }
    const last = mentions.at(-1);
    carried = last ? { tool: last.tool, lines: 0 } : nextLine(carried);
  }
  const byNumbers = iperf2 !== null && iperf3 !== null && iperf2 > iperf3;
  return {
    iperf3BestMbps: iperf3,
    iperf2BestMbps: iperf2,
    iperf2Faster: saidFaster || byNumbers,
    benchBestMbps: bench,
    benchTool: bench === null ? null : (BENCH_TOOL.exec(prose)?.[0].toLowerCase() ?? null),
  };
}

type Tool = 'iperf2' | 'iperf3' | 'bench' | 'other';

/** The tool named last above, and how many lines ago. */
interface Carried {
  tool: Tool;
  lines: number;
}

function nextLine(carried: Carried | null): Carried | null {
  return carried === null ? null : { tool: carried.tool, lines: carried.lines + 1 };
}

function toolMentions(line: string): Array<{ index: number; tool: Tool }> {
  const found: Array<{ index: number; tool: Tool }> = [];
  const add = (pattern: RegExp, tool: Tool) => {
    for (const match of line.matchAll(new RegExp(pattern.source, 'gi'))) found.push({ index: match.index, tool });
  };
  add(IPERF2, 'iperf2');
  add(IPERF3, 'iperf3');
  add(BENCH_TOOL, 'bench');
  add(OTHER_TOOL, 'other');
  return found.sort((a, b) => a.index - b.index);
}

function ratesMbps(line: string): Array<{ index: number; mbps: number }> {
  const rates: Array<{ index: number; mbps: number }> = [];
  for (const match of line.matchAll(RATE)) {
    const mbps = Number(match[1]) * (match[2]!.toUpperCase() === 'G' ? 1000 : 1);
    if (Number.isFinite(mbps)) rates.push({ index: match.index, mbps });
  }
  return rates;
}
