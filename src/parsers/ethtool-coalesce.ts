import { ParseError } from './parse-error.js';
import { contentLines, ethtoolCount, ethtoolHeader, parseOnOff } from './text.js';

export interface EthtoolCoalesce {
  /** Interface named in the "Coalesce parameters for <if>:" header, when present. */
  interface: string | null;
  /** "Adaptive RX: on  TX: off"; null = "n/a" (the driver has no adaptive mode) or absent. */
  adaptiveRx: boolean | null;
  adaptiveTx: boolean | null;
  rxUsecs: number | null;
  rxFrames: number | null;
  txUsecs: number | null;
  txFrames: number | null;
  /** "CQE mode RX: n/a  TX: n/a" (ethtool 5.15+); null when absent or n/a. */
  cqeModeRx: boolean | null;
  cqeModeTx: boolean | null;
  /** Every numeric "name: value" line by its ethtool name (rx-usecs-irq, pkt-rate-low, ...). */
  values: Record<string, number | null>;
}

/** "Adaptive RX: on  TX: off" and "CQE mode RX: n/a  TX: n/a": two flags on one line. */
const PAIR_LINE = /^(Adaptive|CQE mode)\s+RX:\s*(\S+)\s+TX:\s*(\S+)$/i;

/** Parses `ethtool -c <if>`. */
export function parseEthtoolCoalesce(text: string): EthtoolCoalesce {
  const result: EthtoolCoalesce = {
    interface: null,
    adaptiveRx: null,
    adaptiveTx: null,
    rxUsecs: null,
    rxFrames: null,
    txUsecs: null,
    txFrames: null,
    cqeModeRx: null,
    cqeModeTx: null,
    values: {},
  };
  let sawAdaptive = false;
  for (const line of contentLines(text)) {
    const header = ethtoolHeader(line, 'Coalesce');
    if (header) {
      result.interface = header;
      continue;
    }
    const pair = PAIR_LINE.exec(line);
    if (pair) {
      if (pair[1]!.toLowerCase() === 'adaptive') {
        result.adaptiveRx = parseOnOff(pair[2]);
        result.adaptiveTx = parseOnOff(pair[3]);
        sawAdaptive = true;
      } else {
        result.cqeModeRx = parseOnOff(pair[2]);
        result.cqeModeTx = parseOnOff(pair[3]);
      }
      continue;
    }
    const field = /^([a-z][a-z-]*):\s*(\S+)$/.exec(line);
    if (!field) continue;
    result.values[field[1]!] = ethtoolCount('ethtool -c', field[1]!, field[2]!);
  }
  if (!sawAdaptive && !('rx-usecs' in result.values)) {
    throw new ParseError('ethtool -c: no "Adaptive RX/TX" or "rx-usecs" line found');
  }
  result.rxUsecs = result.values['rx-usecs'] ?? null;
  result.rxFrames = result.values['rx-frames'] ?? null;
  result.txUsecs = result.values['tx-usecs'] ?? null;
  result.txFrames = result.values['tx-frames'] ?? null;
  return result;
}
