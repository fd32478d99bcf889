import { ParseError } from './parse-error.js';
import { contentLines, ethtoolHeader, isJsonOutput, parseJsonOutput, parseOnOff } from './text.js';

export interface EthtoolPause {
  /** Interface named in the "Pause parameters for <if>:" header or the JSON "ifname". */
  interface: string | null;
  autonegotiate: boolean | null;
  /** Configured pause frames: honour received ones (rx), send them (tx). */
  rx: boolean | null;
  tx: boolean | null;
  /**
   * What autonegotiation with the link partner settled on ("RX negotiated:", ethtool 5.7+
   * netlink, only with autonegotiation on); null when not printed.
   */
  rxNegotiated: boolean | null;
  txNegotiated: boolean | null;
}

const FIELDS: Record<string, keyof Omit<EthtoolPause, 'interface'>> = {
  autonegotiate: 'autonegotiate',
  rx: 'rx',
  tx: 'tx',
  'rx negotiated': 'rxNegotiated',
  'tx negotiated': 'txNegotiated',
};

/** Parses `ethtool -a <if>` text, or `ethtool --json -a <if>`. */
export function parseEthtoolPause(text: string): EthtoolPause {
  const result = isJsonOutput(text) ? parseJson(text.trimStart()) : parseText(text);
  if (result.rx === null && result.tx === null) throw new ParseError('ethtool -a: no "RX:" / "TX:" pause settings found');
  return result;
}

function empty(): EthtoolPause {
  return { interface: null, autonegotiate: null, rx: null, tx: null, rxNegotiated: null, txNegotiated: null };
}

function parseText(text: string): EthtoolPause {
  const result = empty();
  for (const line of contentLines(text)) {
    const header = ethtoolHeader(line, 'Pause');
    if (header) {
      result.interface = header;
      continue;
    }
    // Some published outputs have "Autonegotiate : on"; tolerate space before the colon.
    const field = /^([A-Za-z][A-Za-z ]*):[ \t]*(\S+)$/.exec(line);
    const key = field ? FIELDS[field[1]!.trimEnd().toLowerCase()] : undefined;
    // Statistics (-I) and warnings are not pause settings.
    if (!field || !key) continue;
    const value = parseOnOff(field[2]);
    if (value === null && field[2] !== 'n/a') throw new ParseError(`ethtool -a: unexpected value "${field[2]}" for ${field[1]}`);
    result[key] = value;
  }
  return result;
}

function jsonBool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

function parseJson(text: string): EthtoolPause {
  const data = parseJsonOutput('ethtool --json -a', text);
  const object = (Array.isArray(data) ? data[0] : data) as Record<string, unknown> | undefined;
  if (!object || typeof object !== 'object') throw new ParseError('ethtool --json -a: expected an array with one object');
  const negotiated = (object.negotiated ?? {}) as Record<string, unknown>;
  return {
    interface: typeof object.ifname === 'string' ? object.ifname : null,
    autonegotiate: jsonBool(object.autonegotiate),
    rx: jsonBool(object.rx),
    tx: jsonBool(object.tx),
    rxNegotiated: jsonBool(negotiated.rx),
    txNegotiated: jsonBool(negotiated.tx),
  };
}
