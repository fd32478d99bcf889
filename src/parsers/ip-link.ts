import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/** One interface of `ip -d -s link show` (text; iproute2 of any age). */
export interface IpLink {
  name: string;
  /** The peer or lower device after "@" (`veth0@if5`, `eth0.31@eth0`), null when absent. */
  lower: string | null;
  flags: string[];
  mtu: number | null;
  state: string | null;
  master: string | null;
  /** link/ether, link/loopback, link/none, ... without the "link/" prefix. */
  linkType: string | null;
  /** `-d` detail: the kind of a software device (veth, vxlan, bridge, bond, vlan, tun, ifb, ...), null for hardware. */
  kind: string | null;
  /** `-d` detail: the kind of port this device is in a master (bridge_slave, bond_slave, team_slave). */
  slaveKind: string | null;
  /** `-d` detail on newer iproute2: "parentbus pci parentdev 0000:41:00.0", "parentbus virtio". */
  parentBus: string | null;
  parentDev: string | null;
  /** `-s` counters; null when the output has none. */
  rx: IpLinkCounters | null;
  tx: IpLinkCounters | null;
}

/** Column name → value, as headed in the output ("bytes", "packets", "errors", "dropped", "missed"/"overrun", ...). */
export type IpLinkCounters = Record<string, number>;

/** Words that open a `-d` detail line but are attributes, not a device kind. */
const NOT_A_KIND = new Set([
  'addrgenmode',
  'altname',
  'alias',
  'vf',
  'prop',
  'link-netns',
  'link-netnsid',
  'RX:',
  'TX:',
  'RX',
  'TX',
  'promiscuity',
  'inet',
  'inet6',
  'valid_lft',
]);
const HEADER = /^(\d+):\s+([^:@\s]+)(?:@([^:\s]+))?:\s+<([^>]*)>(.*)$/;

export function parseIpLink(text: string): IpLink[] {
  const links: IpLink[] = [];
  let current: IpLink | null = null;
  let pending: { side: 'rx' | 'tx'; columns: string[] } | null = null;
  for (const line of lines(text)) {
    const header = HEADER.exec(line);
    if (header) {
      const rest = header[5]!;
      current = {
        name: header[2]!,
        lower: header[3] ?? null,
        flags: header[4]!.split(',').filter(Boolean),
        mtu: numberAfter(rest, 'mtu'),
        state: wordAfter(rest, 'state')?.toLowerCase() ?? null,
        master: wordAfter(rest, 'master'),
        linkType: null,
        kind: null,
        slaveKind: null,
        parentBus: null,
        parentDev: null,
        rx: null,
        tx: null,
      };
      links.push(current);
      pending = null;
      continue;
    }
    if (!current) continue;
    const trimmed = line.trim();
    if (!trimmed) continue;
    if (pending) {
      const values = trimmed.split(/\s+/);
      if (values.every((value) => /^\d+$/.test(value))) {
        const counters: IpLinkCounters = {};
        pending.columns.forEach((column, index) => {
          if (values[index] !== undefined) counters[column] = Number(values[index]);
        });
        current[pending.side] = counters;
      }
      pending = null;
      continue;
    }
    const stats = /^(RX|TX)(?: errors)?:(.*)$/.exec(trimmed);
    if (stats) {
      // "RX errors:" lines of `-s -s` add columns to the same side; keep the first block.
      if (/^(RX|TX) errors:/.test(trimmed)) continue;
      pending = {
        side: stats[1] === 'RX' ? 'rx' : 'tx',
        columns: stats[2]!
          .split(/\s+/)
          .filter(Boolean)
          .map((column) => column.replace(/:$/, '')),
      };
      continue;
    }
    const link = /^link\/(\S+)/.exec(trimmed);
    if (link) {
      current.linkType = link[1]!;
      readParent(current, trimmed);
      continue;
    }
    const first = trimmed.split(/\s+/, 1)[0]!;
    readParent(current, trimmed);
    if (!/^[a-z][a-z0-9_]*$/i.test(first) || NOT_A_KIND.has(first)) continue;
    if (/_slave$/.test(first)) current.slaveKind ??= first;
    else current.kind ??= first;
  }
  if (links.length === 0 && text.trim()) throw new ParseError('ip link: no interface header ("2: eth0: <...> mtu 1500 ...") found');
  return links;
}

function readParent(link: IpLink, line: string): void {
  link.parentBus ??= wordAfter(line, 'parentbus');
  link.parentDev ??= wordAfter(line, 'parentdev');
}

function wordAfter(text: string, key: string): string | null {
  return new RegExp(`(?:^|\\s)${key} (\\S+)`).exec(text)?.[1] ?? null;
}

function numberAfter(text: string, key: string): number | null {
  const word = wordAfter(text, key);
  return word !== null && /^\d+$/.test(word) ? Number(word) : null;
}
