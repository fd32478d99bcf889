import { ParseError } from './parse-error.js';
import { lines } from './text.js';
import { numberInRange } from './numbers.js';

/** One counter of `ethtool -S`, as the driver names it. */
export interface EthtoolCounter {
  /**
   * The name as printed, trimmed, with any per-queue prefix kept: "port.rx_dropped",
   * "[0]: rx_discards" (bnxt/bnx2x), "rxq0: rx_pkts" (be2net), "[hw] rx frames" (dpaa2).
   */
  name: string;
  /**
   * Counters are u64 in the kernel; above 2^53 a JavaScript number loses the last digits,
   * which does not matter for judging drops or shares.
   */
  value: number;
  /** vmxnet3 groups counters under "Tx Queue#: 0" / "Rx Queue#: 1" headers; null elsewhere. */
  block: string | null;
}

export interface EthtoolStats {
  counters: EthtoolCounter[];
}

// Greedy name: the value follows the LAST colon, because bnxt and be2net names contain ": ".
const COUNTER = /^(.*\S)\s*:\s*(-?\d+)$/;
const VMXNET3_BLOCK = /^((?:Tx|Rx) Queue#):\s*(\d+)$/i;

/** Parses `ethtool -S <if>`: "NIC statistics:" then one indented "name: value" per line. */
export function parseEthtoolStats(text: string): EthtoolStats {
  const all = lines(text);
  if (all.every((line) => line.trim() === '')) throw new ParseError('ethtool -S printed nothing');
  const counters: EthtoolCounter[] = [];
  let block: { name: string; indent: number } | null = null;
  all.forEach((raw, index) => {
    const line = raw.trim();
    // "#" lines are comments in hand-made captures; ethtool itself never prints them.
    if (line === '' || line.startsWith('#') || /^NIC statistics:$/i.test(line)) return;
    const indent = raw.length - raw.trimStart().length;
    if (block && indent <= block.indent) block = null;
    const header = VMXNET3_BLOCK.exec(line);
    if (header) {
      block = { name: `${header[1]}: ${header[2]}`, indent };
      return;
    }
    const match = COUNTER.exec(line);
    if (!match) throw new ParseError(`ethtool -S line ${index + 1} is not "name: number": ${JSON.stringify(line.slice(0, 120))}`);
    counters.push({ name: match[1]!, value: numberInRange(match[2]!, `ethtool -S ${match[1]!}`), block: block?.name ?? null });
  });
  return { counters };
}
