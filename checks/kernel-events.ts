import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence, Severity } from '../src/report/schema.js';
import { KERNEL_EVENT_KINDS, type KernelEvent, type KernelEventKind, type KernelEvents } from '../src/parsers/kernel-events.js';

const options = z.object({
  /** An event whose last occurrence is older than this (before the end of the log) is history: a note unless it repeats a lot. */
  recentSeconds: z.number().positive().default(86_400),
  /** From this many occurrences an event is a warning even when old. */
  repeatedCount: z.number().int().positive().default(5),
  /** From this many, critical (a port that resets or flaps this often does not carry traffic). */
  manyCount: z.number().int().positive().default(20),
  /** Corrected AER errors are replayed by the link: only this many make them a warning. */
  aerCorrectedWarningCount: z.number().int().positive().default(100),
  /** Drivers of Ethernet NICs: PCIe errors on their devices are the NIC's. */
  nicDrivers: z
    .array(z.string())
    .default([
      'ixgbe',
      'ixgbevf',
      'i40e',
      'iavf',
      'ice',
      'igb',
      'igc',
      'e1000e',
      'e1000',
      'mlx4_core',
      'mlx5_core',
      'bnxt_en',
      'bnx2x',
      'tg3',
      'qede',
      'sfc',
      'nfp',
      'be2net',
      'cxgb4',
      'atlantic',
      'r8169',
      'r8125',
      'alx',
      'txgbe',
      'ngbe',
    ]),
});
type Options = z.infer<typeof options>;

/** What every event finding carries: the count and times the JSON report exposes. */
const eventData = {
  kind: z.enum(KERNEL_EVENT_KINDS),
  driver: z.string().nullable(),
  address: z.string().nullable(),
  interfaceName: z.string().nullable(),
  detail: z.string().nullable(),
  count: z.number().int().positive(),
  firstAt: z.string().nullable(),
  lastAt: z.string().nullable(),
  clock: z.enum(['uptime', 'wall', 'none']),
  /** Seconds from the last occurrence to the end of the log; null when the log has no times. */
  ageSeconds: z.number().nonnegative().nullable(),
  recent: z.boolean(),
  /** The ticket says these lines keep coming: the pasted ones are an excerpt (absent on a live host or a capture). */
  repeatReported: z.boolean().optional(),
};
const eventSchema = z.object(eventData);
type EventData = z.infer<typeof eventSchema>;

const device = (d: EventData) =>
  [d.driver, d.address, d.interfaceName ? `(${d.interfaceName})` : null].filter(Boolean).join(' ') || 'a device the log does not name';
const times = (d: EventData) =>
  d.count === 1
    ? d.lastAt
      ? ` at ${d.lastAt}`
      : ''
    : d.firstAt && d.lastAt
      ? d.firstAt === d.lastAt
        ? ` at ${d.lastAt}`
        : ` from ${d.firstAt} to ${d.lastAt}`
      : '';
const age = (d: EventData) =>
  d.ageSeconds === null
    ? ''
    : d.ageSeconds < 60
      ? ', at the end of the log'
      : `, the last ${humanSeconds(d.ageSeconds)} before the end of the log`;
const times1 = (n: number) => (n === 1 ? 'once' : `${n} times`);

function humanSeconds(value: number): string {
  if (value < 3600) return `${Math.round(value / 60)} min`;
  if (value < 172_800) return `${Math.round(value / 3600)} h`;
  return `${Math.round(value / 86_400)} days`;
}

/** "4 times from X to Y, the last 31 min before the end of the log": never empty (rule templates drop a sentence on an empty value). */
const history = (d: EventData) =>
  `${times1(d.count)}${times(d)}${age(d)}${d.repeatReported ? ' in the lines pasted, which the ticket says keep coming' : ''}`;
const phrases = { device, history };

export default defineCheck({
  id: 'kernel-events',
  title: 'Fault events in the kernel log',
  description:
    'Reads the kernel log (dmesg, the journal, /var/log/kern.log or messages) for events no setting shows: link flaps, NETDEV WATCHDOG transmit timeouts, TX unit hangs and adapter resets, PCIe AER errors on a NIC or its port, transceivers the driver rejected, firmware faults (mlx5 health, Intel MDD), a full conntrack table, TCP out of socket memory, over-MTU drops and page allocation failures in the network path. Each is counted per device with its first and last time; how often and how recently it happened sets the severity, and a single event long before the end of the log is a note.',
  scope: 'host',
  requires: ['kernel.events'],
  optionalFacts: ['ticket.reports'],
  options,
  symptoms: {
    'link-flapping': symptom({
      severity: 'warning',
      data: eventSchema,
      phrases: {
        ...phrases,
        end: (d) =>
          d.detail === 'still-down'
            ? '; it was still down when the log ended'
            : d.detail === 'together'
              ? '; other ports went down in the same moment (a reset or shutdown on the host)'
              : d.detail === 'short-lived'
                ? '; it dropped within a minute of coming up, so the link never held (negotiation or signal, not a cable pulled)'
                : '',
      },
      message: '{device}: the link went down after being up {history}{end}',
      fix: 'Look at the cable, transceiver and switch port of {device} (ethtool -m for the module, the switch log for the port), and compare two readings of the carrier changes: cat /sys/class/net/<interface>/carrier_changes.',
    }),
    'tx-timeouts': symptom({
      severity: 'warning',
      data: eventSchema,
      phrases: {
        ...phrases,
        what: (d) =>
          d.kind === 'tx-hang'
            ? 'the driver detected a hung transmit unit'
            : d.kind === 'adapter-reset'
              ? 'the driver reset the adapter'
              : 'a transmit queue timed out',
      },
      message: '{device}: {what} {history}; traffic stops while the queue is reset',
      fix: 'Update the driver and NIC firmware (ethtool -i shows both) and check the vendor errata for TX hangs; if it follows load, try without TSO/GSO on this port (ethtool -K <interface> tso off gso off) to confirm.',
    }),
    'firmware-events': symptom({
      severity: 'warning',
      data: eventSchema,
      phrases: {
        ...phrases,
        what: (d) =>
          d.kind === 'mdd'
            ? 'Malicious Driver Detection events (a VF or the driver sent descriptors the NIC refused)'
            : `firmware fault events (${d.detail ?? 'fault'})`,
      },
      message: '{device}: {what}, {history}',
      fix: 'Update the NIC firmware and the PF/VF drivers to a matching release (ethtool -i); for MDD, check the VF driver in the guests. Collect `devlink health show` before a reset clears it.',
    }),
    'pcie-aer-errors': symptom({
      severity: 'warning',
      data: eventSchema.extend({ onNic: z.boolean() }),
      phrases: {
        ...phrases,
        severityWord: (d) => (d.kind === 'aer-uncorrected' ? 'uncorrected' : 'corrected'),
        whose: (d) => (d.onNic ? 'the NIC' : 'a PCIe port whose downstream device the log does not name'),
        pci: (d) => d.address ?? '<address>',
      },
      message: '{device}: PCIe AER reported {severityWord} errors {history}, on {whose}',
      fix: 'Reseat the card or move it to another slot, check the slot and riser, and read the error counters: lspci -vvv -s {pci} (look at CESta/UESta), cat /sys/bus/pci/devices/{pci}/aer_dev_correctable.',
    }),
    'module-rejected': symptom({
      severity: 'critical',
      data: eventSchema.extend({ linkUpAfter: z.boolean() }),
      phrases: {
        ...phrases,
        reason: (d) =>
          d.detail === 'power'
            ? 'needs more power than the port supplies'
            : d.detail === 'cable-error'
              ? 'was reported as a cable error'
              : 'is of a type the driver does not support',
        after: (d) => (d.linkUpAfter ? '; the port came up later, so the module may have been replaced' : ': the port has no link'),
      },
      message: '{device}: the driver rejected the transceiver, which {reason} ({history}){after}',
      fix: 'Use a module the NIC vendor qualifies for this port (ethtool -m <interface> shows the one inserted), or, for Intel 10G cards, load ixgbe with allow_unsupported_sfp=1 at your own risk. Coalescing, rings and CRC counters are beside the point until the port has link.',
    }),
    'conntrack-full': symptom({
      severity: 'warning',
      data: eventSchema,
      phrases,
      message:
        'The connection-tracking table was full and the kernel dropped new packets: logged {history} (each line stands for many drops; the kernel rate-limits it)',
      fix: 'Compare nf_conntrack_count with nf_conntrack_max (sysctl net.netfilter.nf_conntrack_count net.netfilter.nf_conntrack_max), raise the maximum and the hash size, or exempt heavy flows with a NOTRACK rule in the raw table.',
    }),
    'socket-memory-exhausted': symptom({
      severity: 'warning',
      data: eventSchema,
      phrases: {
        ...phrases,
        what: (d) =>
          d.detail === 'orphans'
            ? 'too many orphaned sockets (closed by the application, still holding memory): it reset connections to free them'
            : 'TCP ran out of socket memory (net.ipv4.tcp_mem): it refused buffers to every connection on the host',
      },
      message: 'The kernel logged that {what}, {history}',
      fix: 'Find the sockets holding memory (ss -tmp: large Recv-Q or Send-Q on sockets nobody drains, or many sockets of one process) and compare /proc/net/sockstat with net.ipv4.tcp_mem; raise tcp_mem (or tcp_max_orphans) only when the host has the memory and no process leaks sockets.',
    }),
    'page-allocation-failures': symptom({
      severity: 'warning',
      data: eventSchema,
      phrases,
      message: 'The kernel failed to allocate memory for received packets {history}: the network receive path ran out of free pages',
      fix: 'Raise vm.min_free_kbytes so atomic allocations in the receive path find free pages, and look for memory pressure (free -m, /proc/buddyinfo); smaller or fewer RX rings need less memory.',
    }),
    'over-mtu-drops': symptom({
      severity: 'warning',
      data: eventSchema.extend({ packetBytes: z.number().int().positive().nullable(), mtuBytes: z.number().int().positive().nullable() }),
      phrases: {
        ...phrases,
        port: (d) => `${device(d)}${d.packetBytes && d.mtuBytes ? ` (${d.packetBytes} bytes > MTU ${d.mtuBytes})` : ''}`,
      },
      message: 'Open vSwitch dropped packets larger than the MTU of {port}, {history}',
      fix: 'Give the ports of the bridge the same MTU end to end (ip link show; ovs-vsctl list interface <port> | grep mtu), or lower the MTU of the sender.',
    }),
  },
  run({ facts, optional, interfaces, options: opts, report, source, notApplicable }) {
    const log = facts['kernel.events'];
    // A ticket that says the lines keep coming pasted an excerpt: each line counts as repeated.
    const tickets = optional['ticket.reports'];
    const repeatReported = tickets.ok && tickets.value.logRepeatsReported;
    if (log.events.length === 0)
      return notApplicable('the kernel log holds no fault event (link flaps, TX timeouts, AER, rejected modules, ...)');
    const from = source('kernel.events');
    const linkUps = linkUpAfter(log);
    for (const event of log.events) {
      const iface = interfaces.find(
        (candidate) => (event.address && candidate.pciAddress === event.address) || candidate.name === event.interface,
      );
      const data: EventData = { ...dataOf(event, log, iface?.name ?? null, opts), ...(repeatReported ? { repeatReported } : {}) };
      // Severity weighs the count the ticket describes; the data keeps the count the log shows.
      const weighed = repeatReported ? { ...data, count: Math.max(data.count, opts.repeatedCount) } : data;
      const evidence: Evidence[] = [
        { label: `${event.kind} events`, observed: event.count, expected: 0, ...(from ? { source: from } : {}) },
        { label: 'kernel log', observed: event.line },
      ];
      // The interface the line names is the subject even when no other output lists it (a BMC's
      // or a guest's eth0 seen only in its log): the host is the subject only of host-wide events.
      const subject = iface?.name ?? (isInterfaceName(event.interface) ? event.interface : 'host');
      const base = { subject, evidence };
      switch (event.kind) {
        case 'link-flap':
          // A lone drop is a note whether or not it came back (a cable pulled, a port moved); repeats make it a warning,
          // and so does a link that fell within a minute of coming up (it never held).
          report('link-flapping', { ...base, severity: judged(weighed, opts, event.detail === 'short-lived' ? 'warning' : 'info'), data });
          break;
        case 'tx-timeout':
        case 'tx-hang':
        case 'adapter-reset':
          report('tx-timeouts', { ...base, severity: judged(weighed, opts, 'warning'), data });
          break;
        case 'firmware-fault':
        case 'mdd':
          report('firmware-events', { ...base, severity: judged(weighed, opts, 'warning'), data });
          break;
        case 'aer-corrected':
        case 'aer-uncorrected': {
          const onNic = iface !== undefined || (event.driver !== null && opts.nicDrivers.includes(event.driver));
          // A port's errors with no NIC named below it may be any device's (a SATA card, a GPU): a note.
          if (!onNic && event.driver !== 'pcieport') break;
          const severity: Severity = !onNic
            ? 'info'
            : event.kind === 'aer-uncorrected'
              ? data.recent || data.ageSeconds === null
                ? 'critical'
                : 'warning'
              : (event.count >= opts.aerCorrectedWarningCount || repeatReported) && (data.recent || data.ageSeconds === null)
                ? 'warning'
                : 'info';
          report('pcie-aer-errors', { ...base, severity, data: { ...data, onNic } });
          break;
        }
        case 'module-rejected': {
          const after = linkUps.has(event);
          report('module-rejected', { ...base, severity: after ? 'info' : 'critical', data: { ...data, linkUpAfter: after } });
          break;
        }
        case 'conntrack-full':
          report('conntrack-full', { ...base, severity: judged(weighed, opts, 'warning'), data });
          break;
        case 'socket-memory':
          report('socket-memory-exhausted', { ...base, severity: judged(weighed, opts, 'warning'), data });
          break;
        case 'page-alloc-failure':
          report('page-allocation-failures', { ...base, severity: judged(weighed, opts, 'info'), data });
          break;
        case 'over-mtu':
          report('over-mtu-drops', {
            ...base,
            severity: judged(weighed, opts, 'info'),
            data: { ...data, packetBytes: event.packetBytes, mtuBytes: event.mtuBytes },
          });
          break;
      }
    }
    return undefined;
  },
});

/** A name the kernel could have given an interface (IFNAMSIZ: at most 15 characters, no slash or space). */
function isInterfaceName(name: string | null): name is string {
  return name !== null && /^[\w.:@-]{1,15}$/.test(name) && name !== 'host';
}

function dataOf(event: KernelEvent, log: KernelEvents, interfaceName: string | null, opts: Options): EventData {
  const ageSeconds =
    log.endSeconds !== null && event.lastSeconds !== null && log.endSeconds >= event.lastSeconds
      ? Number((log.endSeconds - event.lastSeconds).toFixed(0))
      : null;
  return {
    kind: event.kind,
    driver: event.driver,
    address: event.address,
    interfaceName: interfaceName ?? event.interface,
    detail: event.detail,
    count: event.count,
    firstAt: event.firstAt,
    lastAt: event.lastAt,
    clock: log.clock,
    ageSeconds,
    recent: ageSeconds !== null && ageSeconds <= opts.recentSeconds,
  };
}

/**
 * Severity from how often and how recently: many occurrences are critical; an old event that
 * did not repeat is a note; a repeated one a warning; a single recent one takes the kind's own
 * weight (`single`: a lone link drop is a cable pulled, a lone TX timeout already stopped traffic).
 */
function judged(data: EventData, opts: Options, single: Severity): Severity {
  if (data.count >= opts.manyCount && data.ageSeconds !== null && data.recent) return 'critical';
  if (data.ageSeconds !== null && !data.recent) return data.count >= opts.repeatedCount ? 'warning' : 'info';
  if (data.count >= opts.repeatedCount) return data.count >= opts.manyCount ? 'critical' : 'warning';
  if (data.count >= 2) return 'warning';
  return single;
}

/** Rejections after which the same device reported link up: the module was replaced or accepted later. */
function linkUpAfter(log: KernelEvents): Set<KernelEvent> {
  const after = new Set<KernelEvent>();
  const flaps = log.events.filter((event) => event.kind === 'link-flap');
  for (const event of log.events) {
    if (event.kind !== 'module-rejected' || event.lastSeconds === null) continue;
    const sameDevice = flaps.some(
      (flap) => flap.address === event.address && flap.lastSeconds !== null && flap.lastSeconds > event.lastSeconds!,
    );
    if (sameDevice) after.add(event);
  }
  return after;
}

export type { KernelEventKind };
