import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/** `ethtool <if>`: link modes, negotiated speed and link state, as printed. */
export interface EthtoolSettings {
  /** The name after "Settings for". */
  interface: string;
  /** null: the line was not printed; []: printed but empty ("[  ]", "Not reported"). */
  supportedPorts: string[] | null;
  supportedLinkModes: string[] | null;
  supportedPauseFrameUse: string | null;
  supportsAutoNegotiation: boolean | null;
  advertisedLinkModes: string[] | null;
  advertisedPauseFrameUse: string | null;
  advertisedAutoNegotiation: boolean | null;
  linkPartnerAdvertisedLinkModes: string[] | null;
  linkPartnerAdvertisedPauseFrameUse: string | null;
  linkPartnerAdvertisedAutoNegotiation: boolean | null;
  /** Negotiated speed; null for "Unknown!" or when the driver prints none (ENA). */
  speedMbps: number | null;
  /** True when ethtool printed "Speed: Unknown!" (no speed resolved: for a PHY, no link), absent otherwise. */
  speedUnknown?: true;
  duplex: 'full' | 'half' | null;
  autoNegotiation: boolean | null;
  port: string | null;
  transceiver: string | null;
  linkDetected: boolean | null;
  /** What ethtool could not read ("Cannot get wake-on-lan settings: Operation not permitted"). */
  warnings: string[];
}

// Keys whose value is a list of link modes that may continue on the following lines.
const LIST_KEYS = new Set(['Supported link modes', 'Advertised link modes', 'Link partner advertised link modes']);
// Lines ethtool prints when part of the query failed (non-root, driver without the op).
const NOISE = /^(Cannot get|Cannot read|netlink error|No data available)/i;
// Added by whoever saved the capture ("# ethtool eth0").
const COMMENT = /^#/;

/**
 * Parses `ethtool <if>`. Tolerates the lines a non-root run adds before or inside the block,
 * and the different indentation of copies (tabs, spaces). Throws ParseError when there is no
 * "Settings for" block or a line cannot be placed.
 */
export function parseEthtoolSettings(text: string): EthtoolSettings {
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const warnings: string[] = [];
  let name: string | null = null;
  let currentKey: string | null = null;

  for (const raw of lines(text)) {
    const line = raw.trim();
    if (!line || COMMENT.test(line)) continue;
    if (NOISE.test(line)) {
      warnings.push(line);
      continue;
    }
    const banner = /^Settings for (\S+?):$/.exec(line);
    if (banner) {
      if (name !== null) throw new ParseError(`ethtool settings: a second "Settings for" block (${banner[1]!}) after ${name}`);
      name = banner[1]!;
      continue;
    }
    if (name === null) continue; // other text before the block (shell prompts, stderr)
    const colon = line.indexOf(':');
    if (colon > 0) {
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      currentKey = key;
      values.set(key, value);
      if (LIST_KEYS.has(key)) lists.set(key, modeTokens(value));
      continue;
    }
    // A line without a colon continues the previous key: more link modes, or the names of
    // the message-level bits ("drv probe link"), which are not needed.
    if (currentKey === null) throw new ParseError(`ethtool settings: unexpected line "${line}" after "Settings for ${name}:"`);
    // One by one: spreading a 1 MB line into push() overflows the stack.
    if (LIST_KEYS.has(currentKey)) for (const token of modeTokens(line)) lists.get(currentKey)!.push(token);
  }

  if (name === null) throw new ParseError('ethtool settings: no "Settings for <if>:" line; not `ethtool <if>` output');
  if (values.size === 0) throw new ParseError(`ethtool settings: nothing after "Settings for ${name}:" (truncated output?)`);

  const textValue = (key: string) => {
    const value = values.get(key);
    return value === undefined || value === '' ? null : value;
  };
  return {
    interface: name,
    supportedPorts: parsePorts(values.get('Supported ports')),
    supportedLinkModes: lists.get('Supported link modes') ?? null,
    supportedPauseFrameUse: textValue('Supported pause frame use'),
    supportsAutoNegotiation: yesNo(values.get('Supports auto-negotiation')),
    advertisedLinkModes: lists.get('Advertised link modes') ?? null,
    advertisedPauseFrameUse: textValue('Advertised pause frame use'),
    advertisedAutoNegotiation: yesNo(values.get('Advertised auto-negotiation')),
    linkPartnerAdvertisedLinkModes: lists.get('Link partner advertised link modes') ?? null,
    linkPartnerAdvertisedPauseFrameUse: textValue('Link partner advertised pause frame use'),
    linkPartnerAdvertisedAutoNegotiation: yesNo(values.get('Link partner advertised auto-negotiation')),
    speedMbps: parseSpeed(values.get('Speed')),
    ...(/^Unknown/i.test(values.get('Speed') ?? '') ? { speedUnknown: true as const } : {}),
    duplex: parseDuplex(values.get('Duplex')),
    autoNegotiation: yesNo(values.get('Auto-negotiation')),
    port: textValue('Port'),
    transceiver: textValue('Transceiver'),
    linkDetected: yesNo(values.get('Link detected')),
    warnings,
  };
}

function modeTokens(value: string): string[] {
  if (/^Not reported$/i.test(value)) return [];
  return value.split(/\s+/).filter(Boolean);
}

function parsePorts(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  return value.replace(/[[\]]/g, ' ').split(/\s+/).filter(Boolean);
}

function yesNo(value: string | undefined): boolean | null {
  if (value === undefined) return null;
  const word = value.toLowerCase().split(/\s/)[0];
  if (word === 'yes' || word === 'on') return true;
  if (word === 'no' || word === 'off') return false;
  return null;
}

function parseSpeed(value: string | undefined): number | null {
  const match = /^(\d+)\s*Mb\/s$/.exec(value ?? '');
  return match ? Number.parseInt(match[1]!, 10) : null;
}

function parseDuplex(value: string | undefined): 'full' | 'half' | null {
  const word = value?.toLowerCase();
  return word === 'full' ? 'full' : word === 'half' ? 'half' : null;
}
