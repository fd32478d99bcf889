import { ParseError } from './parse-error.js';
import { isJsonOutput, lines, parseJsonOutput } from './text.js';

/** One line of `ethtool -k`, or one key of `ethtool --json -k`. */
export interface OffloadFeature {
  active: boolean;
  /**
   * The driver does not let it change ("[fixed]"). For a group line such as
   * tcp-segmentation-offload (which ethtool prints without a marker), true when every
   * sub-feature is fixed; null when there is no way to tell (a group without sub-features).
   */
  fixed: boolean | null;
  /** What was asked for; differs from active in "off [requested on]". null when not known. */
  requested: boolean | null;
  /** Sub-features printed below a group line (tx-tcp-segmentation, ...), in order. */
  children: string[];
}

export interface EthtoolFeatures {
  /** Interface named in the "Features for <if>:" header or the JSON "ifname", when present. */
  interface: string | null;
  format: 'text' | 'json';
  /** By ethtool's long name, in output order. */
  features: Record<string, OffloadFeature>;
}

/**
 * ethtool's legacy offload flags (off_flag_def in ethtool.c). Each prints either as a group
 * line followed by its sub-features or, when it maps to one feature, as that feature itself.
 * The JSON form gives no indentation, so these names are where a group's sub-features end.
 */
const OFFLOAD_FLAG_NAMES = new Set([
  'rx-checksumming',
  'tx-checksumming',
  'scatter-gather',
  'tcp-segmentation-offload',
  'udp-fragmentation-offload',
  'generic-segmentation-offload',
  'generic-receive-offload',
  'large-receive-offload',
  'rx-vlan-offload',
  'tx-vlan-offload',
  'ntuple-filters',
  'receive-hashing',
]);

const FEATURE_LINE = /^(\s*)([A-Za-z0-9_.-]+):\s+(on|off)(?:\s+\[(fixed|requested on|requested off|not requested)\])?$/;

/** Parses `ethtool -k <if>` text or `ethtool --json -k <if>` output (detected by its first character). */
export function parseEthtoolFeatures(text: string): EthtoolFeatures {
  const parsed = isJsonOutput(text) ? parseJson(text.trimStart()) : parseText(text);
  if (Object.keys(parsed.features).length === 0) throw new ParseError('ethtool -k: no "<feature>: on|off" lines found');
  resolveGroups(parsed.features);
  return parsed;
}

function parseText(text: string): EthtoolFeatures {
  const result: EthtoolFeatures = { interface: null, format: 'text', features: {} };
  let group: OffloadFeature | null = null;
  for (const line of lines(text)) {
    if (!line.trim()) continue;
    const header = /^Features for (\S+?):?$/.exec(line.trim());
    if (header) {
      result.interface = header[1]!;
      continue;
    }
    const match = FEATURE_LINE.exec(line);
    // Other lines ("Cannot get device udp-fragmentation-offload settings: ...") carry no state.
    if (!match) continue;
    const [, indent, name, state, marker] = match;
    const active = state === 'on';
    const fixed = marker === 'fixed';
    // ethtool marks only a difference; without a marker a changeable feature is as requested.
    const requested = marker?.startsWith('requested') ? marker === 'requested on' : fixed ? null : active;
    const feature: OffloadFeature = { active, fixed, requested, children: [] };
    if (indent && group) {
      group.children.push(name!);
    } else {
      group = feature;
    }
    result.features[name!] = feature;
  }
  return result;
}

interface JsonFeature {
  active?: unknown;
  fixed?: unknown;
  requested?: unknown;
}

function parseJson(text: string): EthtoolFeatures {
  const data = parseJsonOutput('ethtool --json -k', text);
  const object: unknown = Array.isArray(data) ? data[0] : data;
  if (!object || typeof object !== 'object') throw new ParseError('ethtool --json -k: expected an array with one object');
  const result: EthtoolFeatures = { interface: null, format: 'json', features: {} };
  let group: OffloadFeature | null = null;
  for (const [name, value] of Object.entries(object as Record<string, unknown>)) {
    if (name === 'ifname') {
      result.interface = typeof value === 'string' ? value : null;
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    const entry = value as JsonFeature;
    if (typeof entry.active !== 'boolean') throw new ParseError(`ethtool --json -k: feature ${name} has no boolean "active"`);
    const fixed = typeof entry.fixed === 'boolean' ? entry.fixed : null;
    const requested = typeof entry.requested === 'boolean' ? entry.requested : null;
    const feature: OffloadFeature = { active: entry.active, fixed, requested, children: [] };
    // Group entries carry fixed/requested null; their sub-features follow until the next flag name.
    if (OFFLOAD_FLAG_NAMES.has(name)) {
      group = fixed === null ? feature : null;
    } else if (group && fixed !== null) {
      group.children.push(name);
    } else {
      group = null;
    }
    result.features[name] = feature;
  }
  return result;
}

/** A group is as fixed as its sub-features, and "requested on" when any of them asked for on. */
function resolveGroups(features: Record<string, OffloadFeature>): void {
  for (const feature of Object.values(features)) {
    if (feature.children.length === 0) continue;
    const children = feature.children.map((name) => features[name]!);
    feature.fixed = children.every((child) => child.fixed === true);
    if (children.some((child) => child.requested === true)) feature.requested = true;
    else if (children.every((child) => child.requested === false || child.fixed === true)) feature.requested = false;
    else feature.requested = null;
  }
}
