import { lines } from './text.js';
import { PCI_ADDRESS, linkEvent, message, parseKernelLog, prefixOf } from './kernel-log.js';

/**
 * Fault events in a kernel log (dmesg, `journalctl -k`, /var/log/kern.log or messages, lines
 * pasted into a ticket), each kind counted per device with its first and last time:
 *
 * - link-flap: a "Link is Down" after the same port was up, or with no "up" before it long after
 *   boot (an excerpt that starts while the link was up); each driver's link wording, as in kernel-log.ts;
 * - tx-timeout: `NETDEV WATCHDOG: eth0 (e1000e): transmit queue 0 timed out` (and the 6.x
 *   "eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out 5010 ms"), the drivers' own
 *   timeout lines (i40e/ice "tx_timeout:", mlx5/bnxt "TX timeout", tg3 "transmit timed out");
 * - tx-hang: igb/ixgbe/e1000e "Detected Tx Unit Hang" / "Detected Hardware Unit Hang", ixgbe "tx hang N detected";
 * - adapter-reset: "Reset adapter unexpectedly" (e1000e), "initiating reset due to tx timeout" (ixgbe), PF resets;
 * - aer-corrected / aer-uncorrected: PCIe AER reports, on the device that printed the error or
 *   the one the root port names ("error received: 0000:07:00.0", "from 0000:06:00.0");
 * - module-rejected: a transceiver the driver refused (ixgbe "unsupported SFP+ module type",
 *   i40e/ice "Rx/Tx is disabled on this device because an unsupported ... module type was
 *   detected", ice module power, mlx5 "Port module event[error]: ... Cable error, ...");
 * - firmware-fault: mlx5 health ("device's health compromised", "synd 0x..", command timeouts),
 *   firmware recovery mode and fatal firmware resets;
 * - mdd: Intel Malicious Driver Detection events (i40e/ice);
 * - conntrack-full: "nf_conntrack: table full, dropping packet";
 * - socket-memory: TCP's "out of memory -- consider tuning tcp_mem" (tcp_out_of_memory(), older
 *   kernels "Out of socket memory") and "too many orphaned sockets" (tcp_max_orphans): host-wide,
 *   the kernel refused socket buffers or closed connections;
 * - over-mtu: openvswitch's "dropped over-mtu packet: 1518 > 1500";
 * - page-alloc-failure: "page allocation failure: order:N" whose call trace is in the network stack.
 *
 * Every pattern is a substring test or an anchored, bounded expression on one line: the cost is
 * linear in the log. Lines longer than printk's limit are skipped (message() drops them).
 */
export const KERNEL_EVENT_KINDS = [
  'link-flap',
  'tx-timeout',
  'tx-hang',
  'adapter-reset',
  'aer-corrected',
  'aer-uncorrected',
  'module-rejected',
  'firmware-fault',
  'mdd',
  'conntrack-full',
  'socket-memory',
  'over-mtu',
  'page-alloc-failure',
] as const;
export type KernelEventKind = (typeof KERNEL_EVENT_KINDS)[number];

/** Which clock the log's times are in: seconds since boot (`[ 12.345]`), wall-clock dates, or none. */
export type KernelLogClock = 'uptime' | 'wall' | 'none';

export interface KernelEvent {
  kind: KernelEventKind;
  driver: string | null;
  /** The PCI function the event is about, when the line names one. */
  address: string | null;
  /** The interface's last name in the log (after renames), when known. */
  interface: string | null;
  /** A short tag for the variant ("watchdog", "health-compromised", "fatal"; a flap's "still-down" or "short-lived"), or null. */
  detail: string | null;
  count: number;
  /** The first and last time as printed ("Nov 17 13:16:56", "2025-08-29 20:09:52", "11314.654843 s"). */
  firstAt: string | null;
  lastAt: string | null;
  /** The same times in the log's clock, in seconds (since boot, or since an epoch for wall dates). */
  firstSeconds: number | null;
  lastSeconds: number | null;
  /** over-mtu: the packet and the MTU it exceeded. */
  packetBytes: number | null;
  mtuBytes: number | null;
  /** The first line of this event, without its time stamp. */
  line: string;
}

export interface KernelEvents {
  clock: KernelLogClock;
  /** The latest time in the log, in its clock: "now" for judging how long ago an event was. */
  endSeconds: number | null;
  events: KernelEvent[];
}

/** Distinct (kind, device, variant) groups kept at most: a log of a thousand devices is not a NIC host. */
const MAX_GROUPS = 500;
/**
 * Seconds after boot within which drivers probe and bring ports up: a "Link is Down" later than
 * this, with no "Link is Up" before it in the log, is a link that was up and went down.
 */
const PROBE_SECONDS = 600;
/**
 * A link that drops within this many seconds of coming up never held: negotiation or the signal
 * failed, not a cable pulled by hand (which leaves a port up for minutes or days first).
 */
const SHORT_LIVED_SECONDS = 60;
/** How many lines after "page allocation failure" its call trace is looked for. */
const TRACE_LINES = 40;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface Stamp {
  uptime: number | null;
  wall: number | null;
  wallLabel: string | null;
}

const SYSLOG_STAMP = /^[>\s]{0,40}([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d\d):(\d\d):(\d\d)\b/;
const ISO_STAMP = /^[>\s]{0,40}(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)/;
const CTIME_STAMP = /^[>\s]{0,40}\[[A-Z][a-z]{2} ([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})\]/;
const RELATIVE_STAMP = /^\[\s{0,12}\+[\d.]{1,20}\]\s{0,8}/;
const UPTIME_STAMP = /\[\s{0,12}(\d{1,12}\.\d{1,9})\]/;

function wallSeconds(year: number, month: number, day: number, h: string, m: string, s: string): number | null {
  const value = Date.UTC(year, month, day, Number(h), Number(m), Number(s)) / 1000;
  return Number.isFinite(value) ? value : null;
}

/** The times a line carries: syslog ("Nov 17 13:16:56", no year: read in one fixed year), ISO, `dmesg -T`, and `[ 12.3]`. */
function stampOf(raw: string): Stamp {
  const head = raw.slice(0, 200);
  let wall: number | null = null;
  let wallLabel: string | null = null;
  const ctime = CTIME_STAMP.exec(head);
  const iso = ctime ? null : ISO_STAMP.exec(head);
  const syslog = ctime || iso ? null : SYSLOG_STAMP.exec(head);
  if (ctime) {
    const month = MONTHS.indexOf(ctime[1]!);
    if (month >= 0) {
      wall = wallSeconds(Number(ctime[6]), month, Number(ctime[2]), ctime[3]!, ctime[4]!, ctime[5]!);
      wallLabel = `${ctime[6]}-${String(month + 1).padStart(2, '0')}-${ctime[2]!.padStart(2, '0')} ${ctime[3]}:${ctime[4]}:${ctime[5]}`;
    }
  } else if (iso) {
    wall = wallSeconds(Number(iso[1]), Number(iso[2]) - 1, Number(iso[3]), iso[4]!, iso[5]!, iso[6]!);
    wallLabel = `${iso[1]}-${iso[2]}-${iso[3]} ${iso[4]}:${iso[5]}:${iso[6]}`;
  } else if (syslog) {
    const month = MONTHS.indexOf(syslog[1]!);
    // A leap year, so that "Feb 29" is a date; the year itself is not in the line.
    if (month >= 0) wall = wallSeconds(2000, month, Number(syslog[2]), syslog[3]!, syslog[4]!, syslog[5]!);
    if (wall !== null) wallLabel = `${syslog[1]} ${syslog[2]} ${syslog[3]}:${syslog[4]}:${syslog[5]}`;
  }
  const uptime = UPTIME_STAMP.exec(head);
  return { uptime: uptime ? Number(uptime[1]) : null, wall, wallLabel };
}

interface Classified {
  kind: KernelEventKind;
  detail: string | null;
  driver?: string | null;
  iface?: string | null;
  address?: string | null;
  packetBytes?: number;
  mtuBytes?: number;
}

/** Substrings (lower case) → event kind and variant, in order: the first that a line contains wins. */
const PHRASES: ReadonlyArray<readonly [string, KernelEventKind, string | null]> = [
  ['detected tx unit hang', 'tx-hang', 'unit-hang'],
  ['detected hardware unit hang', 'tx-hang', 'unit-hang'],
  ['tx_timeout: vsi', 'tx-timeout', 'driver'],
  ['tx timeout detected', 'tx-timeout', 'driver'],
  ['tx timeout on queue', 'tx-timeout', 'driver'],
  ['transmit timed out', 'tx-timeout', 'driver'],
  ['tx hang ', 'tx-hang', 'tx-hang'],
  ['reset adapter unexpectedly', 'adapter-reset', null],
  ['initiating reset due to tx timeout', 'adapter-reset', null],
  ['resetting adapter', 'adapter-reset', null],
  ['pf reset issued', 'adapter-reset', null],
  ['unsupported sfp', 'module-rejected', 'unsupported'],
  ['unsupported qsfp', 'module-rejected', 'unsupported'],
  ['unsupported module type', 'module-rejected', 'unsupported'],
  ['unqualified module', 'module-rejected', 'unqualified'],
  ["module's power requirements exceed", 'module-rejected', 'power'],
  ['power budget exceeded', 'module-rejected', 'power'],
  ['cable error', 'module-rejected', 'cable-error'],
  ['health compromised', 'firmware-fault', 'health-compromised'],
  ['health poll failed', 'firmware-fault', 'health-poll-failed'],
  ['will cause a leak of a command resource', 'firmware-fault', 'command-timeout'],
  ['firmware recovery mode', 'firmware-fault', 'recovery-mode'],
  ['firmware fatal', 'firmware-fault', 'fatal'],
  ['fw fatal', 'firmware-fault', 'fatal'],
  ['fw health', 'firmware-fault', 'health'],
];

const WATCHDOG = 'NETDEV WATCHDOG: ';
/** Old: "eth0 (e1000e): transmit queue 0 timed out"; 6.x: "CPU: 3: transmit queue 0 timed out 5010 ms" after the device prefix. */
const WATCHDOG_OLD = /^([^\s:()]{1,15}) \(([\w.-]{1,32})\): transmit queue \d{1,5} timed out/;
const AER_BUS = /^PCIe Bus Error: severity=(Corrected|Correctable|Uncorrected|Uncorrectable)\b/;
const AER_RECEIVED =
  /^(?:Multiple )?(Corrected|Correctable|Uncorrected|Uncorrectable)(?: \((?:Non-Fatal|Fatal)\))? error (?:message )?received(?::| from)? ?([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])?/;
const MDD_EVENT = /Malicious Driver Detection event (?:0x)?\d/;
const OVER_MTU = /^([^\s:]{1,15}): dropped over-mtu packet: (\d{1,6}) > (\d{1,6})/;
/** Call-trace symbols of the network receive and socket paths (a page allocation failure there drops packets). */
const NET_TRACE = [
  'napi',
  'alloc_skb',
  'netdev_alloc',
  'page_frag_alloc',
  'net_rx_action',
  'netif_receive',
  'alloc_rx',
  'sk_prot_alloc',
  'tcp_',
  'skb_',
];
const TRACE_MODULE = /\[([\w-]{2,32})\]$/;

/**
 * TCP's own complaints about socket memory (net/ipv4/tcp.c tcp_out_of_memory / tcp_check_oom):
 * the tcp_mem limit was hit, or too many sockets were orphaned. They name no device: the whole
 * host's sockets share the limit.
 */
function socketMemoryDetail(line: string): 'tcp-mem' | 'orphans' | null {
  const lower = line.slice(0, 300).toLowerCase();
  if (!lower.includes('tcp') && !lower.includes('socket')) return null;
  // "TCP: out of memory -- consider tuning tcp_mem": its head alone, where a mailer cut the line.
  if (lower.includes('tcp: out of memory') || lower.includes('out of socket memory')) return 'tcp-mem';
  if (lower.includes('too many orphaned sockets')) return 'orphans';
  return null;
}

function classify(line: string): Classified | undefined {
  const watchdog = line.indexOf(WATCHDOG);
  if (watchdog >= 0) {
    const before = watchdog > 0 ? prefixOf(`${line.slice(0, watchdog).trimEnd()} x`) : undefined;
    const old = WATCHDOG_OLD.exec(line.slice(watchdog + WATCHDOG.length));
    if (old) return { kind: 'tx-timeout', detail: 'watchdog', driver: old[2]!, iface: old[1]!, address: null };
    const address = before?.bus && PCI_ADDRESS.test(before.bus) ? before.bus.toLowerCase() : null;
    return { kind: 'tx-timeout', detail: 'watchdog', driver: before?.driver ?? null, iface: before?.iface ?? null, address };
  }
  const prefixed = prefixOf(line);
  let body = prefixed?.body ?? line;
  if (body.startsWith('AER: ')) body = body.slice('AER: '.length);
  const bus = AER_BUS.exec(body);
  if (bus) return { kind: bus[1]!.startsWith('Uncorrect') ? 'aer-uncorrected' : 'aer-corrected', detail: 'bus-error' };
  const received = AER_RECEIVED.exec(body);
  if (received)
    return {
      kind: received[1]!.startsWith('Uncorrect') ? 'aer-uncorrected' : 'aer-corrected',
      detail: 'received',
      ...(received[2] ? { address: received[2].toLowerCase() } : {}),
    };
  if (line.includes('conntrack: table full')) return { kind: 'conntrack-full', detail: null };
  const socketMemory = socketMemoryDetail(line);
  if (socketMemory) return { kind: 'socket-memory', detail: socketMemory, driver: null, iface: null, address: null };
  const overIndex = line.indexOf(': dropped over-mtu packet: ');
  if (overIndex >= 0) {
    const start = line.lastIndexOf(' ', overIndex) + 1;
    const over = OVER_MTU.exec(line.slice(start));
    if (over) return { kind: 'over-mtu', detail: null, iface: over[1]!, packetBytes: Number(over[2]), mtuBytes: Number(over[3]) };
  }
  if (line.includes('Malicious Driver Detection')) return MDD_EVENT.test(line) ? { kind: 'mdd', detail: null } : undefined;
  if (line.includes('page allocation failure')) return { kind: 'page-alloc-failure', detail: null };
  const lower = body.slice(0, 300).toLowerCase();
  // mlx5 print_health_info: "synd 0x1: firmware internal error" (its "ext_synd" detail line is the same report).
  if (lower.includes('synd 0x') && !lower.includes('ext_synd')) return { kind: 'firmware-fault', detail: 'syndrome' };
  for (const [phrase, kind, detail] of PHRASES) if (lower.includes(phrase)) return { kind, detail };
  return undefined;
}

interface Group extends KernelEvent {
  /** AER: counted by "PCIe Bus Error" lines when the log has them, else by "error received" lines. */
  busErrors: number;
}

class EventTable {
  readonly groups = new Map<string, Group>();

  add(found: Classified & { driver: string | null; address: string | null; iface: string | null }, stamp: Stamp, line: string): void {
    const device = found.address ?? found.iface ?? '';
    // AER's two line forms are one count: the variant is not part of the key.
    const variant = found.kind.startsWith('aer-') ? '' : (found.detail ?? '');
    const key = `${found.kind}|${device}|${variant}`;
    let group = this.groups.get(key);
    if (!group) {
      if (this.groups.size >= MAX_GROUPS) return;
      group = {
        kind: found.kind,
        driver: found.driver,
        address: found.address,
        interface: found.iface,
        detail: found.kind.startsWith('aer-') ? null : found.detail,
        count: 0,
        busErrors: 0,
        firstAt: null,
        lastAt: null,
        firstSeconds: null,
        lastSeconds: null,
        packetBytes: found.packetBytes ?? null,
        mtuBytes: found.mtuBytes ?? null,
        line,
      };
      this.groups.set(key, group);
      stamps.set(group, []);
    }
    if (found.detail === 'bus-error') {
      group.busErrors += 1;
      // The device that printed the error is the one it is on (the root port only relays it).
      group.driver = found.driver ?? group.driver;
    } else group.count += 1;
    group.driver ??= found.driver;
    if (found.iface) group.interface = found.iface;
    stamps.get(group)!.push(stamp);
  }
}

/** Each group's stamps, in log order (kept aside so the result carries only the summary). */
const stamps = new WeakMap<Group, Stamp[]>();

function label(stamp: Stamp, clock: KernelLogClock): string | null {
  if (clock === 'wall') return stamp.wallLabel;
  if (clock === 'uptime') return stamp.uptime === null ? null : `${stamp.uptime} s after boot`;
  return null;
}

function seconds(stamp: Stamp, clock: KernelLogClock): number | null {
  return clock === 'wall' ? stamp.wall : clock === 'uptime' ? stamp.uptime : null;
}

/** Seconds from one stamp to a later one, in a clock both carry (uptime first: a wall date may lack the year). */
function elapsed(from: Stamp | undefined, to: Stamp): number | null {
  if (!from) return null;
  if (from.uptime !== null && to.uptime !== null) return to.uptime - from.uptime;
  if (from.wall !== null && to.wall !== null) return to.wall - from.wall;
  return null;
}

/** Reads the fault events of a kernel log; lines that say none of them are skipped. */
export function parseKernelEvents(text: string): KernelEvents {
  const table = new EventTable();
  const linkWasUp = new Map<string, boolean>();
  const linkUpSince = new Map<string, Stamp>();
  let sawWall = false;
  let sawUptime = false;
  let endWall: number | null = null;
  let endUptime: number | null = null;
  let trace: { line: string; stamp: Stamp; left: number } | null = null;
  const all = lines(text);
  for (const raw of all) {
    const stamp = stampOf(raw);
    if (stamp.wall !== null) {
      sawWall = true;
      endWall = Math.max(endWall ?? stamp.wall, stamp.wall);
    }
    if (stamp.uptime !== null) {
      sawUptime = true;
      endUptime = Math.max(endUptime ?? stamp.uptime, stamp.uptime);
    }
    // `dmesg -H` prints "[ +0.000006]" deltas: no time, but the device prefix follows.
    const line = message(raw.replace(RELATIVE_STAMP, ''));
    if (!line) continue;
    if (trace) {
      // A page allocation failure belongs to the network when its call trace runs through it.
      if (NET_TRACE.some((symbol) => line.includes(symbol))) {
        const module = TRACE_MODULE.exec(line)?.[1] ?? null;
        table.add({ kind: 'page-alloc-failure', detail: null, driver: module, address: null, iface: null }, trace.stamp, trace.line);
        trace = null;
      } else if (--trace.left <= 0) trace = null;
    }
    const found = classify(line);
    if (found?.kind === 'page-alloc-failure') {
      trace = { line, stamp, left: TRACE_LINES };
      continue;
    }
    const prefixed = prefixOf(line);
    const address = prefixed?.bus && PCI_ADDRESS.test(prefixed.bus) ? prefixed.bus.toLowerCase() : null;
    // What the line's device prefix says, where the classified message left it open.
    const withDevice = (event: Classified) => ({
      ...event,
      driver: event.driver !== undefined ? event.driver : (prefixed?.driver ?? null),
      address: event.address !== undefined ? event.address : address,
      iface: event.iface !== undefined ? event.iface : (prefixed?.iface ?? null),
    });
    // A log flattened into one line (a web page joined them): the message before the watchdog's
    // is an event of its own ("eth1: Detected Hardware Unit Hang ... NETDEV WATCHDOG: eth1 ..."),
    // as it is when the same log keeps its line breaks.
    const watchdogAt = found?.detail === 'watchdog' ? line.indexOf(WATCHDOG) : -1;
    const before = watchdogAt > 0 ? line.slice(0, watchdogAt).trimEnd() : '';
    const earlier = before ? classify(before) : undefined;
    if (earlier && earlier.detail !== 'watchdog') table.add(withDevice(earlier), stamp, before);
    if (found) {
      table.add(withDevice(found), stamp, line);
      continue;
    }
    if (!prefixed) continue;
    const link = linkEvent(prefixed.body);
    if (!link) continue;
    const device = address ?? prefixed.iface;
    if (!device) continue;
    // A port that goes down after it was up flapped (the first "down" at probe is not a flap). A
    // log excerpt may start after the port came up: a first "down" long after boot is a lost link too.
    const lostLink = linkWasUp.get(device) ?? (stamp.uptime !== null && stamp.uptime > PROBE_SECONDS);
    if (!link.up && lostLink) {
      const upFor = elapsed(linkWasUp.get(device) ? linkUpSince.get(device) : undefined, stamp);
      const detail = upFor !== null && upFor <= SHORT_LIVED_SECONDS ? 'short-lived' : null;
      table.add({ kind: 'link-flap', detail, driver: prefixed.driver, address, iface: prefixed.iface }, stamp, line);
    }
    if (link.up && !linkWasUp.get(device)) linkUpSince.set(device, stamp);
    linkWasUp.set(device, link.up);
  }
  const clock: KernelLogClock = sawWall ? 'wall' : sawUptime ? 'uptime' : 'none';
  const names = currentNames(text);
  const events: KernelEvent[] = [];
  for (const group of table.groups.values()) {
    const { busErrors, ...event } = group;
    // AER prints one "PCIe Bus Error" per error (and the port an "error received" for it, or for several).
    if (busErrors > 0) event.count = busErrors;
    const times = stamps.get(group)!;
    const timed = times.filter((stamp) => seconds(stamp, clock) !== null);
    if (timed.length) {
      event.firstAt = label(timed[0]!, clock);
      event.lastAt = label(timed.at(-1)!, clock);
      event.firstSeconds = seconds(timed[0]!, clock);
      event.lastSeconds = seconds(timed.at(-1)!, clock);
    }
    if (event.address && names.has(event.address)) event.interface = names.get(event.address)!;
    events.push(event);
  }
  markLinksLeftDown(events, linkWasUp);
  return { clock, endSeconds: clock === 'wall' ? endWall : clock === 'uptime' ? endUptime : null, events: withoutEchoes(events) };
}

/** Ports that went down together (within this many seconds) were taken down by the host: a reset, a reboot, an ifdown of all. */
const TOGETHER_SECONDS = 2;

/**
 * A flap whose port's last link line is "down" had no link when the log ended: "still-down". When
 * other ports went down in the same moment, the host took them down together (a driver reset, a
 * shutdown, a PF taking its VFs with it): "together", a note rather than a port's fault.
 */
function markLinksLeftDown(events: KernelEvent[], linkWasUp: ReadonlyMap<string, boolean>): void {
  const flaps = events.filter((event) => event.kind === 'link-flap');
  for (const event of flaps) {
    if (linkWasUp.get(event.address ?? event.interface ?? '') !== false) continue;
    const together = flaps.some(
      (other) =>
        other !== event &&
        other.lastSeconds !== null &&
        event.lastSeconds !== null &&
        Math.abs(other.lastSeconds - event.lastSeconds) <= TOGETHER_SECONDS,
    );
    // A link left down says more than how briefly it was up before (a bypass card that switched over).
    event.detail = together ? 'together' : 'still-down';
  }
}

/**
 * A line that names no device, of a kind exactly one named device logged, is that device's line
 * quoted again (a mail subject, a wrapped fragment): it is not a second event on an unknown device.
 * Host-wide kinds (conntrack, socket memory, page allocation) never name a device and are kept.
 */
function withoutEchoes(events: KernelEvent[]): KernelEvent[] {
  const named = (event: KernelEvent) => event.address !== null || event.interface !== null;
  const deviceOf = (event: KernelEvent) => event.interface ?? event.address;
  return events.filter((event) => {
    if (named(event)) return true;
    const family = familyOf(event.kind);
    const owners = new Set(events.filter((other) => familyOf(other.kind) === family && named(other)).map(deviceOf));
    return owners.size !== 1;
  });
}

/**
 * A transmit hang, its watchdog timeout and the reset that follows are one fault told three ways
 * (a joined log line is counted by its first message): a bare mention of any of them echoes the
 * device that logged another.
 */
function familyOf(kind: KernelEventKind): string {
  return kind === 'tx-hang' || kind === 'tx-timeout' || kind === 'adapter-reset' ? 'transmit' : kind;
}

/** The name each PCI function had last in the log (after "renamed from eth0"). */
function currentNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const nic of parseKernelLog(text).nics) if (nic.address && nic.name) names.set(nic.address, nic.name);
  return names;
}
