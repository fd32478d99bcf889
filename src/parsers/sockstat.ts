import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/**
 * /proc/net/sockstat: "TCP: inuse 22 orphan 0 tw 2 alloc 58 mem 150987" — per protocol, name
 * and value pairs. `mem` is in pages, the unit of net.ipv4.tcp_mem and udp_mem.
 */
export type Sockstat = Record<string, Record<string, number>>;

export function parseSockstat(text: string): Sockstat {
  const result: Sockstat = {};
  for (const line of lines(text).slice(0, 64)) {
    const match = /^(\w+):((?: \w+ -?\d+)+)\s*$/.exec(line.trim());
    if (!match) continue;
    const fields: Record<string, number> = {};
    const words = match[2]!.trim().split(/\s+/);
    for (let index = 0; index + 1 < words.length; index += 2) fields[words[index]!] = Number(words[index + 1]);
    result[match[1]!] = fields;
  }
  if (!result.TCP && !result.UDP) throw new ParseError('/proc/net/sockstat: no "TCP:" or "UDP:" line');
  return result;
}

/** tcp_mem / udp_mem: the low, pressure and high thresholds in pages. */
export interface MemLimits {
  low: number;
  pressure: number;
  high: number;
}

export function parseMemLimits(key: string, text: string): MemLimits {
  const numbers = text.trim().split(/\s+/).map(Number);
  if (numbers.length !== 3 || numbers.some((n) => !Number.isInteger(n) || n < 0)) {
    throw new ParseError(`${key}: expected three page counts (low pressure high), got ${JSON.stringify(text.trim().slice(0, 60))}`);
  }
  const [low, pressure, high] = numbers as [number, number, number];
  return { low, pressure, high };
}
