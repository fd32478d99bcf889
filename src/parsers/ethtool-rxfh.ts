import { ParseError } from './parse-error.js';
import { contentLines } from './text.js';

export interface EthtoolRxfh {
  /** Interface named in the table header. */
  interface: string;
  /** "with N RX ring(s)": receive queues the hash can point at. */
  ringCount: number;
  /**
   * Indirection table entries (queue per hash bucket) as printed, in index order; null when the
   * driver has no table ("Operation not supported": virtio without VIRTIO_NET_F_RSS).
   */
  indirection: number[] | null;
  /** False when rows were elided ("...") or the output stops mid-table: shares are estimates. */
  indirectionComplete: boolean;
  /** RSS hash key bytes; null when not printed or not supported. */
  hashKey: number[] | null;
  /** "RSS hash function:" entries (toeplitz, xor, crc32) → on/off; null when not printed. */
  hashFunctions: Record<string, boolean> | null;
}

type Section = 'table' | 'key' | 'function' | 'transform';

const TABLE_HEADER = /^RX flow hash indirection table for (\S+) with (\d+) RX ring\(s\):$/;
const TABLE_ROW = /^(\d+):((?:\s+\d+)*)$/;
const NOT_SUPPORTED = /^Operation not supported$/i;
/** The largest indirection tables are a few thousand entries (ice 2048); 65536 bounds the work. */
const MAX_INDIRECTION_ENTRIES = 65_536;

/** Parses `ethtool -x <if>`: indirection table, hash key and hash functions. */
export function parseEthtoolRxfh(text: string): EthtoolRxfh {
  let header: RegExpExecArray | null = null;
  let section: Section | null = null;
  const entries: number[] = [];
  let tableSupported = true;
  let complete = true;
  let hashKey: number[] | null = null;
  let hashFunctions: Record<string, boolean> | null = null;

  for (const line of contentLines(text)) {
    const tableHeader = TABLE_HEADER.exec(line);
    if (tableHeader) {
      if (header) throw new ParseError('ethtool -x: two indirection tables (RSS contexts are not supported by this parser)');
      header = tableHeader;
      section = 'table';
      continue;
    }
    if (/^RSS hash key:$/i.test(line)) {
      section = 'key';
      continue;
    }
    if (/^RSS hash function:$/i.test(line)) {
      section = 'function';
      hashFunctions ??= {};
      continue;
    }
    if (/^RSS input transformation:$/i.test(line)) {
      section = 'transform';
      continue;
    }
    if (!header) {
      // ethtool prints nothing else before the table header.
      throw new ParseError(`ethtool -x: expected "RX flow hash indirection table for ...", got "${line.slice(0, 80)}"`);
    }
    switch (section) {
      case 'table': {
        if (NOT_SUPPORTED.test(line)) {
          tableSupported = false;
          break;
        }
        if (/^\.{3,}$|^…$/.test(line)) {
          complete = false;
          break;
        }
        const row = TABLE_ROW.exec(line);
        if (!row) throw new ParseError(`ethtool -x: unreadable indirection table row "${line.slice(0, 80)}"`);
        const index = Number.parseInt(row[1]!, 10);
        // A row that does not continue where the last one stopped means rows are missing.
        if (index !== entries.length) complete = false;
        const values = row[2]!
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map((value) => Number.parseInt(value, 10));
        if (values.length === 0) throw new ParseError(`ethtool -x: empty indirection table row ${index}`);
        // One by one: spreading a 1 MB row into push() overflows the stack.
        for (const value of values) entries.push(value);
        if (entries.length > MAX_INDIRECTION_ENTRIES)
          throw new ParseError(`ethtool -x: more than ${MAX_INDIRECTION_ENTRIES} indirection table entries`);
        break;
      }
      case 'key': {
        if (NOT_SUPPORTED.test(line)) break;
        if (!/^[0-9a-f]{2}(?::[0-9a-f]{2})*$/i.test(line))
          throw new ParseError(`ethtool -x: unreadable RSS hash key "${line.slice(0, 80)}"`);
        hashKey = line.split(':').map((byte) => Number.parseInt(byte, 16));
        break;
      }
      case 'function': {
        const fn = /^(\S+):\s*(on|off)$/i.exec(line);
        if (fn) hashFunctions![fn[1]!] = fn[2]!.toLowerCase() === 'on';
        else if (!NOT_SUPPORTED.test(line)) throw new ParseError(`ethtool -x: unreadable RSS hash function line "${line.slice(0, 80)}"`);
        break;
      }
      default:
        // Input transformations (symmetric-xor) and newer additions carry nothing we judge.
        break;
    }
  }

  if (!header) throw new ParseError('ethtool -x: no "RX flow hash indirection table" header');
  if (tableSupported && entries.length === 0) complete = false;
  return {
    interface: header[1]!,
    ringCount: Number.parseInt(header[2]!, 10),
    indirection: tableSupported ? entries : null,
    indirectionComplete: tableSupported && complete,
    hashKey,
    hashFunctions,
  };
}
