import { z } from 'zod';
import { defineCheck } from '../src/engine/check.js';
import type { Evidence, Source } from '../src/report/schema.js';
import {
  classifyEthtoolStats,
  classifyNetStatistics,
  rxQueuePackets,
  type ClassifiedCounter,
  type CounterCategory,
  type CounterRemedy,
} from '../src/parsers/drop-counters.js';

const options = z.object({
  /** Counts at or below this are ignored (raise to silence a handful of drops since boot). */
  minDrops: z.number().int().nonnegative().default(0),
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
});

/** What to do, by the kind of cause the counter points to (CAUSES.md causes 7, 14, 16, 5, 6). */
const ACTIONS: Record<CounterRemedy, string> = {
  rings:
    'Raise the rings of {subject} to their maximum (ethtool -g {subject} shows it; ethtool -G {subject} rx <max> tx <max>) and spread its interrupts over several NIC-local CPUs (more RSS queues, irqbalance) so no CPU falls behind.',
  'host-backpressure':
    'The NIC could not hand packets to the host fast enough: check the PCIe link (current vs maximum width and speed), raise the rings to their maximum (ethtool -G {subject} rx <max>) and turn on flow control (ethtool -A {subject} rx on tx on) so the NIC pauses the sender instead of dropping.',
  'host-memory': 'The driver could not allocate receive buffers: check free memory on the NIC\'s NUMA node and raise vm.min_free_kbytes if memory is fragmented.',
  cpu: 'Spread receive processing over more CPUs (more queues: ethtool -L {subject} combined <N>; RPS) and keep the receiving CPUs free of other work.',
  'tx-queue': 'Raise the transmit ring to its maximum (ethtool -G {subject} tx <max>) and check that the sending CPUs are not saturated.',
  'cloud-allowance': 'The hypervisor limits this instance type: use a larger instance type or spread the traffic; the host cannot fix this itself.',
  physical:
    'Check the cable or optic and its signal levels (ethtool -m {subject}), clean or replace it, and compare with the error counters of the switch port; try another switch port.',
  mtu: 'Make the MTU equal on this host, the switch and the peer.',
  none: 'Nothing to change on this host; if the count grows during a test, look at the path and the peer.',
};

const SYMPTOM_OF: Record<CounterCategory, 'nic-drops' | 'physical-errors' | 'nic-errors' | null> = {
  drop: 'nic-drops',
  'physical-error': 'physical-errors',
  error: 'nic-errors',
  info: null,
};

const SINCE_LOAD = 'Counters are totals since the driver loaded: compare them before and after a test (nicdoctor bench measures the increase).';

export default defineCheck({
  id: 'nic-drops',
  title: 'NIC drop and error counters are clean',
  failureTitle: 'The NIC dropped packets or saw physical errors',
  description:
    'Reads ethtool -S <if> and /sys/class/net/<if>/statistics and explains the driver-specific counters: drops for lack of receive buffers or host backpressure (mlx5 rx_out_of_buffer / rx_discards_phy, ixgbe rx_missed_errors, igb rx_no_buffer_count, i40e/ice port.rx_dropped, bnxt rx_discards, ...), CRC and symbol errors (cable, optic, switch port), other errors such as bad checksums or malformed frames (info), and one receive queue taking most of the packets (info). The sysfs counters are used where ethtool shows nothing of a kind (virtio, veth) or cannot run.',
  scope: 'interface',
  requires: ['net.statistics', 'net.device'],
  optionalFacts: ['ethtool.stats'],
  options,
  symptoms: {
    'nic-drops': {
      severity: 'warning',
      message: '{subject}: {counter} = {value} since the driver loaded{detail}: {meaning}',
      fix: `{action} ${SINCE_LOAD}`,
    },
    'physical-errors': {
      severity: 'warning',
      message: '{subject}: {counter} = {value} since the driver loaded{detail}: {meaning}',
      fix: `{action} ${SINCE_LOAD}`,
    },
    'nic-errors': {
      severity: 'info',
      message: '{subject}: {counter} = {value} since the driver loaded{detail}: {meaning}',
      fix: `{action} ${SINCE_LOAD}`,
    },
    'rx-queue-imbalance': {
      severity: 'info',
      message:
        '{subject}: receive queue {queue} took {sharePercent} % of the packets since the driver loaded ({activeQueues} of {queues} queues carried traffic): the load sits on one CPU',
      fix: 'Few flows hash to few queues; with many flows, check the RSS indirection table (ethtool -x {subject}) and the hash fields (ethtool -n {subject} rx-flow-hash tcp4), and spread the queues\' interrupts over NIC-local CPUs.',
    },
  },
  run({ facts, optional, options: opts, subject, report, source, notApplicable }) {
    const device = facts['net.device'];
    // A bond, bridge or VLAN sums (or relabels) its members' counters and adds harmless drops of
    // its own (frames on inactive bond members): the member ports are judged instead.
    if (device.kind === 'bond' || device.kind === 'bridge' || device.kind === 'vlan') {
      return notApplicable(`${subject} is a ${device.kind}: its member interfaces' counters are checked instead`);
    }
    const statistics = facts['net.statistics'];
    const ethtool = optional['ethtool.stats'];
    const fromEthtool = ethtool.ok ? classifyEthtoolStats(ethtool.value, device.driver) : [];
    const fromSysfs = classifyNetStatistics(statistics.counters);
    const rxPackets = statistics.counters.rx_packets ?? null;

    // ethtool first; a sysfs counter only where the driver shows nothing of that category, so the
    // same drop is not reported twice under two names (mlx5 fills rx_missed_errors from rx_out_of_buffer).
    const categoriesInEthtool = new Set<CounterCategory>(fromEthtool.map((counter) => counter.category));
    const namesInEthtool = new Set(fromEthtool.map((counter) => counter.name));
    const chosen: Array<{ counter: ClassifiedCounter; origin: 'ethtool.stats' | 'net.statistics' }> = [
      ...fromEthtool.map((counter) => ({ counter, origin: 'ethtool.stats' as const })),
      ...fromSysfs
        .filter((counter) => !categoriesInEthtool.has(counter.category) && !namesInEthtool.has(counter.name))
        .map((counter) => ({ counter, origin: 'net.statistics' as const })),
    ];

    for (const { counter, origin } of chosen) {
      const symptom = SYMPTOM_OF[counter.category];
      if (!symptom) continue;
      const threshold = symptom === 'nic-drops' ? opts.minDrops : symptom === 'physical-errors' ? opts.minPhysicalErrors : opts.minErrors;
      if (counter.value <= threshold) continue;
      const where = origin === 'ethtool.stats' ? source(origin, 'ethtool -S') : source(origin, `/statistics/${counter.name}`);
      const details = [
        counter.queues > 0 ? `sum of ${counter.queues} queues` : null,
        rxPackets && isReceiveCounter(counter) ? `${percent(counter.value, rxPackets)} % of received packets` : null,
      ].filter(Boolean);
      report(symptom, {
        // Counters that also count harmless frames (sysfs rx_dropped) are shown, not failed on.
        ...(counter.mayBeBenign ? { severity: 'info' as const } : {}),
        evidence: [evidence(counter.name, counter.value, threshold, where)],
        data: {
          counter: counter.name,
          value: counter.value,
          queues: counter.queues,
          detail: details.length > 0 ? ` (${details.join('; ')})` : '',
          meaning: counter.meaning,
          remedy: counter.remedy,
          // Rendered here: the engine fills a template once, not the text put into it.
          action: ACTIONS[counter.remedy].replaceAll('{subject}', subject),
          origin,
          driver: device.driver,
        },
      });
    }

    if (ethtool.ok) {
      const queues = rxQueuePackets(ethtool.value);
      const total = queues.reduce((sum, queue) => sum + queue.packets, 0);
      if (queues.length >= 2 && total >= opts.minQueuePackets) {
        const busiest = queues.reduce((best, queue) => (queue.packets > best.packets ? queue : best));
        const share = busiest.packets / total;
        if (share > opts.maxQueueShare && share >= opts.minShareOverFair / queues.length) {
          report('rx-queue-imbalance', {
            evidence: [
              {
                label: `rx queue ${busiest.queue} share of received packets`,
                observed: Math.round(share * 1000) / 10,
                expected: `≤ ${opts.maxQueueShare * 100}`,
                unit: '%',
                ...withSource(source('ethtool.stats', 'ethtool -S')),
              },
            ],
            data: {
              queue: busiest.queue,
              packets: busiest.packets,
              totalPackets: total,
              share,
              sharePercent: Math.round(share * 1000) / 10,
              queues: queues.length,
              activeQueues: queues.filter((queue) => queue.packets > 0).length,
            },
          });
        }
      }
    }
    return undefined;
  },
});

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
