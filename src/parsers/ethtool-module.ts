import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/**
 * `ethtool -m <if>`: the plugged module's EEPROM (SFF-8079/8472 for SFP, SFF-8636 for QSFP,
 * CMIS for QSFP-DD) and, when the module has them, its digital diagnostics (DOM): live
 * readings, the module's own alarm and warning thresholds, and the flags it raised.
 */

/** What a module measures about itself. Units: mA, mW, degrees C, V. */
export type ModuleQuantity = 'bias' | 'txPower' | 'rxPower' | 'temperature' | 'voltage';
export type ModuleLevel = 'alarm' | 'warning';
export type ModuleSide = 'high' | 'low';

export const MODULE_UNITS: Readonly<Record<ModuleQuantity, string>> = {
  bias: 'mA',
  txPower: 'mW',
  rxPower: 'mW',
  temperature: 'degrees C',
  voltage: 'V',
};

export interface ModuleReading {
  quantity: ModuleQuantity;
  /** The lane of a multi-lane module (QSFP "Channel 1"); null for a module-wide value. */
  channel: number | null;
  value: number;
}

/** The module's own limits for one quantity, in the same unit as its readings. */
export type ModuleThresholds = Partial<Record<`${ModuleSide}${'Alarm' | 'Warning'}`, number>>;

/** A flag the module raised (printed "On"). */
export interface ModuleFlag {
  quantity: ModuleQuantity;
  side: ModuleSide;
  level: ModuleLevel;
  channel: number | null;
}

export interface EthtoolModule {
  /** "SFP", "QSFP+", "QSFP28", "QSFP-DD" (the text in the Identifier's parentheses). */
  identifier: string | null;
  /** "10G Ethernet: 10G Base-SR", "Ethernet: BASE-BX10" (every Transceiver type line). */
  transceiverTypes: string[];
  connector: string | null;
  /** "BR, Nominal" in Mb/s (MBd for SFP, per lane for QSFP); null when 0 or absent (unspecified). */
  nominalMbps: number | null;
  encoding: string | null;
  vendor: string | null;
  partNumber: string | null;
  serialNumber: string | null;
  /**
   * Whether the module has digital diagnostics: SFP says so ("Optical diagnostics support");
   * QSFP shows readings or not. False when the module has none, null when nothing said either way.
   */
  diagnostics: boolean | null;
  /** "Alarm/warning flags implemented"; null when not printed. */
  flagsImplemented: boolean | null;
  readings: ModuleReading[];
  thresholds: Partial<Record<ModuleQuantity, ModuleThresholds>>;
  flagsOn: ModuleFlag[];
  /** QSFP "Rx loss of signal : [ Yes, No, ... ]": the lanes (1-based) that report no light. */
  rxLossOfSignal: number[] | null;
}

/**
 * "Key   : value" split at the first colon (values hold colons: "00:90:65", "10G Ethernet: ...").
 * Mail clients wrap long lines; a piece without a colon is the tail of the line above, and skipped.
 */
function field(line: string): [string, string] | null {
  const colon = line.indexOf(':');
  if (colon <= 0) return null;
  const key = line.slice(0, colon).trim();
  return key === '' ? null : [key, line.slice(colon + 1).trim()];
}
// "(Channel 1)", "(Chan 1)", "(Lane 1)" anywhere in the key.
const CHANNEL = /\((?:Channel|Chan|Lane)\s*(\d+)\)/i;
const FLAG_OR_THRESHOLD = /^(.*\S) (high|low) (alarm|warning)( threshold)?$/;

/** Names ethtool gives each quantity, across SFF-8472, SFF-8636 and CMIS output (lowercase). */
const QUANTITY_NAMES: ReadonlyArray<[ModuleQuantity, RegExp]> = [
  ['bias', /^laser (?:tx )?bias current$|^tx bias$/],
  ['txPower', /^laser (?:output|tx) power$|^transmit avg optical power$/],
  ['rxPower', /^receiver signal (?:average optical power|oma)$|^rcvr signal avg optical power$|^laser rx power$|^rx power$/],
  ['temperature', /^module temperature$/],
  ['voltage', /^module voltage$/],
];

function quantityOf(name: string): ModuleQuantity | null {
  const lower = name.toLowerCase().replace(/\s+/g, ' ').trim();
  for (const [quantity, pattern] of QUANTITY_NAMES) if (pattern.test(lower)) return quantity;
  return null;
}

/** The first number of a value ("0.5547 mW / -2.56 dBm" → 0.5547, "41.05 degrees C / ..." → 41.05). */
function leadingNumber(value: string): number | null {
  const match = /^\s*(-?\d+(?:\.\d+)?)/.exec(value);
  if (!match) return null;
  const number = Number(match[1]);
  return Number.isFinite(number) ? number : null;
}

function parenthesised(value: string): string {
  const match = /^0x[0-9a-f]+\s*\((.*)\)\s*$/i.exec(value.trim());
  return (match ? match[1]! : value).trim();
}

function nominalRate(value: string): number | null {
  const match = /^\s*(\d+)\s*(MBd|Mbps|Mb\/s|GBd|Gbps)?/i.exec(value);
  if (!match) return null;
  const number = Number(match[1]);
  const scaled = /^g/i.test(match[2] ?? '') ? number * 1000 : number;
  return scaled > 0 ? scaled : null;
}

function yesNo(value: string): boolean | null {
  const word = value.trim().toLowerCase();
  return word === 'yes' ? true : word === 'no' ? false : null;
}

/** "[ Yes, No, Yes, No ]" → [1, 3]; "None" → []; "Yes" (one lane) → [1]. */
function lanesSaying(value: string): number[] | null {
  const trimmed = value.trim();
  if (/^none$/i.test(trimmed)) return [];
  const items = trimmed.replace(/^\[|\]$/g, '').split(',');
  if (items.length > 64) return null;
  const lanes: number[] = [];
  for (const [index, item] of items.entries()) {
    const answer = yesNo(item);
    if (answer === null) return null;
    if (answer) lanes.push(index + 1);
  }
  return lanes;
}

function empty(): EthtoolModule {
  return {
    identifier: null,
    transceiverTypes: [],
    connector: null,
    nominalMbps: null,
    encoding: null,
    vendor: null,
    partNumber: null,
    serialNumber: null,
    diagnostics: null,
    flagsImplemented: null,
    readings: [],
    thresholds: {},
    flagsOn: [],
    rxLossOfSignal: null,
  };
}

function text(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** Descriptive fields: identity and type, by their exact key. */
function describe(module: EthtoolModule, key: string, value: string): boolean {
  switch (key.toLowerCase()) {
    case 'identifier':
      module.identifier = parenthesised(value);
      return true;
    case 'transceiver type':
      module.transceiverTypes.push(value.trim());
      return true;
    case 'connector':
      module.connector = parenthesised(value);
      return true;
    case 'br, nominal':
    case 'br nominal':
      module.nominalMbps = nominalRate(value);
      return true;
    case 'encoding':
      module.encoding = parenthesised(value);
      return true;
    case 'vendor name':
      module.vendor = text(value);
      return true;
    case 'vendor pn':
      module.partNumber = text(value);
      return true;
    case 'vendor sn':
      module.serialNumber = text(value);
      return true;
    case 'optical diagnostics support':
      module.diagnostics = yesNo(value);
      return true;
    case 'alarm/warning flags implemented':
      module.flagsImplemented = yesNo(value);
      return true;
    case 'rx loss of signal':
      module.rxLossOfSignal = lanesSaying(value);
      return true;
    default:
      return false;
  }
}

/** Diagnostics: a reading, a threshold, or a flag, with its lane when it has one. */
function diagnose(module: EthtoolModule, rawKey: string, value: string): void {
  const channelMatch = CHANNEL.exec(rawKey);
  const channel = channelMatch ? Number(channelMatch[1]) : null;
  const key = rawKey.replace(CHANNEL, '').replace(/\s+/g, ' ').trim();
  const limit = FLAG_OR_THRESHOLD.exec(key);
  if (limit) {
    const quantity = quantityOf(limit[1]!);
    if (!quantity) return;
    const side = limit[2] as ModuleSide;
    const level = limit[3] as ModuleLevel;
    if (limit[4]) {
      const number = leadingNumber(value);
      if (number === null) return;
      const name = `${side}${level === 'alarm' ? 'Alarm' : 'Warning'}` as const;
      (module.thresholds[quantity] ??= {})[name] = number;
    } else if (/^\s*on\b/i.test(value)) {
      module.flagsOn.push({ quantity, side, level, channel });
    }
    return;
  }
  const quantity = quantityOf(key);
  if (!quantity) return;
  const number = leadingNumber(value);
  if (number !== null) module.readings.push({ quantity, channel, value: number });
}

/** At most this many lines are read: a module prints about 120, a QSFP-DD with banks a few hundred. */
const MAX_LINES = 4000;

/** Parses `ethtool -m <if>` (the decoded text, not the hex dump of `ethtool -m <if> raw on`). */
export function parseEthtoolModule(input: string): EthtoolModule {
  const all = lines(input);
  if (all.some((line) => /^\s*(?:Offset\s+Values|0x[0-9a-f]{4}:(?:\s+[0-9a-f]{2}){4})/i.test(line))) {
    throw new ParseError('ethtool -m printed a hex dump of the module EEPROM: ethtool could not decode this module type');
  }
  const module = empty();
  let fields = 0;
  for (const line of all.slice(0, MAX_LINES)) {
    const pair = field(line);
    if (!pair) continue;
    const [key, value] = pair;
    fields += 1;
    if (!describe(module, key, value)) diagnose(module, key, value);
  }
  if (module.identifier === null) {
    throw new ParseError(
      fields === 0 ? 'ethtool -m: no "Key : value" lines' : 'ethtool -m: no "Identifier" line (not a module EEPROM decode)',
    );
  }
  // Readings are the proof; "Optical diagnostics support: Yes" with none printed (ethtool cut
  // short, or a driver that returns only the first page) says nothing either way.
  if (module.readings.length > 0) module.diagnostics = true;
  else module.diagnostics = module.diagnostics === true ? null : false;
  return module;
}
