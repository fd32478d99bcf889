import { ParseError } from './parse-error.js';
import { contentLines } from './text.js';

/**
 * `tc -s qdisc show dev <if>` and `tc -s class show dev <if>`: one entry per qdisc or class
 * line, with the rates it prints (tbf/htb/netem `rate`, htb `ceil`, fq `maxrate`, cake
 * `bandwidth`) and the counters of its "Sent ... (dropped N, overlimits M requeues K)" line.
 */
export interface TcEntry {
  type: 'qdisc' | 'class';
  /** tbf, htb, fq, cake, noqueue, pfifo_fast, mq, ... */
  kind: string;
  /** "8016:" for a qdisc, "1:10" for a class. */
  handle: string;
  /** true for the root of the egress tree. */
  root: boolean;
  /** "1:10", ":1", "ffff:fff1" (ingress/clsact), null for the root. */
  parent: string | null;
  /** Bits per second; null where this entry prints no such rate. */
  rateBitsPerSecond: number | null;
  ceilBitsPerSecond: number | null;
  /** fq: a cap per flow, not for the interface. */
  maxrateBitsPerSecond: number | null;
  /** cake: the shaped bandwidth ("unlimited" → null). */
  bandwidthBitsPerSecond: number | null;
  /** Counters since the qdisc/class was created; null without -s. */
  sentBytes: number | null;
  sentPackets: number | null;
  dropped: number | null;
  overlimits: number | null;
  requeues: number | null;
  backlogBytes: number | null;
  backlogPackets: number | null;
}

const HEADER = /^(qdisc|class)\s+(\S+)\s+(\S+)\s+(?:(root)|parent\s+(\S+))(?:\s+(\S.*))?$/;
const SENT = /^Sent\s+(\d+)\s+bytes\s+(\d+)\s+pkts?\s+\(dropped\s+(\d+),\s+overlimits\s+(\d+)\s+requeues\s+(\d+)\)$/;
const BACKLOG = /^backlog\s+(\S+)\s+(\d+)p\b/;
const RATE_UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  t: 1e12,
  ki: 1024,
  mi: 1024 ** 2,
  gi: 1024 ** 3,
  ti: 1024 ** 4,
};
const SIZE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** tc's rate tokens: "2Gbit", "500Mbit", "10Kbit", "800bit", IEC "1Gibit", bytes "1Mbps". */
export function parseTcRate(token: string): number | null {
  const match = /^(\d+(?:\.\d+)?)([KMGT]i?)?(bit|bps)$/i.exec(token);
  if (!match) return null;
  const scale = RATE_UNITS[(match[2] ?? '').toLowerCase()];
  if (scale === undefined) return null;
  const value = Number(match[1]) * scale * (match[3]!.toLowerCase() === 'bps' ? 8 : 1);
  return Math.round(value);
}

function parseSize(token: string): number | null {
  const match = /^(\d+(?:\.\d+)?)([KMG]?)b$/i.exec(token);
  if (!match) return null;
  return Math.round(Number(match[1]) * SIZE_UNITS[match[2]!.toLowerCase()]!);
}

/** The value after a keyword in the option words, as a rate (null: absent or "unlimited"). */
function rateAfter(words: readonly string[], keyword: string, context: string): number | null {
  const index = words.indexOf(keyword);
  if (index < 0 || index + 1 >= words.length) return null;
  const token = words[index + 1]!;
  if (token === 'unlimited') return null;
  const rate = parseTcRate(token);
  if (rate === null) throw new ParseError(`tc: unexpected ${keyword} "${token}" in "${context}"`);
  return rate;
}

function parseEntries(text: string, type: TcEntry['type']): TcEntry[] {
  const entries: TcEntry[] = [];
  let current: TcEntry | null = null;
  for (const line of contentLines(text)) {
    if (/^(qdisc|class)\b/.test(line)) {
      const header = HEADER.exec(line);
      if (!header || header[1] !== type) throw new ParseError(`tc ${type} show: unexpected line "${line}"`);
      const words = (header[6] ?? '').split(/\s+/).filter(Boolean);
      current = {
        type,
        kind: header[2]!,
        handle: header[3]!,
        root: header[4] === 'root',
        parent: header[5] ?? null,
        rateBitsPerSecond: rateAfter(words, 'rate', line),
        ceilBitsPerSecond: rateAfter(words, 'ceil', line),
        maxrateBitsPerSecond: rateAfter(words, 'maxrate', line),
        bandwidthBitsPerSecond: rateAfter(words, 'bandwidth', line),
        sentBytes: null,
        sentPackets: null,
        dropped: null,
        overlimits: null,
        requeues: null,
        backlogBytes: null,
        backlogPackets: null,
      };
      entries.push(current);
      continue;
    }
    if (!current) throw new ParseError(`tc ${type} show: "${line}" before any ${type} line`);
    if (line.startsWith('Sent ')) {
      const sent = SENT.exec(line);
      if (!sent) throw new ParseError(`tc ${type} show: unexpected counters "${line}"`);
      [current.sentBytes, current.sentPackets, current.dropped, current.overlimits, current.requeues] = sent.slice(1, 6).map(Number) as [
        number,
        number,
        number,
        number,
        number,
      ];
      continue;
    }
    const backlog = BACKLOG.exec(line);
    if (backlog) {
      current.backlogBytes = parseSize(backlog[1]!);
      current.backlogPackets = Number(backlog[2]);
    }
    // Kind-specific statistics (htb tokens, fq flows, cake tins) are not needed.
  }
  return entries;
}

/** `tc -s qdisc show dev <if>`: every interface has at least one qdisc (noqueue on a veth). */
export function parseTcQdisc(text: string): TcEntry[] {
  const entries = parseEntries(text, 'qdisc');
  if (entries.length === 0) throw new ParseError('tc qdisc show: no qdisc line in the output');
  return entries;
}

/** `tc -s class show dev <if>`: empty when no classful qdisc is configured. */
export function parseTcClass(text: string): TcEntry[] {
  return parseEntries(text, 'class');
}
