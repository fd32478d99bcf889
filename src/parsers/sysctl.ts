import { ParseError } from './parse-error.js';
import { lines, parseOptionalNumber } from './text.js';

/** The sysctls that decide how fast TCP can go (CAUSES.md causes 10, 11, 15, 17). */
export const SYSCTL_NET_KEYS = [
  'net.core.rmem_max',
  'net.core.wmem_max',
  'net.core.rmem_default',
  'net.core.wmem_default',
  'net.core.netdev_max_backlog',
  'net.core.netdev_budget',
  'net.core.netdev_budget_usecs',
  'net.core.default_qdisc',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
  'net.ipv4.tcp_congestion_control',
  'net.ipv4.tcp_available_congestion_control',
  'net.ipv4.tcp_mtu_probing',
  'net.ipv4.tcp_timestamps',
  'net.ipv4.tcp_sack',
  'net.ipv4.tcp_window_scaling',
] as const;
export type SysctlNetKey = (typeof SYSCTL_NET_KEYS)[number];

/** tcp_rmem / tcp_wmem: minimum, default and autotuning maximum, in bytes. */
export interface TcpMem {
  min: number;
  default: number;
  max: number;
}

/** Network sysctls; null where the kernel does not have the key (older kernels, no IPv4). */
export interface SysctlNet {
  rmemMax: number | null;
  wmemMax: number | null;
  rmemDefault: number | null;
  wmemDefault: number | null;
  netdevMaxBacklog: number | null;
  netdevBudget: number | null;
  netdevBudgetUsecs: number | null;
  defaultQdisc: string | null;
  tcpRmem: TcpMem | null;
  tcpWmem: TcpMem | null;
  tcpCongestionControl: string | null;
  tcpAvailableCongestionControl: string[] | null;
  tcpMtuProbing: number | null;
  tcpTimestamps: number | null;
  tcpSack: number | null;
  tcpWindowScaling: number | null;
}

// "net.ipv4.conf.eth0/100.rp_filter = 1": keys hold no spaces; an empty value prints as "key = ".
const SYSCTL_LINE = /^([A-Za-z0-9_][^\s=]*) =(?: (.*))?$/;

/**
 * Parses `sysctl -a` output into key → value. Multi-field values keep their tabs
 * ("4096\t87380\t6291456"); a key printed on several lines (dev.cdrom.info) keeps every line,
 * joined with newlines. "sysctl: permission denied on key ..." lines (stderr mixed in) are skipped.
 */
export function parseSysctlAll(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const [index, line] of lines(text).entries()) {
    if (line.trim() === '' || line.startsWith('sysctl: ')) continue;
    const match = SYSCTL_LINE.exec(line);
    if (!match) throw new ParseError(`sysctl -a: line ${index + 1} is not "key = value": ${JSON.stringify(line.slice(0, 80))}`);
    const key = match[1]!;
    const value = match[2] ?? '';
    const previous = values.get(key);
    values.set(key, previous === undefined ? value : `${previous}\n${value}`);
  }
  if (values.size === 0) throw new ParseError('sysctl -a: no "key = value" lines');
  return values;
}

/** The value of one /proc/sys file: the kernel ends it with a newline. */
export function parseProcSysValue(text: string): string {
  return text.replace(/\r?\n$/, '').trimEnd();
}

/** /proc/sys path of a dotted sysctl key (net.core.rmem_max → /proc/sys/net/core/rmem_max). */
export function procSysPath(key: string): string {
  return `/proc/sys/${key.replace(/\./g, '/')}`;
}

function integer(key: string, value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const parsed = parseOptionalNumber(value);
  if (parsed === null) throw new ParseError(`${key}: expected an integer, got ${JSON.stringify(value)}`);
  return parsed;
}

function word(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

export function parseTcpMem(key: string, value: string | undefined): TcpMem | null {
  if (value === undefined || value.trim() === '') return null;
  const fields = value.trim().split(/\s+/);
  const numbers = fields.map((field) => parseOptionalNumber(field));
  if (numbers.length !== 3 || numbers.some((n) => n === null)) {
    throw new ParseError(`${key}: expected three integers (min default max), got ${JSON.stringify(value)}`);
  }
  const [min, def, max] = numbers as [number, number, number];
  return { min, default: def, max };
}

/**
 * Builds the typed fact from raw values, whichever way they were read (/proc/sys files live,
 * `sysctl -a` from a sosreport). `get` returns undefined for a key the kernel does not have.
 */
export function sysctlNetFrom(get: (key: SysctlNetKey) => string | undefined): SysctlNet {
  const available = get('net.ipv4.tcp_available_congestion_control');
  return {
    rmemMax: integer('net.core.rmem_max', get('net.core.rmem_max')),
    wmemMax: integer('net.core.wmem_max', get('net.core.wmem_max')),
    rmemDefault: integer('net.core.rmem_default', get('net.core.rmem_default')),
    wmemDefault: integer('net.core.wmem_default', get('net.core.wmem_default')),
    netdevMaxBacklog: integer('net.core.netdev_max_backlog', get('net.core.netdev_max_backlog')),
    netdevBudget: integer('net.core.netdev_budget', get('net.core.netdev_budget')),
    netdevBudgetUsecs: integer('net.core.netdev_budget_usecs', get('net.core.netdev_budget_usecs')),
    defaultQdisc: word(get('net.core.default_qdisc')),
    tcpRmem: parseTcpMem('net.ipv4.tcp_rmem', get('net.ipv4.tcp_rmem')),
    tcpWmem: parseTcpMem('net.ipv4.tcp_wmem', get('net.ipv4.tcp_wmem')),
    tcpCongestionControl: word(get('net.ipv4.tcp_congestion_control')),
    tcpAvailableCongestionControl: available === undefined ? null : available.trim().split(/\s+/).filter(Boolean),
    tcpMtuProbing: integer('net.ipv4.tcp_mtu_probing', get('net.ipv4.tcp_mtu_probing')),
    tcpTimestamps: integer('net.ipv4.tcp_timestamps', get('net.ipv4.tcp_timestamps')),
    tcpSack: integer('net.ipv4.tcp_sack', get('net.ipv4.tcp_sack')),
    tcpWindowScaling: integer('net.ipv4.tcp_window_scaling', get('net.ipv4.tcp_window_scaling')),
  };
}
