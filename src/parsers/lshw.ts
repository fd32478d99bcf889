import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/**
 * `lshw -class network` (or the network nodes of a whole `lshw`), in its text form:
 *
 *   *-network
 *        description: Ethernet interface
 *        product: RTL8125 2.5GbE Controller
 *        bus info: pci@0000:03:00.0
 *        logical name: eth1
 *        size: 100Mbit/s                     (the speed the link runs at)
 *        capacity: 2500Mbit/s                (the fastest the NIC can do)
 *        capabilities: ... 10bt 100bt-fd 1000bt-fd 2500bt-fd autonegotiation
 *        configuration: autonegotiation=on driver=r8169 duplex=full link=yes speed=100Mbit/s
 *
 * lshw reads the speed and the supported modes from the driver (the ethtool ioctl), so they are
 * the same facts `ethtool <if>` prints, one step removed. A node for a port with no link has
 * neither `size` nor `speed=`; a disabled one prints `*-network DISABLED`.
 */

export interface LshwNetwork {
  logicalName: string | null;
  /** "0000:03:00.0" from "pci@0000:03:00.0"; null for a device not on PCI. */
  busInfo: string | null;
  product: string | null;
  /** `size:` or, when absent, `speed=` in the configuration line. */
  speedMbps: number | null;
  /** `capacity:` */
  capacityMbps: number | null;
  /** The link modes among `capabilities:`, in ethtool's spelling ("1000baseT/Full"). */
  linkModes: string[];
  autoneg: boolean | null;
  duplex: 'full' | 'half' | null;
  /** configuration `link=yes|no`. */
  link: boolean | null;
  driver: string | null;
  driverVersion: string | null;
  firmware: string | null;
  /** lshw printed `*-network DISABLED`: the interface is down. */
  disabled: boolean;
}

const MAX_NODES = 512;
const NODE = /^\s*\*-network(?::\d{1,4})?(?:\s+(DISABLED|UNCLAIMED))?\s*$/;
/** Any other node starts: the network node ends there. */
const OTHER_NODE = /^\s*\*-[\w:.-]/;
const FIELD = /^\s*([a-z][a-z ]{1,24}):\s?(.*)$/;
const RATE = /^(\d{1,9}(?:\.\d{1,6})?)\s?([kMGT]?)(?:bit|b)\/s$/i;
/** lshw's capability names of BASE-T modes: "10bt", "100bt-fd", "1000bt-fd", "2500bt-fd", "10000bt-fd". */
const BT_MODE = /^(\d{2,6})bt(-fd)?$/;

const UNIT: Record<string, number> = { '': 1e-6, k: 1e-3, m: 1, g: 1000, t: 1_000_000 };

/** "2500Mbit/s" → 2500, "1Gbit/s" → 1000, "10Gbit/s" → 10000. */
export function lshwRateMbps(text: string): number | null {
  const match = RATE.exec(text.trim());
  if (!match) return null;
  const value = Number(match[1]) * UNIT[match[2]!.toLowerCase()]!;
  return Number.isFinite(value) && value > 0 ? Math.round(value) : null;
}

/** Reads every network node; a text with none is not lshw's network class. */
export function parseLshwNetwork(text: string): LshwNetwork[] {
  const result: LshwNetwork[] = [];
  let current: LshwNetwork | null = null;
  for (const line of lines(text)) {
    const node = NODE.exec(line);
    if (node) {
      if (result.length >= MAX_NODES) break;
      current = emptyNode(node[1] === 'DISABLED');
      result.push(current);
      continue;
    }
    if (OTHER_NODE.test(line)) {
      current = null;
      continue;
    }
    if (!current) continue;
    const field = FIELD.exec(line);
    if (field) readField(current, field[1]!, field[2]!.trim());
  }
  if (result.length === 0) throw new ParseError('no "*-network" node: not the output of lshw -class network');
  return result;
}

function emptyNode(disabled: boolean): LshwNetwork {
  return {
    logicalName: null,
    busInfo: null,
    product: null,
    speedMbps: null,
    capacityMbps: null,
    linkModes: [],
    autoneg: null,
    duplex: null,
    link: null,
    driver: null,
    driverVersion: null,
    firmware: null,
    disabled,
  };
}

function readField(node: LshwNetwork, key: string, value: string): void {
  switch (key) {
    case 'logical name':
      // A node lists its interface first, then (lshw B.02.19+) other names such as /dev/fb0.
      if (!value.startsWith('/')) node.logicalName ??= value.split(/\s/, 1)[0] || null;
      break;
    case 'bus info': {
      const pci = /^pci@((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])$/i.exec(value);
      if (pci) node.busInfo = pci[1]!.length === 7 ? `0000:${pci[1]!.toLowerCase()}` : pci[1]!.toLowerCase();
      break;
    }
    case 'product':
      node.product = value || null;
      break;
    case 'size':
      node.speedMbps = lshwRateMbps(value) ?? node.speedMbps;
      break;
    case 'capacity':
      node.capacityMbps = lshwRateMbps(value);
      break;
    case 'capabilities':
      node.linkModes = linkModesOf(value.split(/\s+/));
      break;
    case 'configuration':
      readConfiguration(node, value);
      break;
  }
}

/** "10bt 10bt-fd 100bt-fd 1000bt-fd" → ["10baseT/Half", "10baseT/Full", "100baseT/Full", "1000baseT/Full"]. */
function linkModesOf(capabilities: string[]): string[] {
  const modes: string[] = [];
  for (const capability of capabilities.slice(0, 200)) {
    const bt = BT_MODE.exec(capability);
    if (bt) modes.push(`${bt[1]}baseT/${bt[2] ? 'Full' : 'Half'}`);
  }
  return modes;
}

/** `key=value` pairs; a value may hold spaces ("firmware=rtl8125b-2_0.0.2 07/13/20"), so each key starts a pair. */
function readConfiguration(node: LshwNetwork, text: string): void {
  const pairs = new Map<string, string>();
  let key: string | null = null;
  for (const word of text.split(/\s+/).slice(0, 100)) {
    const eq = word.indexOf('=');
    if (eq > 0 && /^[a-z]+$/.test(word.slice(0, eq))) {
      key = word.slice(0, eq);
      pairs.set(key, word.slice(eq + 1));
    } else if (key) pairs.set(key, `${pairs.get(key)} ${word}`);
  }
  const on = (value: string | undefined) => (value === 'on' || value === 'yes' ? true : value === 'off' || value === 'no' ? false : null);
  node.autoneg = on(pairs.get('autonegotiation'));
  node.link = on(pairs.get('link'));
  const duplex = pairs.get('duplex');
  node.duplex = duplex === 'full' || duplex === 'half' ? duplex : null;
  node.driver = pairs.get('driver') ?? null;
  node.driverVersion = pairs.get('driverversion') ?? null;
  node.firmware = pairs.get('firmware') ?? null;
  const speed = pairs.get('speed');
  if (node.speedMbps === null && speed) node.speedMbps = lshwRateMbps(speed);
}

/**
 * What `ethtool <if>` would print for this node: lshw read the same driver answers. lshw does not
 * show the advertised modes, so none are written (the supported ones stand for both, as when
 * ethtool omits the list).
 */
export function lshwAsEthtoolSettings(node: LshwNetwork): string {
  const name = node.logicalName ?? 'unknown';
  const out = [`Settings for ${name}:`];
  if (node.linkModes.length) out.push(`\tSupported link modes:   ${node.linkModes.join(' ')}`);
  if (node.speedMbps !== null) out.push(`\tSpeed: ${node.speedMbps}Mb/s`);
  else if (node.link === false) out.push('\tSpeed: Unknown!');
  if (node.duplex) out.push(`\tDuplex: ${node.duplex === 'full' ? 'Full' : 'Half'}`);
  if (node.autoneg !== null) out.push(`\tAuto-negotiation: ${node.autoneg ? 'on' : 'off'}`);
  if (node.link !== null) out.push(`\tLink detected: ${node.link ? 'yes' : 'no'}`);
  return out.join('\n') + '\n';
}

/** What `ethtool -i <if>` would print for this node. */
export function lshwAsEthtoolDriver(node: LshwNetwork): string | null {
  if (!node.driver) return null;
  const out = [`driver: ${node.driver}`];
  if (node.driverVersion) out.push(`version: ${node.driverVersion}`);
  if (node.firmware) out.push(`firmware-version: ${node.firmware}`);
  if (node.busInfo) out.push(`bus-info: ${node.busInfo}`);
  return out.join('\n') + '\n';
}
