/**
 * Persistent forms of runtime changes: sysctl.d lines, systemd .link keys, NetworkManager
 * ethtool.* properties. systemd applies only the first .link file that matches a device, so
 * all ethtool settings of one interface must end up in one file.
 */
import type { EthtoolKind } from './operations.js';

const FEATURE_LINK_KEYS: Record<string, string> = {
  tso: 'TCPSegmentationOffload',
  'tcp-segmentation-offload': 'TCPSegmentationOffload',
  'tx-tcp6-segmentation': 'TCP6SegmentationOffload',
  gso: 'GenericSegmentationOffload',
  'generic-segmentation-offload': 'GenericSegmentationOffload',
  gro: 'GenericReceiveOffload',
  'generic-receive-offload': 'GenericReceiveOffload',
  'rx-gro-hw': 'GenericReceiveOffloadHardware',
  lro: 'LargeReceiveOffload',
  'large-receive-offload': 'LargeReceiveOffload',
  rx: 'ReceiveChecksumOffload',
  'rx-checksumming': 'ReceiveChecksumOffload',
  tx: 'TransmitChecksumOffload',
  'tx-checksumming': 'TransmitChecksumOffload',
  rxvlan: 'ReceiveVLANCTAGHardwareAcceleration',
  txvlan: 'TransmitVLANCTAGHardwareAcceleration',
};

const CHANNEL_LINK_KEYS: Record<string, string> = {
  rx: 'RxChannels',
  tx: 'TxChannels',
  other: 'OtherChannels',
  combined: 'CombinedChannels',
};
const RING_LINK_KEYS: Record<string, string> = {
  rx: 'RxBufferSize',
  'rx-mini': 'RxMiniBufferSize',
  'rx-jumbo': 'RxJumboBufferSize',
  tx: 'TxBufferSize',
};
const PAUSE_LINK_KEYS: Record<string, string> = { rx: 'RxFlowControl', tx: 'TxFlowControl', autoneg: 'AutoNegotiationFlowControl' };
/** Coalescing: [key, unit suffix] (systemd takes time spans for the *Sec keys). */
const COALESCE_LINK_KEYS: Record<string, [string, string]> = {
  'adaptive-rx': ['UseAdaptiveRxCoalesce', ''],
  'adaptive-tx': ['UseAdaptiveTxCoalesce', ''],
  'rx-usecs': ['RxCoalesceSec', 'us'],
  'rx-usecs-irq': ['RxCoalesceIrqSec', 'us'],
  'rx-usecs-low': ['RxCoalesceLowSec', 'us'],
  'rx-usecs-high': ['RxCoalesceHighSec', 'us'],
  'tx-usecs': ['TxCoalesceSec', 'us'],
  'tx-usecs-irq': ['TxCoalesceIrqSec', 'us'],
  'tx-usecs-low': ['TxCoalesceLowSec', 'us'],
  'tx-usecs-high': ['TxCoalesceHighSec', 'us'],
  'rx-frames': ['RxMaxCoalescedFrames', ''],
  'rx-frames-irq': ['RxMaxCoalescedIrqFrames', ''],
  'rx-frames-low': ['RxMaxCoalescedLowFrames', ''],
  'rx-frames-high': ['RxMaxCoalescedHighFrames', ''],
  'tx-frames': ['TxMaxCoalescedFrames', ''],
  'tx-frames-irq': ['TxMaxCoalescedIrqFrames', ''],
  'tx-frames-low': ['TxMaxCoalescedLowFrames', ''],
  'tx-frames-high': ['TxMaxCoalescedHighFrames', ''],
  'stats-block-usecs': ['StatisticsBlockCoalesceSec', 'us'],
  'pkt-rate-low': ['CoalescePacketRateLow', ''],
  'pkt-rate-high': ['CoalescePacketRateHigh', ''],
  'sample-interval': ['CoalescePacketRateSampleIntervalSec', 's'],
};

const yesNo = (value: string) => (value === 'on' ? 'yes' : value === 'off' ? 'no' : value);

/** The .link [Link] key and value for one ethtool setting, or null when systemd has none. */
export function linkSetting(op: EthtoolKind, name: string, value: string): [string, string] | null {
  switch (op) {
    case 'ethtool-features': {
      const key = FEATURE_LINK_KEYS[name];
      return key ? [key, yesNo(value)] : null;
    }
    case 'ethtool-channels': {
      const key = CHANNEL_LINK_KEYS[name];
      return key ? [key, value] : null;
    }
    case 'ethtool-rings': {
      const key = RING_LINK_KEYS[name];
      return key ? [key, value] : null;
    }
    case 'ethtool-pause': {
      const key = PAUSE_LINK_KEYS[name];
      return key ? [key, yesNo(value)] : null;
    }
    case 'ethtool-coalesce': {
      const entry = COALESCE_LINK_KEYS[name];
      return entry ? [entry[0], entry[1] ? `${value}${entry[1]}` : yesNo(value)] : null;
    }
  }
}

const NM_PREFIX: Record<EthtoolKind, string> = {
  'ethtool-features': 'feature-',
  'ethtool-channels': 'channels-',
  'ethtool-rings': 'ring-',
  'ethtool-coalesce': 'coalesce-',
  'ethtool-pause': 'pause-',
};
const NM_NAMES: Record<string, string> = { 'adaptive-rx': 'adaptive-rx', 'adaptive-tx': 'adaptive-tx' };

/** `ethtool.feature-tso on`, `ethtool.ring-rx 4096`: NetworkManager (1.20+) ethtool properties. */
export function nmSetting(op: EthtoolKind, name: string, value: string): [string, string] {
  return [`ethtool.${NM_PREFIX[op]}${NM_NAMES[name] ?? name}`, value];
}

export interface SysctlLine {
  key: string;
  value: string;
}

/** Any sysctl key (the drop-in may hold vm.*, kernel.*): dotted, no path separators. */
const ANY_SYSCTL_KEY = /^[a-z][A-Za-z0-9_+-]*(\.[A-Za-z0-9_+-]+)+$/;
const PRINTABLE_VALUE = /^[\x20-\x7e]+$/;

export function isSysctlDropIn(file: string): boolean {
  return /^\/etc\/sysctl\.d\/[^/]+\.conf$/.test(file) || file === '/etc/sysctl.conf';
}

/**
 * systemd's OriginalName= and udev's NAME== take shell-style globs (fnmatch; udev also `|`, and a
 * leading `!` inverts a systemd match), and whether a backslash escapes depends on each parser.
 * An interface name with such a character (`*` is a valid name) would match other NICs, so it is
 * never written into a match: the caller says so instead.
 */
export function isLiteralMatchName(name: string): boolean {
  return !/[*?[\]\\|!"]/.test(name);
}

export function isLinkFile(file: string): boolean {
  return /^\/etc\/systemd\/network\/[^/]+\.link$/.test(file);
}

/** `key = value` lines of a sysctl.d file; comments and blank lines dropped, bad lines reported. */
export function parseSysctlConf(content: string): { lines: SysctlLine[]; rejected: string[] } {
  const lines: SysctlLine[] = [];
  const rejected: string[] = [];
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const equals = line.indexOf('=');
    const key = equals > 0 ? line.slice(0, equals).trim().replace(/^-/, '') : '';
    const value =
      equals > 0
        ? line
            .slice(equals + 1)
            .trim()
            .split(/\s+/)
            .join(' ')
        : '';
    if (ANY_SYSCTL_KEY.test(key) && value && PRINTABLE_VALUE.test(value)) lines.push({ key, value });
    else rejected.push(line);
  }
  return { lines, rejected };
}

/** [Match] and [Link] of a .link file: keys in order; other sections are ignored. */
export function parseLinkFile(content: string): { match: [string, string][]; link: [string, string][] } {
  const result = { match: [] as [string, string][], link: [] as [string, string][] };
  let section = '';
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      continue;
    }
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const entry: [string, string] = [line.slice(0, equals).trim(), line.slice(equals + 1).trim()];
    if (!/^[A-Za-z0-9]+$/.test(entry[0]) || !PRINTABLE_VALUE.test(entry[1])) continue;
    if (section === 'Match') result.match.push(entry);
    else if (section === 'Link') result.link.push(entry);
  }
  return result;
}
