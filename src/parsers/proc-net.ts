import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/** /proc/net/dev: per interface, receive and transmit counters since the device appeared. */
export interface ProcNetDevEntry {
  name: string;
  rx: { bytes: number; packets: number; errs: number; drop: number; fifo: number; frame: number };
  tx: { bytes: number; packets: number; errs: number; drop: number; fifo: number; colls: number; carrier: number };
}

export function parseProcNetDev(text: string): ProcNetDevEntry[] {
  const entries: ProcNetDevEntry[] = [];
  for (const line of lines(text)) {
    const match = /^\s*([^:\s|]+):(.*)$/.exec(line);
    if (!match) continue;
    const values = match[2]!.trim().split(/\s+/);
    if (values.length < 16 || !values.every((value) => /^\d+$/.test(value))) continue;
    const n = values.map(Number);
    entries.push({
      name: match[1]!,
      rx: { bytes: n[0]!, packets: n[1]!, errs: n[2]!, drop: n[3]!, fifo: n[4]!, frame: n[5]! },
      tx: { bytes: n[8]!, packets: n[9]!, errs: n[10]!, drop: n[11]!, fifo: n[12]!, colls: n[13]!, carrier: n[14]! },
    });
  }
  if (entries.length === 0 && text.trim()) throw new ParseError('/proc/net/dev: no "<if>: <16 counters>" line found');
  return entries;
}

/**
 * /proc/net/snmp and /proc/net/netstat: pairs of lines, a header of names and a line of values,
 * per protocol ("Tcp: RtoAlgorithm ..." / "Tcp: 1 200 ..."). Result: "Tcp.RetransSegs" → value.
 */
export function parseProcNetCounters(text: string, file: string): Record<string, number> {
  const counters: Record<string, number> = {};
  const rows = lines(text).filter((line) => /^\w+:/.test(line.trim()));
  for (let index = 0; index + 1 < rows.length; index += 1) {
    const names = /^(\w+):(.*)$/.exec(rows[index]!.trim());
    const values = /^(\w+):(.*)$/.exec(rows[index + 1]!.trim());
    if (!names || !values || names[1] !== values[1]) continue;
    const keys = names[2]!.trim().split(/\s+/);
    const numbers = values[2]!.trim().split(/\s+/);
    if (!numbers.every((value) => /^-?\d+$/.test(value))) continue;
    keys.forEach((key, position) => {
      if (numbers[position] !== undefined) counters[`${names[1]}.${key}`] = Number(numbers[position]);
    });
    index += 1;
  }
  if (Object.keys(counters).length === 0 && text.trim())
    throw new ParseError(`${file}: no "Proto: names" / "Proto: values" line pair found`);
  return counters;
}
