import { ParseError } from './parse-error.js';
import {
  contentLines,
  ethtoolCount,
  ethtoolHeader,
  ethtoolSection,
  isJsonOutput,
  parseJsonOutput,
  parseOnOff,
  parseOptionalNumber,
} from './text.js';

/**
 * Ring sizes of one block of `ethtool -g`. null = "n/a" or absent; ethtool 4.x (ioctl)
 * prints 0 for a ring the driver does not have, kept as 0 because that is what it answered.
 */
export interface RingSizes {
  rx: number | null;
  rxMini: number | null;
  rxJumbo: number | null;
  tx: number | null;
}

export interface EthtoolRings {
  /** Interface named in the "Ring parameters for <if>:" header or the JSON "ifname". */
  interface: string | null;
  max: RingSizes;
  /** All null when the output stops after the maximums (a cut-off paste). */
  current: RingSizes;
  /** Newer ethtool (netlink) only; null when absent or "n/a". */
  rxBufLen: number | null;
  cqeSize: number | null;
  txPush: boolean | null;
  rxPush: boolean | null;
  tcpDataSplit: string | null;
}

const SIZE_FIELDS: Record<string, keyof RingSizes> = { rx: 'rx', 'rx mini': 'rxMini', 'rx jumbo': 'rxJumbo', tx: 'tx' };

function emptySizes(): RingSizes {
  return { rx: null, rxMini: null, rxJumbo: null, tx: null };
}

function emptyRings(name: string | null): EthtoolRings {
  return {
    interface: name,
    max: emptySizes(),
    current: emptySizes(),
    rxBufLen: null,
    cqeSize: null,
    txPush: null,
    rxPush: null,
    tcpDataSplit: null,
  };
}

/**
 * Parses every block of `ethtool -g` output: several interfaces may be concatenated. Accepts
 * the text form (with or without the "Pre-set maximums:" / "Current hardware settings:"
 * headers: without them the first RX/TX group is the maximums) and `ethtool --json -g`.
 */
export function parseEthtoolRingBlocks(text: string): EthtoolRings[] {
  const blocks = isJsonOutput(text) ? parseJson(text.trimStart()) : parseText(text);
  if (blocks.length === 0 || blocks.every((block) => Object.values(block.max).every((value) => value === null))) {
    throw new ParseError('ethtool -g: no "Pre-set maximums" ring sizes found');
  }
  return blocks;
}

/** The block for `name` (or the first block): the fact for one interface. */
export function parseEthtoolRings(text: string, name?: string): EthtoolRings {
  const blocks = parseEthtoolRingBlocks(text);
  return (name ? blocks.find((block) => block.interface === name) : undefined) ?? blocks[0]!;
}

function parseText(text: string): EthtoolRings[] {
  const blocks: EthtoolRings[] = [];
  let block: EthtoolRings | null = null;
  let section: 'max' | 'current' = 'max';
  // Size fields already read in each section of the current block.
  let seen = { max: new Set<string>(), current: new Set<string>() };
  for (const line of contentLines(text)) {
    const header = ethtoolHeader(line, 'Ring');
    if (header) {
      block = emptyRings(header);
      blocks.push(block);
      section = 'max';
      seen = { max: new Set(), current: new Set() };
      continue;
    }
    const opens = ethtoolSection(line);
    if (opens) {
      section = opens;
      continue;
    }
    const field = /^([A-Za-z][A-Za-z ]*?):\s*(\S*)$/.exec(line);
    if (!field) continue;
    const name = field[1]!.toLowerCase();
    const value = field[2]!;
    const sizeKey = SIZE_FIELDS[name];
    if (sizeKey) {
      if (!block) {
        // Output without its header line: still one interface's block.
        block = emptyRings(null);
        blocks.push(block);
      }
      // Section headers can be missing (as pasted): a second RX/TX group is the current one.
      if (section === 'max' && seen.max.has(sizeKey)) section = 'current';
      if (section === 'current' && seen.current.has(sizeKey)) {
        throw new ParseError(`ethtool -g: "${field[1]}" appears twice in one block`);
      }
      seen[section].add(sizeKey);
      block[section][sizeKey] = ethtoolCount('ethtool -g', field[1]!, value);
      continue;
    }
    if (!block) continue;
    if (name === 'rx buf len') block.rxBufLen = parseOptionalNumber(value);
    else if (name === 'cqe size') block.cqeSize = parseOptionalNumber(value);
    else if (name === 'tx push') block.txPush = parseOnOff(value);
    else if (name === 'rx push') block.rxPush = parseOnOff(value);
    else if (name === 'tcp data split') block.tcpDataSplit = value && value !== 'n/a' ? value : null;
  }
  return blocks;
}

function jsonNumber(object: Record<string, unknown>, key: string): number | null {
  const value = object[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ParseError(`ethtool --json -g: "${key}" is not an integer`);
  return value;
}

function parseJson(text: string): EthtoolRings[] {
  const data = parseJsonOutput('ethtool --json -g', text);
  const objects = Array.isArray(data) ? data : [data];
  return objects.map((item) => {
    if (!item || typeof item !== 'object') throw new ParseError('ethtool --json -g: expected an array of objects');
    const object = item as Record<string, unknown>;
    const block = emptyRings(typeof object.ifname === 'string' ? object.ifname : null);
    block.max = {
      rx: jsonNumber(object, 'rx-max'),
      rxMini: jsonNumber(object, 'rx-mini-max'),
      rxJumbo: jsonNumber(object, 'rx-jumbo-max'),
      tx: jsonNumber(object, 'tx-max'),
    };
    block.current = {
      rx: jsonNumber(object, 'rx'),
      rxMini: jsonNumber(object, 'rx-mini'),
      rxJumbo: jsonNumber(object, 'rx-jumbo'),
      tx: jsonNumber(object, 'tx'),
    };
    block.rxBufLen = jsonNumber(object, 'rx-buf-len');
    block.cqeSize = jsonNumber(object, 'cqe-size');
    block.txPush = typeof object['tx-push'] === 'boolean' ? object['tx-push'] : null;
    block.rxPush = typeof object['rx-push'] === 'boolean' ? object['rx-push'] : null;
    block.tcpDataSplit = typeof object['tcp-data-split'] === 'string' ? object['tcp-data-split'] : null;
    return block;
  });
}
