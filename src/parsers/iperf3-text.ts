import { ParseError } from './parse-error.js';
import { numberInRange } from './numbers.js';

/**
 * iperf3's human-readable output, as pasted into tickets: client or server side, -P with [SUM]
 * lines, -R, --bidir ([TX-C]/[RX-C] tags), UDP with jitter and loss, the Retr/Cwnd columns,
 * Windows builds and old 3.x ("Bandwidth" instead of "Bitrate"). iperf2 output is recognised
 * and named, not parsed: its intervals mean something else (one decimal, threads, no sender/
 * receiver summary).
 *
 * Rows are matched anywhere in the text, not line by line, because tickets flatten whitespace
 * (a whole run on one line) and wrap long lines.
 */

export interface Iperf3TextInterval {
  start: number;
  end: number;
  bitsPerSecond: number;
  retransmits: number | null;
  omitted: boolean;
}

export interface Iperf3TextRun {
  tool: 'iperf3';
  /** The -T title ("s1") of a run whose every line it prefixes: one of several concurrent processes. */
  title?: string;
  /** 'client' when "Connecting to host" or sender rows are present, 'server' for "Server listening"/"Accepted connection". */
  role: 'client' | 'server' | null;
  protocol: 'tcp' | 'udp';
  direction: 'forward' | 'reverse' | 'bidir';
  /** Number of parallel streams (distinct stream ids in one direction). */
  streams: number;
  version: string | null;
  /** The host the client connected to, or the client the server accepted. */
  peer: string | null;
  port: number | null;
  /** Aggregate rate per interval ([SUM] rows, or the only stream's rows), in the main direction. */
  intervals: Iperf3TextInterval[];
  /** Per-stream final rates (receiver side when known) in the main direction. */
  perStream: Array<{ id: string; bitsPerSecond: number; retransmits: number | null }>;
  senderBitsPerSecond: number | null;
  receiverBitsPerSecond: number | null;
  /** Second direction of --bidir (receiver side when known). */
  reverseBitsPerSecond: number | null;
  retransmits: number | null;
  durationSeconds: number | null;
  jitterMs: number | null;
  lostPercent: number | null;
  /** Whether the final summary lines were present (a paste cut after some intervals has none). */
  hasSummary: boolean;
}

const UNIT: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/**
 * One row: `[  5]   0.00-1.00   sec   444 MBytes  3.73 Gbits/sec  12   1.2 MBytes  sender`.
 * Optional tail: retransmits and cwnd (TCP sender), jitter/lost (UDP), and sender/receiver.
 */
const ROW = new RegExp(
  String.raw`\[\s*(\d+|SUM)\s*\](?:\[(TX-C|RX-C|TX-S|RX-S)\])?\s+` +
    String.raw`(\d+\.\d+)\s*-\s*(\d+\.\d+)\s+sec\s+` +
    String.raw`([\d.]+)\s+([KMGT]?)Bytes\s+` +
    String.raw`([\d.]+)\s+([KMGT]?)bits\/sec` +
    String.raw`(?:\s+([\d.]+)\s+ms\s+(\d+)\s*\/\s*(\d+)\s+\(([\d.e+-]+)%\))?` +
    String.raw`(?:\s+(\d+)(?![.:\d])(?:\s+([\d.]+)\s+[KMGT]?Bytes)?)?` +
    String.raw`(?:\s+(\(omitted\)))?` +
    String.raw`(?:\s+(sender|receiver))?`,
  'g',
);

export function sniffIperf3Text(text: string): boolean {
  ROW.lastIndex = 0;
  const rows = [...text.matchAll(ROW)].length;
  return rows >= 1 && (rows >= 2 || /iperf|Connecting to host|Server listening|Bitrate|Bandwidth/i.test(text)) && !sniffIperf2Text(text);
}

/** iperf2: "Client connecting to", "TCP window size:", intervals with one decimal ("0.0-10.0 sec"). */
export function sniffIperf2Text(text: string): boolean {
  if (/^\s*iperf version 2\./im.test(text)) return true;
  if (/\bServer listening on (?:TCP|UDP) port \d+/.test(text) || /\bClient connecting to \S+, (?:TCP|UDP) port \d+/.test(text)) return true;
  return /\[\s*(?:\d+|SUM)\]\s+\d+\.\d-\s*\d+\.\d sec\s/.test(text) && !/\d+\.\d\d-\s*\d+\.\d\d\s+sec/.test(text);
}

/** Seconds of an interval, and counts: finite and in range (a 400-digit interval is not iperf3's). */
const SECONDS = { min: 0, max: 10 ** 9 };
const COUNT = { min: 0, max: 2 ** 64 };

function rate(value: string, prefix: string): number {
  return Math.round(numberInRange(value, 'iperf3 rate', COUNT) * UNIT[prefix]!);
}

/** iperf3 counts Bytes in powers of 1024 (KBytes = 1024 bytes), bits in powers of 1000. */
const BYTE_UNIT: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/**
 * A row's rate as printed; or, where a coarse format (-f g) printed "0.00 Gbits/sec" for an
 * interval that moved bytes (87.4 KBytes in a second), the rate of those bytes.
 */
function rowRate(match: RegExpMatchArray): number {
  const printed = rate(match[7]!, match[8]!);
  const seconds = Number(match[4]) - Number(match[3]);
  const bytes = numberInRange(match[5]!, 'iperf3 transfer', COUNT) * BYTE_UNIT[match[6]!]!;
  return printed === 0 && bytes > 0 && seconds > 0 ? Math.round((bytes * 8) / seconds) : printed;
}

interface Row {
  id: string;
  tag: string | null;
  start: number;
  end: number;
  bitsPerSecond: number;
  retransmits: number | null;
  omitted: boolean;
  side: 'sender' | 'receiver' | null;
  jitterMs: number | null;
  lostPercent: number | null;
}

/**
 * How many streams the run had beyond the stream ids it shows: `-P 20` on its command line,
 * "Starting Test: protocol: TCP, 20 streams" (-V), or a [SUM] row (iperf3 prints one only for
 * two or more). A paste often keeps only the [SUM] lines of a -P run.
 */
function statedStreams(text: string, command: string | null, hasSum: boolean): number {
  const flag =
    /(?:^|\s)(?:-P\s*|--parallel[\s=]+)(\d{1,4})(?=\s|$)/.exec(command ?? '') ??
    /(?:^|\s)iperf3?\s[^\n]{0,200}?(?:\s-P\s*|\s--parallel[\s=]+)(\d{1,4})(?=\s|$)/m.exec(text);
  const verbose = /Starting Test: protocol: \w+, (\d{1,4}) streams/.exec(text);
  const stated = Number(flag?.[1] ?? verbose?.[1] ?? 0);
  return Math.max(stated, hasSum ? 2 : 1);
}

/** Parses one run. Throws ParseError when there is no iperf3 row at all. */
export function parseIperf3Text(text: string, command: string | null = null): Iperf3TextRun {
  if (sniffIperf2Text(text)) throw new ParseError('iperf2 output (not iperf3): run iperf3 instead, its results are what nicdoctor reads');
  const rows: Row[] = [];
  // Rows after iperf3's "- - - -" rule are the summary, even where old versions (3.1 UDP) do not
  // say sender or receiver.
  const summaryFrom = [...text.matchAll(/(?:- ){10,}-?/g)].at(-1)?.index ?? Infinity;
  for (const match of text.matchAll(ROW)) {
    const unlabelled = match.index > summaryFrom && match[16] === undefined;
    rows.push({
      id: match[1]!,
      tag: match[2] ?? null,
      start: numberInRange(match[3]!, 'iperf3 interval start', SECONDS),
      end: numberInRange(match[4]!, 'iperf3 interval end', SECONDS),
      bitsPerSecond: rowRate(match),
      // UDP rows carry a datagram count where TCP rows carry retransmits.
      retransmits: match[13] !== undefined && match[9] === undefined ? numberInRange(match[13], 'iperf3 retransmits', COUNT) : null,
      omitted: match[15] !== undefined,
      side: (match[16] as 'sender' | 'receiver' | undefined) ?? (unlabelled ? (match[9] !== undefined ? 'receiver' : 'sender') : null),
      jitterMs: match[9] !== undefined ? numberInRange(match[9], 'iperf3 jitter', SECONDS) : null,
      lostPercent: match[12] !== undefined ? numberInRange(match[12], 'iperf3 loss', { min: 0, max: 100 }) : null,
    });
  }
  if (rows.length === 0) {
    const error = /iperf3: error - (.+)/.exec(text)?.[1];
    throw new ParseError(error ? `iperf3 failed: ${error.trim()}` : 'not iperf3 output: no "[ ID] start-end sec ... bits/sec" row');
  }

  const bidir = rows.some((row) => row.tag !== null);
  const reverse = /Reverse mode, remote host .* is sending/.test(text);
  const udpText = /Total Datagrams|Lost\/Total Datagrams/.test(text);
  if (udpText) for (const row of rows) row.retransmits = null;
  const udp = udpText || rows.some((row) => row.jitterMs !== null) || /\bUDP\b.*datagram|Total Datagrams|Lost\/Total Datagrams/.test(text);
  // In --bidir the client's own sending rows are TX-C; the server side prints TX-S.
  const mainTag = bidir ? (rows.some((row) => row.tag === 'TX-C') ? 'TX-C' : 'RX-S') : null;
  const otherTag = mainTag === 'TX-C' ? 'RX-C' : mainTag === 'RX-S' ? 'TX-S' : null;
  const inMain = (row: Row) => row.tag === mainTag;
  const main = rows.filter(inMain);
  const streamIds = [...new Set(main.filter((row) => row.id !== 'SUM').map((row) => row.id))];
  const hasSum = main.some((row) => row.id === 'SUM');

  // A summary row says sender/receiver, or (UDP, old versions) spans the whole test.
  const isSummary = (row: Row) => row.side !== null;
  const aggregateRows = main.filter((row) => (hasSum ? row.id === 'SUM' : row.id === streamIds[0]));
  const intervals = aggregateRows
    .filter((row) => !isSummary(row))
    .map(({ start, end, bitsPerSecond, retransmits, omitted }) => ({ start, end, bitsPerSecond, retransmits, omitted }));
  const summary = (rowsOf: Row[], side: 'sender' | 'receiver') =>
    rowsOf.find((row) => (hasSum ? row.id === 'SUM' : row.id === streamIds[0]) && row.side === side);
  const sender = summary(main, 'sender');
  const receiver = summary(main, 'receiver');
  const other = otherTag ? rows.filter((row) => row.tag === otherTag) : [];
  const otherHasSum = other.some((row) => row.id === 'SUM');
  const otherIds = [...new Set(other.filter((row) => row.id !== 'SUM').map((row) => row.id))];
  const otherFinal =
    other.find((row) => (otherHasSum ? row.id === 'SUM' : row.id === otherIds[0]) && row.side === 'receiver') ??
    other.find((row) => (otherHasSum ? row.id === 'SUM' : row.id === otherIds[0]) && row.side === 'sender');

  const perStream = streamIds.map((id) => {
    const final =
      main.find((row) => row.id === id && row.side === 'receiver') ?? main.find((row) => row.id === id && row.side === 'sender');
    const senderRow = main.find((row) => row.id === id && row.side === 'sender');
    const last = final ?? main.filter((row) => row.id === id && !row.omitted).at(-1)!;
    return { id, bitsPerSecond: last.bitsPerSecond, retransmits: senderRow?.retransmits ?? null };
  });

  const udpFinal = receiver ?? sender;
  const role =
    /Connecting to host|\bsender\b/.test(text) && !/Server listening on \d+/.test(text)
      ? 'client'
      : /Server listening on \d+|Accepted connection from/.test(text)
        ? 'server'
        : sender
          ? 'client'
          : null;
  const connect = /Connecting to host ([^\s,]+), port (\d+)/.exec(text) ?? /connected to ([^\s]+) port (\d+)/.exec(text);
  const accepted = /Accepted connection from ([^\s,]+), port \d+/.exec(text);
  return {
    tool: 'iperf3',
    role,
    protocol: udp ? 'udp' : 'tcp',
    direction: bidir ? 'bidir' : reverse ? 'reverse' : 'forward',
    streams: Math.max(streamIds.length, statedStreams(text, command, hasSum)),
    version: /\biperf (3\.[\d.]+\S*)/.exec(text)?.[1] ?? null,
    peer: connect?.[1] ?? accepted?.[1] ?? null,
    port: connect ? Number(connect[2]) : null,
    intervals,
    perStream,
    senderBitsPerSecond: sender?.bitsPerSecond ?? null,
    receiverBitsPerSecond: receiver?.bitsPerSecond ?? null,
    reverseBitsPerSecond: otherFinal?.bitsPerSecond ?? null,
    retransmits:
      sender?.retransmits ??
      (perStream.some((s) => s.retransmits !== null) ? perStream.reduce((total, s) => total + (s.retransmits ?? 0), 0) : null) ??
      intervalRetransmits(intervals),
    durationSeconds: (sender ?? receiver)?.end ?? intervals.at(-1)?.end ?? null,
    jitterMs: udp ? (udpFinal?.jitterMs ?? null) : null,
    lostPercent: udp ? (udpFinal?.lostPercent ?? null) : null,
    hasSummary: Boolean(sender ?? receiver),
  };
}

/** A run stopped before its summary (Ctrl-C) still counted its retransmits per interval. */
function intervalRetransmits(intervals: readonly { retransmits: number | null }[]): number | null {
  if (!intervals.some((interval) => interval.retransmits !== null)) return null;
  return intervals.reduce((total, interval) => total + (interval.retransmits ?? 0), 0);
}

/** iperf3 -T prefixes every line with "title:  ". */
const TITLED = /^([\w.-]+):  ?(.*)$/;

/**
 * Several iperf3 processes run at once with -T labels (`iperf3 -c h -p 5101 -T s1 & ...`): one
 * run per title, in order of first appearance; text without titles is one run.
 */
export function parseIperf3TextRuns(text: string, command: string | null = null): Iperf3TextRun[] {
  const byTitle = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const match = TITLED.exec(line);
    if (match && /^\s*(?:\[|Connecting to host|Reverse mode|iperf Done|- - -|$)/.test(match[2]!)) {
      if (!byTitle.has(match[1]!)) byTitle.set(match[1]!, []);
      byTitle.get(match[1]!)!.push(match[2]!);
    }
  }
  const titled = [...byTitle.entries()].filter(([, lines]) => lines.some((line) => /bits\/sec/.test(line)));
  if (titled.length === 0) return [parseIperf3Text(text, command)];
  return titled.map(([title, lines]) => ({ ...parseIperf3Text(lines.join('\n')), title }));
}
