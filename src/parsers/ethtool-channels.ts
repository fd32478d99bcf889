import { ParseError } from './parse-error.js';
import { contentLines, ethtoolCount, ethtoolHeader, ethtoolSection } from './text.js';

/**
 * One block of `ethtool -l`. null = "n/a" (ethtool 5+ netlink) or absent; ethtool 4.x (ioctl)
 * prints 0 for the same thing, kept as 0 because that is what the driver answered.
 */
export interface ChannelCounts {
  rx: number | null;
  tx: number | null;
  other: number | null;
  combined: number | null;
}

export interface EthtoolChannels {
  /** Interface named in the "Channel parameters for <if>:" header, when present. */
  interface: string | null;
  max: ChannelCounts;
  current: ChannelCounts;
}

const FIELDS: Record<string, keyof ChannelCounts> = { rx: 'rx', tx: 'tx', other: 'other', combined: 'combined' };

function emptyCounts(): ChannelCounts {
  return { rx: null, tx: null, other: null, combined: null };
}

/** Parses `ethtool -l <if>` ("Pre-set maximums:" and "Current hardware settings:" blocks). */
export function parseEthtoolChannels(text: string): EthtoolChannels {
  const result: EthtoolChannels = { interface: null, max: emptyCounts(), current: emptyCounts() };
  let section: 'max' | 'current' | null = null;
  const seen = { max: 0, current: 0 };
  for (const line of contentLines(text)) {
    const header = ethtoolHeader(line, 'Channel');
    if (header) {
      result.interface = header;
      continue;
    }
    const opens = ethtoolSection(line);
    if (opens) {
      section = opens;
      continue;
    }
    const field = /^([A-Za-z]+):\s*(\S*)$/.exec(line);
    const key = field ? FIELDS[field[1]!.toLowerCase()] : undefined;
    if (!field || !key) {
      // Other lines (warnings before the header) are not ours to judge, but a value line
      // outside a section means this is not ethtool -l output.
      continue;
    }
    if (!section) throw new ParseError(`ethtool -l: "${line}" appears before "Pre-set maximums:"`);
    result[section][key] = ethtoolCount('ethtool -l', field[1]!, field[2]!);
    seen[section] += 1;
  }
  if (seen.max === 0 || seen.current === 0) {
    throw new ParseError('ethtool -l: no "Pre-set maximums" and "Current hardware settings" values found');
  }
  return result;
}

/** Channel layout the driver uses: one pool of combined rx+tx channels, or separate rx/tx. */
export type ChannelMode = 'combined' | 'separate' | 'none';

export function channelMode(channels: EthtoolChannels): ChannelMode {
  if ((channels.max.combined ?? 0) > 0) return 'combined';
  if ((channels.max.rx ?? 0) > 0 || (channels.max.tx ?? 0) > 0) return 'separate';
  return 'none';
}

/**
 * Receive queues in use: combined channels plus dedicated rx channels (bnxt-style drivers
 * allow both). ethtool's 0 and "n/a" both count as none.
 */
export function currentRxQueues(channels: EthtoolChannels): number {
  return (channels.current.combined ?? 0) + (channels.current.rx ?? 0);
}
