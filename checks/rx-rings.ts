import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import { ownedNicOnly } from '../src/domain/interface-kinds.js';
import type { Evidence, Severity } from '../src/report/schema.js';

const options = z.object({
  /** At and above this speed a short ring drops bursts (CAUSES.md cause 7): warning. */
  fastLinkMbps: z.number().positive().default(10_000),
  /** A driver maximum below this many RX descriptors cannot absorb a burst at all. */
  smallRingMax: z.number().int().positive().default(512),
});

type Direction = 'rx' | 'tx';

const ringSize = z.number().int().nonnegative().nullable();

/** Both directions' sizes (a driver without a TX ring reports null or 0 as its maximum). */
const ringsBelowMax = z.object({
  rxCurrent: ringSize,
  rxMax: ringSize,
  txCurrent: ringSize,
  txMax: ringSize,
  speedMbps: z.number().nonnegative().nullable(),
  /** At or above the check's fastLinkMbps (a short ring drops bursts there). */
  fastLink: z.boolean(),
  profile: z.enum(['throughput', 'measurement', 'latency']),
});
type RingsBelowMax = z.infer<typeof ringsBelowMax>;

/** The real maximum of a direction; 0 means the driver has no such ring. */
const realMax = (max: number | null) => (max !== null && max > 0 ? max : null);

const ringPhrases = {
  note: (d: RingsBelowMax) =>
    d.profile === 'latency'
      ? 'for a latency host deeper rings add queueing delay, so this is a trade-off, not a fault'
      : d.fastLink && d.speedMbps !== null
        ? `on a ${d.speedMbps / 1000} Gb/s port bursts beyond the ring are dropped and retransmitted, which matters once ethtool -S shows drops`
        : `on a ${d.speedMbps === null ? 'port of unknown speed' : `${d.speedMbps / 1000} Gb/s port`} this matters only if drops show in ethtool -S`,
  /** The ring sizes the structured fix sets: each real maximum, empty (left out) for a ring the driver lacks. */
  rxTarget: (d: RingsBelowMax) => String(realMax(d.rxMax) ?? ''),
  txTarget: (d: RingsBelowMax) => String(realMax(d.txMax) ?? ''),
  /** ethtool -G arguments that set every direction the driver reports to its real maximum. */
  setting: (d: RingsBelowMax) =>
    (['rx', 'tx'] as const)
      .flatMap((direction) => {
        const max = realMax(direction === 'rx' ? d.rxMax : d.txMax);
        return max === null ? [] : [`${direction} ${max}`];
      })
      .join(' '),
};

export default defineCheck({
  id: 'rx-rings',
  title: 'RX/TX ring sizes',
  description:
    'Reads ethtool -g: current RX/TX ring sizes against the driver maximum. Rings below the maximum drop bursts at the NIC: a warning on a throughput or measurement host with a 10G+ port, info below 10G and on a latency host (deeper rings add queueing delay). A driver whose maximum is tiny is noted.',
  scope: 'interface',
  appliesTo: ownedNicOnly('configurable rings'),
  requires: ['net.device'],
  optionalFacts: ['ethtool.rings'],
  options,
  symptoms: {
    'rx-ring-below-max': symptom({
      severity: 'warning',
      data: ringsBelowMax,
      phrases: ringPhrases,
      message: '{subject}: RX ring {rxCurrent} of a possible {rxMax} descriptors; {note}',
      fix: {
        text: '{commands} (briefly resets the link; not persistent: add it to the interface configuration)',
        ops: [{ kind: 'ethtool-rings', iface: '{subject}', rx: '{rxTarget}', tx: '{txTarget}' }],
      },
    }),
    'tx-ring-below-max': symptom({
      severity: 'warning',
      data: ringsBelowMax,
      phrases: ringPhrases,
      message: '{subject}: TX ring {txCurrent} of a possible {txMax} descriptors; {note}',
      fix: {
        text: '{commands} (briefly resets the link; not persistent: add it to the interface configuration)',
        ops: [{ kind: 'ethtool-rings', iface: '{subject}', rx: '{rxTarget}', tx: '{txTarget}' }],
      },
    }),
    'ring-max-small': symptom({
      severity: 'info',
      data: z.object({ rxMax: z.number().int().nonnegative(), smallRingMax: z.number().int().positive() }),
      message:
        '{subject}: the driver allows at most {rxMax} RX descriptors, below {smallRingMax}: bursts larger than that drop at the NIC whatever the settings',
      fix: 'Nothing to raise with ethtool: if ethtool -S {subject} shows drops, use a NIC or driver with deeper rings (for a virtual NIC, the hypervisor sets the queue size)',
    }),
  },
  run(ctx) {
    const { facts, optional, options: opts, profile, report, unknown, source } = ctx;
    const device = facts['net.device'];
    const result = optional['ethtool.rings'];
    // veth and some virtual NICs answer "Operation not supported": nothing to size.
    if (!result.ok)
      return skipForFailedFact(ctx, result.error, { unsupported: (message) => `the driver has no configurable rings (${message})` });
    const rings = result.value;
    const commandSource = source('ethtool.rings', '-g');
    const fast = device.speedMbps !== null && device.speedMbps >= opts.fastLinkMbps;
    // A ring below its maximum is a setting, not a symptom: without drops it limits nothing, so it
    // is a note; with drops, rule rings-small-with-drops makes it a cause.
    const severity: Severity = 'info';
    // A maximum of 0 means the driver has no such ring.
    const maxOf = (direction: Direction) => realMax(rings.max[direction]);

    let judged = 0;
    for (const direction of ['rx', 'tx'] as const) {
      const max = maxOf(direction);
      const current = rings.current[direction];
      if (max === null || current === null) continue;
      judged += 1;
      if (current >= max) continue;
      const label = direction.toUpperCase();
      const evidence: Evidence[] = [
        {
          label: `${label} ring`,
          observed: current,
          expected: max,
          unit: 'descriptors',
          ...(commandSource ? { source: commandSource } : {}),
        },
      ];
      if (device.speedMbps !== null)
        evidence.push({
          label: 'link speed',
          observed: device.speedMbps,
          unit: 'Mb/s',
          source: { kind: 'file', path: `/sys/class/net/${device.name}/speed` },
        });
      report(direction === 'rx' ? 'rx-ring-below-max' : 'tx-ring-below-max', {
        severity,
        evidence,
        data: {
          rxCurrent: rings.current.rx,
          rxMax: rings.max.rx,
          txCurrent: rings.current.tx,
          txMax: rings.max.tx,
          speedMbps: device.speedMbps,
          fastLink: fast,
          profile,
        },
      });
    }

    const rxMax = maxOf('rx');
    if (rxMax !== null && rxMax < opts.smallRingMax) {
      report('ring-max-small', {
        evidence: [
          {
            label: 'RX ring maximum',
            observed: rxMax,
            expected: opts.smallRingMax,
            unit: 'descriptors',
            ...(commandSource ? { source: commandSource } : {}),
          },
        ],
        data: { rxMax, smallRingMax: opts.smallRingMax },
      });
    } else if (judged === 0) {
      return unknown('ethtool -g printed no current ring sizes to compare with the maximum');
    }
    return undefined;
  },
});
