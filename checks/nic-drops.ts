import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence, Source } from '../src/report/schema.js';
import type { FactResult } from '../src/contracts/facts.js';
import type { NetStatistics } from '../src/collectors/net-statistics.js';
import type { IpLink } from '../src/parsers/ip-link.js';
import type { ProcNetDevEntry } from '../src/parsers/proc-net.js';
import {
  classifyEthtoolStats,
  classifyNetStatistics,
  counterMeaning,
  rxQueuePackets,
  type ClassifiedCounter,
  type CounterCategory,
  type CounterRemedy,
} from '../src/domain/drop-counters.js';
import { coefficientOfVariation, median } from '../src/util/stats.js';

type Options = z.infer<typeof options>;

const options = z.object({
  /** Counts at or below this are ignored (raise to silence a handful of drops since boot). */
  minDrops: z.number().int().nonnegative().default(0),
  /**
   * A ring counter (missed, FIFO, no buffer) at this share of the packets that arrived or more, and
   * at least stuckMinDrops, is a receive path that stopped refilling (rx-path-stuck): bursts that
   * overflow a ring lose a share of the traffic, not most of it.
   */
  stuckDropShare: z.number().min(0).max(1).default(0.5),
  stuckMinDrops: z.number().int().nonnegative().default(1000),
  minPhysicalErrors: z.number().int().nonnegative().default(0),
  minErrors: z.number().int().nonnegative().default(0),
  /**
   * RSS imbalance: the busiest receive queue carries more than this share of the packets and
   * more than minShareOverFair times its fair share (1/queues), so that 51 % on two queues is not flagged.
   */
  maxQueueShare: z.number().gt(0).lte(1).default(0.5),
  minShareOverFair: z.number().gte(1).default(1.5),
  /** Too few packets say nothing about the spread. */
  minQueuePackets: z.number().int().nonnegative().default(10_000),
  /**
   * A systematic skew across many queues, which "one queue above half" cannot see: over at least
   * skewMinQueues active queues, the busiest at skewMaxOverMedian times the median, the 90th
   * percentile at skewP90OverP10 times the 10th, or a coefficient of variation of skewMaxCv.
   * Flows hash evenly enough that 16 queues of many flows stay within 2-3x of each other.
   */
  skewMinQueues: z.number().int().min(2).default(8),
  skewMaxOverMedian: z.number().gt(1).default(10),
  skewP90OverP10: z.number().gt(1).default(10),
  skewMaxCv: z.number().positive().default(1),
  /**
   * A queue counts as active (carrying flows) from this fraction of its fair share of the packets:
   * a handful of stray packets on an idle queue is not a flow, and would make any spread look skewed.
   */
  activeQueueFairShare: z.number().nonnegative().default(0.01),
  /**
   * One queue of several took every packet and the others not a single one, over at least this
   * many packets: RSS is effectively off (hashing disabled, an indirection table pointing at one
   * queue, or frames the NIC cannot hash such as QinQ or PPPoE). With RSS working, the stray
   * flows of any host (ARP, DNS, a second connection) land on the other queues sooner or later, so
   * this is a warning however few flows the main traffic has; below this count it is a note.
   */
  singleQueueMinPackets: z.number().int().nonnegative().default(100_000),
  /**
   * Drops below this fraction of received packets are negligible (one in a million): a note with
   * the rate, not a fault. A count with no packet total to compare is judged on the count alone.
   */
  negligibleDropRate: z.number().nonnegative().default(1e-6),
  /**
   * A count since boot at or above this is significant whatever its rate (as hotsos judges loss):
   * a million drops over a long uptime are bursts that each cost a stall, not noise.
   */
  significantDropCount: z.number().int().positive().default(1_000_000),
  /**
   * A few thousand drops since boot over billions of packets are a handful of bursts over the
   * uptime, not ring loss to tune for: below this count, a rate below smallCountDropRate is negligible too.
   */
  smallDropCount: z.number().int().nonnegative().default(10_000),
  smallCountDropRate: z.number().nonnegative().default(1e-5),
});

/** What to do, by the kind of cause the counter points to (CAUSES.md causes 7, 14, 16, 5, 6). */
const ACTIONS: Record<CounterRemedy, string> = {
  rings:
    'Raise the rings of {subject} to their maximum (ethtool -g {subject} shows it; ethtool -G {subject} rx <max> tx <max>) and spread its interrupts over several NIC-local CPUs (more RSS queues, irqbalance) so no CPU falls behind.',
  'host-backpressure':
    'The NIC could not hand packets to the host fast enough: check the PCIe link (current vs maximum width and speed), raise the rings to their maximum (ethtool -G {subject} rx <max>) and turn on flow control (ethtool -A {subject} rx on tx on) so the NIC pauses the sender instead of dropping.',
  'host-memory':
    "The driver could not allocate receive buffers: check free memory on the NIC's NUMA node and raise vm.min_free_kbytes if memory is fragmented.",
  cpu: 'Spread receive processing over more CPUs (more queues: ethtool -L {subject} combined <N>; RPS) and keep the receiving CPUs free of other work.',
  'tx-queue': 'Raise the transmit ring to its maximum (ethtool -G {subject} tx <max>) and check that the sending CPUs are not saturated.',
  'cloud-allowance':
    'The hypervisor limits this instance type: use a larger instance type or spread the traffic; the host cannot fix this itself.',
  physical:
    'Check the cable or optic and its signal levels (ethtool -m {subject}), clean or replace it, and compare with the error counters of the switch port; try another switch port.',
  mtu: 'Make the MTU equal on this host, the switch and the peer.',
  none: 'Nothing to change on this host; if the count grows during a test, look at the path and the peer.',
};

/** What each allowance counter's prefix limits (the ENA documentation's names for them). */
const ALLOWANCE_OF: Readonly<Record<string, string>> = {
  bw_in: 'the inbound bandwidth allowance',
  bw_out: 'the outbound bandwidth allowance',
  pps: 'the packets-per-second allowance',
  conntrack: 'the connection-tracking allowance',
  linklocal: 'the packet rate allowed to link-local services (DNS, metadata, time)',
};

const SYMPTOM_OF: Record<CounterCategory, 'nic-drops' | 'physical-errors' | 'nic-errors' | null> = {
  drop: 'nic-drops',
  'physical-error': 'physical-errors',
  error: 'nic-errors',
  info: null,
};

const SINCE_LOAD =
  'Counters are totals since the driver loaded: compare them before and after a test (nicdoctor bench measures the increase).';

const REMEDIES = Object.keys(ACTIONS) as [CounterRemedy, ...CounterRemedy[]];
const ORIGINS = ['ethtool.stats', 'net.statistics', 'ip.links', 'proc.net.dev'] as const;

/** A counter as found: its name, value, and what its rate needs. */
const counterFields = {
  /** The counter's base name ("rx_missed_errors", "port.rx_dropped"). */
  counter: z.string(),
  value: z.number(),
  /** How many per-queue counters were summed (0: a device-wide counter). */
  queues: z.number().int(),
  /**
   * The packets a receive counter is a share of (null: not a receive counter, or no total): the
   * total its own layer counts (mlx5 rx_packets_phy for *_phy, i40e/ice port.* for port.*), or
   * the delivered packets plus the dropped ones when the drop is counted before that total.
   */
  rxPackets: z.number().nullable(),
  /** Below options.negligibleDropRate of the received packets (or a small count below smallCountDropRate). */
  negligible: z.boolean(),
  origin: z.enum(ORIGINS),
};
const counterData = z.object({ ...counterFields, remedy: z.enum(REMEDIES), driver: z.string().nullable() });
type CounterData = z.output<typeof counterData>;

/** " (sum of 8 queues; 0.12 % of 15000000 received packets)", or nothing. */
function detailOf(d: { queues: number; value: number; rxPackets: number | null; negligible: boolean }): string {
  const details = [
    d.queues > 0 ? `sum of ${d.queues} queues` : null,
    d.rxPackets ? `${percent(d.value, d.rxPackets)} % of ${d.rxPackets} packets that arrived${d.negligible ? ': negligible' : ''}` : null,
  ].filter(Boolean);
  return details.length > 0 ? ` (${details.join('; ')})` : '';
}

/** The shared wording of a counter finding: what the counter means on this driver, and what to do. */
const counterPhrases = {
  detail: (d: CounterData) => detailOf(d),
  meaning: (d: CounterData) =>
    counterMeaning(d.counter, d.origin === 'ethtool.stats' ? d.driver : null, d.origin === 'ethtool.stats' ? 'ethtool' : 'generic')
      ?.meaning ?? 'see the driver documentation',
  action: (d: CounterData, finding: { subject: string }) => ACTIONS[d.remedy].replaceAll('{subject}', finding.subject),
};

export default defineCheck({
  id: 'nic-drops',
  title: 'NIC drop and error counters',
  description:
    'Reads ethtool -S <if> and /sys/class/net/<if>/statistics and explains the driver-specific counters: drops for lack of receive buffers or host backpressure (mlx5 rx_out_of_buffer / rx_discards_phy, ixgbe rx_missed_errors, igb rx_no_buffer_count, i40e/ice port.rx_dropped, bnxt rx_discards, ...), CRC and symbol errors (cable, optic, switch port), other errors such as bad checksums or malformed frames (info), and one receive queue taking most of the packets (info). The sysfs counters are used where ethtool shows nothing of a kind (virtio, veth) or cannot run.',
  scope: 'interface',
  requires: ['net.device'],
  optionalFacts: ['net.statistics', 'ethtool.stats', 'ip.links', 'proc.net.dev'],
  options,
  symptoms: {
    'nic-drops': symptom({
      severity: 'warning',
      data: counterData,
      phrases: counterPhrases,
      message: '{subject}: {counter} = {value} since the driver loaded{detail}: {meaning}',
      fix: `{action} ${SINCE_LOAD}`,
    }),
    // A ring overflows on bursts and loses a share of the traffic; a counter of buffers not
    // there in time that holds most of what arrived means the receive path stopped refilling.
    'rx-path-stuck': symptom({
      severity: 'warning',
      data: counterData,
      phrases: counterPhrases,
      message:
        '{subject}: {counter} = {value} since the driver loaded{detail}: the NIC discards most of what reaches it, which no ring size explains',
      fix: `Read the kernel log for the driver, test without an XDP program (or in generic mode), update the driver and firmware ${SINCE_LOAD}`,
    }),
    'physical-errors': symptom({
      severity: 'warning',
      data: counterData,
      phrases: counterPhrases,
      message: '{subject}: {counter} = {value} since the driver loaded{detail}: {meaning}',
      fix: `{action} ${SINCE_LOAD}`,
    }),
    'nic-errors': symptom({
      severity: 'info',
      data: counterData,
      phrases: counterPhrases,
      message: '{subject}: {counter} = {value} since the driver loaded{detail}: {meaning}',
      fix: `{action} ${SINCE_LOAD}`,
    }),
    // A cloud instance's allowance counters (AWS ENA bw_in/bw_out/pps/conntrack/linklocal) count
    // packets the hypervisor shaped because the instance exceeded its type's limit: the provider's
    // policy outside the guest, not a ring the host could enlarge, so they are named as such.
    'cloud-allowance-exceeded': symptom({
      severity: 'warning',
      data: counterData,
      phrases: {
        ...counterPhrases,
        allowance: (d: CounterData) => ALLOWANCE_OF[d.counter.replace(/_allowance_exceeded$/, '')] ?? 'a network allowance',
      },
      message:
        "{subject}: {counter} = {value} since the driver loaded: the hypervisor queued or dropped packets because the instance exceeded {allowance} of its instance type. This is the cloud provider's shaping outside the guest, not a NIC ring drop: no ring, queue or interrupt setting on this host changes it",
      fix: `{action} ${SINCE_LOAD}`,
    }),
    'software-device-drops': symptom({
      severity: 'info',
      data: z.object({
        ...counterFields,
        /** The software device's type ("veth", "bridge") or its kind. */
        kind: z.string(),
      }),
      phrases: { detail: (d) => detailOf(d) },
      message:
        "{subject} ({kind}): {counter} = {value}{detail}: drops on a software device are the kernel's (a full backlog, a policy, a peer that went away), not a NIC's",
      fix: 'Look at the physical port that carries this traffic and at softnet_stat; on a container veth or overlay, a drop usually means the receiving side (namespace, CNI policy) refused the packet.',
    }),
    'rx-queue-imbalance': symptom({
      severity: 'info',
      data: z.object({
        queue: z.number().int(),
        packets: z.number(),
        totalPackets: z.number(),
        share: z.number(),
        sharePercent: z.number(),
        queues: z.number().int(),
        activeQueues: z.number().int(),
        /** Spread over the active queues: busiest / median, 90th / 10th percentile, coefficient of variation. */
        maxOverMedian: z.number().nonnegative(),
        p90OverP10: z.number().nonnegative(),
        cvPercent: z.number().nonnegative(),
        /** The busiest queue took more than maxQueueShare (else: a skew across many queues). */
        dominant: z.boolean(),
        /** Every other queue took no packet at all: RSS is effectively off. */
        allOnOne: z.boolean(),
      }),
      phrases: {
        pattern: (d) =>
          d.allOnOne
            ? 'the other queues took not a single packet, so receive-side scaling is effectively off and the load sits on one CPU'
            : d.dominant
              ? 'the load sits on one CPU'
              : `the load is skewed across the queues (busiest ${d.maxOverMedian}x the median, 90th percentile ${d.p90OverP10}x the 10th, coefficient of variation ${d.cvPercent} %)`,
      },
      message:
        '{subject}: receive queue {queue} took {sharePercent} % of the packets since the driver loaded ({activeQueues} of {queues} queues carried traffic): {pattern}',
      fix: "Few flows hash to few queues; with many flows, check the RSS indirection table (ethtool -x {subject}) and the hash fields (ethtool -n {subject} rx-flow-hash tcp4), and spread the queues' interrupts over NIC-local CPUs.",
    }),
  },
  run({ facts, optional, options: opts, subject, report, source, notApplicable, unknown }) {
    const device = facts['net.device'];
    // A bond, bridge or VLAN sums (or relabels) its members' counters and adds harmless drops of
    // its own (frames on inactive bond members): the member ports are judged instead.
    if (device.kind === 'bond' || device.kind === 'bridge' || device.kind === 'vlan') {
      return notApplicable(`${subject} is a ${device.kind}: its member interfaces' counters are checked instead`);
    }
    const generic = genericCounters(subject, optional);
    const ethtool = optional['ethtool.stats'];
    if (!ethtool.ok && !generic) {
      return unknown(
        `${subject}: no drop counters: ${ethtool.error.message}; neither /sys/class/net/${subject}/statistics, \`ip -s link\` nor /proc/net/dev holds ${subject}`,
        ethtool.error.kind === 'not-captured'
          ? `capture \`ethtool -S ${subject}\` and \`ip -s -d link\` (sos plugin: networking)`
          : ethtool.error.hint,
      );
    }
    const fromEthtool = ethtool.ok ? classifyEthtoolStats(ethtool.value, device.driver) : [];
    const fromSysfs = generic ? classifyNetStatistics(generic.counters) : [];
    const delivered = generic?.counters.rx_packets ?? (ethtool.ok ? ethtoolTotal(ethtool.value.counters, 'rx_packets') : null);
    const ethtoolCounters = ethtool.ok ? ethtool.value.counters : [];
    const software = device.kind === 'virtual';

    // ethtool first; a generic counter only where the driver shows nothing of that category, so the
    // same drop is not reported twice under two names (mlx5 fills rx_missed_errors from rx_out_of_buffer).
    const categoriesInEthtool = new Set<CounterCategory>(fromEthtool.map((counter) => counter.category));
    const namesInEthtool = new Set(fromEthtool.map((counter) => counter.name));
    const chosen: Array<{ counter: ClassifiedCounter; origin: 'ethtool.stats' | 'net.statistics' | 'ip.links' | 'proc.net.dev' }> = [
      ...fromEthtool.map((counter) => ({ counter, origin: 'ethtool.stats' as const })),
      ...fromSysfs
        .filter((counter) => !categoriesInEthtool.has(counter.category) && !namesInEthtool.has(counter.name))
        .map((counter) => ({ counter, origin: generic!.origin })),
    ];

    for (const { counter, origin } of chosen) {
      const symptom = SYMPTOM_OF[counter.category];
      if (!symptom) continue;
      const threshold = symptom === 'nic-drops' ? opts.minDrops : symptom === 'physical-errors' ? opts.minPhysicalErrors : opts.minErrors;
      if (counter.value <= threshold) continue;
      const where =
        origin === 'ethtool.stats'
          ? source(origin, 'ethtool -S')
          : origin === 'net.statistics'
            ? source(origin, `/statistics/${counter.name}`)
            : source(origin);
      const rxPackets = isReceiveCounter(counter) ? arrivedPackets(counter, delivered, ethtoolCounters) : null;
      const rate = rxPackets ? counter.value / rxPackets : null;
      const negligible =
        rate !== null &&
        ((rate < opts.negligibleDropRate && counter.value < opts.significantDropCount) ||
          (rate < opts.smallCountDropRate && counter.value < opts.smallDropCount));
      // What every drop finding says about its counter, whichever symptom it is.
      const counterData = {
        counter: counter.name,
        value: counter.value,
        queues: counter.queues,
        rxPackets: rate !== null ? rxPackets : null,
        negligible,
        origin,
      };
      if (counter.remedy === 'cloud-allowance') {
        report('cloud-allowance-exceeded', {
          evidence: [evidence(counter.name, counter.value, threshold, where)],
          data: { ...counterData, remedy: counter.remedy, driver: device.driver },
        });
        continue;
      }
      if (software) {
        report('software-device-drops', {
          evidence: [evidence(counter.name, counter.value, threshold, where)],
          data: { ...counterData, kind: device.softwareType ?? device.kind },
        });
        continue;
      }
      const stuck =
        symptom === 'nic-drops' &&
        counter.remedy === 'rings' &&
        rate !== null &&
        rate >= opts.stuckDropShare &&
        counter.value >= opts.stuckMinDrops;
      report(stuck ? 'rx-path-stuck' : symptom, {
        // Counters that also count harmless frames (sysfs rx_dropped), and rates below one in a
        // million packets, are shown, not failed on.
        ...(counter.mayBeBenign || negligible ? { severity: 'info' as const } : {}),
        evidence: [evidence(counter.name, counter.value, threshold, where)],
        data: { ...counterData, remedy: counter.remedy, driver: device.driver },
      });
    }

    const skew = ethtool.ok ? queueSkew(rxQueuePackets(ethtool.value), opts) : null;
    if (skew) {
      report('rx-queue-imbalance', {
        ...(skew.allOnOne && skew.totalPackets >= opts.singleQueueMinPackets ? { severity: 'warning' as const } : {}),
        evidence: [
          {
            label: `rx queue ${skew.queue} share of received packets`,
            observed: skew.sharePercent,
            expected: `≤ ${opts.maxQueueShare * 100}`,
            unit: '%',
            ...withSource(source('ethtool.stats', 'ethtool -S')),
          },
          { label: 'busiest / median active queue', observed: skew.maxOverMedian, expected: `< ${opts.skewMaxOverMedian}`, unit: 'x' },
        ],
        data: skew,
      });
    }
    return undefined;
  },
});

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The value at quantile q of sorted values (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * How unevenly the receive queues share the packets, or null when it is even enough: one queue
 * above half (and well above its fair share), or a spread statistic over the active queues.
 */
function queueSkew(queues: ReadonlyArray<{ queue: number; packets: number }>, opts: Options) {
  const total = queues.reduce((sum, queue) => sum + queue.packets, 0);
  if (queues.length < 2 || total < opts.minQueuePackets) return null;
  const busiest = queues.reduce((best, queue) => (queue.packets > best.packets ? queue : best));
  const share = busiest.packets / total;
  const dominant = share > opts.maxQueueShare && share >= opts.minShareOverFair / queues.length;
  const floor = (total / queues.length) * opts.activeQueueFairShare;
  const active = queues.map((queue) => queue.packets).filter((packets) => packets > 0 && packets >= floor);
  const sorted = [...active].sort((a, b) => a - b);
  const mid = median(sorted) ?? 0;
  const maxOverMedian = mid > 0 ? busiest.packets / mid : 0;
  const p90OverP10 = quantile(sorted, 0.1) > 0 ? quantile(sorted, 0.9) / quantile(sorted, 0.1) : 0;
  const cv = coefficientOfVariation(active) ?? 0;
  const skewed =
    active.length >= opts.skewMinQueues &&
    (maxOverMedian >= opts.skewMaxOverMedian || p90OverP10 >= opts.skewP90OverP10 || cv >= opts.skewMaxCv);
  if (!dominant && !skewed) return null;
  return {
    queue: busiest.queue,
    packets: busiest.packets,
    totalPackets: total,
    share,
    sharePercent: round1(share * 100),
    queues: queues.length,
    activeQueues: active.length,
    maxOverMedian: round1(maxOverMedian),
    p90OverP10: round1(p90OverP10),
    cvPercent: Math.round(cv * 100),
    dominant,
    allOnOne: busiest.packets === total,
  };
}

type GenericOrigin = 'net.statistics' | 'ip.links' | 'proc.net.dev';

/**
 * The kernel's generic counters in sysfs naming (rx_packets, rx_dropped, rx_missed_errors, ...),
 * from the first source that holds this interface: sysfs, `ip -s link`, /proc/net/dev. A capture
 * without sysfs still shows drops.
 */
function genericCounters(
  subject: string,
  optional: {
    'net.statistics': FactResult<NetStatistics>;
    'ip.links': FactResult<IpLink[]>;
    'proc.net.dev': FactResult<ProcNetDevEntry[]>;
  },
): { counters: Record<string, number>; origin: GenericOrigin } | null {
  const sysfs = optional['net.statistics'];
  if (sysfs.ok && Object.keys(sysfs.value.counters).length > 0) return { counters: sysfs.value.counters, origin: 'net.statistics' };
  const link = optional['ip.links'].ok ? optional['ip.links'].value.find((candidate) => candidate.name === subject) : undefined;
  if (link?.rx) {
    const rx = link.rx;
    const tx = link.tx ?? {};
    const counters: Record<string, number> = {};
    const put = (name: string, value: number | undefined) => {
      if (value !== undefined) counters[name] = value;
    };
    put('rx_packets', rx.packets);
    put('rx_errors', rx.errors);
    put('rx_dropped', rx.dropped);
    put('rx_missed_errors', rx.missed);
    put('rx_over_errors', rx.overrun);
    put('tx_packets', tx.packets);
    put('tx_errors', tx.errors);
    put('tx_dropped', tx.dropped);
    put('tx_carrier_errors', tx.carrier);
    return { counters, origin: 'ip.links' };
  }
  const dev = optional['proc.net.dev'].ok ? optional['proc.net.dev'].value.find((candidate) => candidate.name === subject) : undefined;
  if (dev) {
    return {
      counters: {
        rx_packets: dev.rx.packets,
        rx_errors: dev.rx.errs,
        rx_dropped: dev.rx.drop,
        rx_fifo_errors: dev.rx.fifo,
        rx_frame_errors: dev.rx.frame,
        tx_packets: dev.tx.packets,
        tx_errors: dev.tx.errs,
        tx_dropped: dev.tx.drop,
        tx_fifo_errors: dev.tx.fifo,
        tx_carrier_errors: dev.tx.carrier,
      },
      origin: 'proc.net.dev',
    };
  }
  return null;
}

/**
 * The packets a receive counter is a share of. A counter of the port's own layer is a share of
 * that layer's total (mlx5 rx_discards_phy of rx_packets_phy; i40e/ice port.rx_dropped of the
 * port's unicast + multicast + broadcast packets). Any other drop happened before the packet was
 * counted as delivered, so it is a share of delivered + dropped. Never above 100 %.
 */
function arrivedPackets(
  counter: ClassifiedCounter,
  delivered: number | null,
  ethtool: ReadonlyArray<{ name: string; value: number }>,
): number | null {
  const layerTotal = counter.name.endsWith('_phy')
    ? ethtoolTotal(ethtool, 'rx_packets_phy')
    : counter.name.startsWith('port.')
      ? sumOrNull(['port.rx_unicast', 'port.rx_multicast', 'port.rx_broadcast'].map((name) => ethtoolTotal(ethtool, name)))
      : null;
  if (layerTotal !== null && layerTotal >= counter.value && layerTotal > 0) return layerTotal;
  return delivered === null ? null : delivered + counter.value;
}

function sumOrNull(values: ReadonlyArray<number | null>): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length > 0 ? known.reduce((sum, value) => sum + value, 0) : null;
}

/** A per-port total from ethtool -S ("rx_packets"), or null when the driver prints none. */
function ethtoolTotal(counters: ReadonlyArray<{ name: string; value: number }>, name: string): number | null {
  return counters.find((counter) => counter.name === name)?.value ?? null;
}

function isReceiveCounter(counter: ClassifiedCounter): boolean {
  return counter.remedy !== 'tx-queue' && counter.remedy !== 'cloud-allowance' && !/^tx|[._ ]tx[_ ]|tx$/.test(counter.name);
}

function percent(part: number, whole: number): string {
  const value = (part / whole) * 100;
  return value >= 0.01 ? value.toFixed(2) : value.toExponential(1);
}

function withSource(where: Source | undefined): { source?: Source } {
  return where ? { source: where } : {};
}

function evidence(label: string, observed: number, threshold: number, where: Source | undefined): Evidence {
  return { label, observed, expected: threshold === 0 ? 0 : `≤ ${threshold}`, unit: 'packets', ...withSource(where) };
}
