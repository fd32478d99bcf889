import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import { ownedNicOnly } from '../src/domain/interface-kinds.js';
import type { EthtoolCoalesce } from '../src/parsers/ethtool-coalesce.js';
import type { SymptomFixTemplate } from '../src/report/fix-operations.js';
import type { Evidence, Source } from '../src/report/schema.js';
import type { FactResult } from '../src/contracts/facts.js';
import type { NetDevice } from '../src/collectors/net-device.js';
import type { EthtoolDriver } from '../src/parsers/ethtool-driver.js';
import type { EthtoolStats } from '../src/parsers/ethtool-stats.js';
import { driverFromCounters } from '../src/collectors/interface-identity.js';

/**
 * Intel's older drivers have no "Adaptive RX" flag: small rx-usecs values select their
 * dynamic interrupt throttling instead of a delay (e1000/e1000e: 1 dynamic, 3 dynamic
 * conservative, 4 simplified balancing; igb: 1, 3; ixgbe: rx_itr_setting 1). The first
 * value is the driver's default, used in the fix.
 */
const ITR_DYNAMIC_VALUES: Record<string, readonly number[]> = {
  e1000: [3, 1, 4],
  e1000e: [3, 1, 4],
  igb: [3, 1],
  igbvf: [3, 1],
  ixgbe: [1],
  ixgbevf: [1],
};

const options = z.object({
  /** rx-usecs at or below this, without frame batching, means one interrupt per packet. */
  perPacketRxUsecs: z.number().int().nonnegative().default(1),
  /** Latency profile: a fixed RX delay above this many microseconds is a warning. */
  latencyMaxRxUsecs: z.number().int().positive().default(50),
  /** A port whose interrupt vectors counted fewer than this since boot is idle: its per-packet setting costs nothing yet. */
  idlePortInterrupts: z.number().int().nonnegative().default(1000),
});

function dynamicItr(driver: string | null, coalesce: EthtoolCoalesce): boolean {
  const values = driver ? ITR_DYNAMIC_VALUES[driver] : undefined;
  return values !== undefined && coalesce.rxUsecs !== null && values.includes(coalesce.rxUsecs);
}

/** Both coalescing symptoms set what their target phrases name: adaptive off/on, rx-usecs. */
const COALESCE_FIX: SymptomFixTemplate = {
  text: '{commands}',
  ops: [
    {
      kind: 'ethtool-coalesce',
      iface: '{subject}',
      'adaptive-rx': '{targetAdaptiveRx}',
      'adaptive-tx': '{targetAdaptiveTx}',
      'rx-usecs': '{targetRxUsecs}',
    },
  ],
};

const adaptiveSchema = z.enum(['on', 'off', 'n/a']);
const profileSchema = z.enum(['throughput', 'latency', 'measurement']);

function onOff(value: boolean | null): 'on' | 'off' | 'n/a' {
  return value === null ? 'n/a' : value ? 'on' : 'off';
}

export default defineCheck({
  id: 'coalescing',
  title: 'Interrupt coalescing',
  description:
    'Reads ethtool -c. Throughput host: adaptive coalescing off with rx-usecs 0/1 and no frame batching means an interrupt per packet (warning: high interrupt rate and CPU at moderate rates). Measurement (perfSONAR-style) host: adaptive coalescing on is noted, such hosts turn it off. Latency host: a fixed rx-usecs above the limit (default 50 µs) is a warning; adaptive on is noted. Knows the dynamic rx-usecs modes of e1000/e1000e/igb/ixgbe.',
  scope: 'interface',
  appliesTo: ownedNicOnly('interrupt coalescing settings'),
  requires: ['net.device'],
  // The driver gives rx-usecs its meaning: from sysfs, else ethtool -i, else its counter names.
  optionalFacts: ['ethtool.coalesce', 'ethtool.driver', 'ethtool.stats', 'nic.irqs'],
  options,
  symptoms: {
    'interrupt-per-packet': symptom({
      severity: 'warning',
      data: z.object({
        rxUsecs: z.number().int().nullable(),
        rxFrames: z.number().int().nullable(),
        driver: z.string().nullable(),
        profile: profileSchema,
        paravirtual: z.boolean(),
        /** The driver's default dynamic-throttling rx-usecs the fix sets; null: the fix turns adaptive coalescing on. */
        setRxUsecs: z.number().int().nullable(),
      }),
      phrases: {
        setting: (d) => (d.setRxUsecs !== null ? `rx-usecs ${d.setRxUsecs}` : 'adaptive-rx on adaptive-tx on'),
        // What the structured fix sets; an empty value leaves the parameter out.
        targetRxUsecs: (d) => (d.setRxUsecs !== null ? String(d.setRxUsecs) : ''),
        targetAdaptiveRx: (d) => (d.setRxUsecs !== null ? '' : 'on'),
        targetAdaptiveTx: (d) => (d.setRxUsecs !== null ? '' : 'on'),
        note: (d) =>
          d.paravirtual
            ? ' (a virtual NIC: the hypervisor may not offer coalescing to the guest)'
            : d.driver === null
              ? ' (the driver is not known: on e1000e, igb and ixgbe this rx-usecs value selects dynamic throttling instead; ethtool -i tells)'
              : '',
      },
      message:
        '{subject}: adaptive coalescing off and rx-usecs {rxUsecs} (rx-frames {rxFrames}): one interrupt per packet; for a throughput host that means a high interrupt rate and CPU load already at moderate rates{note}',
      fix: COALESCE_FIX,
    }),
    'adaptive-coalescing-on': symptom({
      severity: 'info',
      data: z.object({
        adaptiveRx: adaptiveSchema,
        adaptiveTx: adaptiveSchema,
        driver: z.string().nullable(),
        rxUsecs: z.number().int().nullable(),
        /** rx-usecs selects the driver's dynamic interrupt throttling (e1000/igb/ixgbe), its form of adaptive coalescing. */
        dynamicItr: z.boolean(),
        rxUsecsHigh: z.number().nullable(),
        profile: profileSchema,
      }),
      phrases: {
        dynamicMode: (d) => (d.dynamicItr ? `; ${d.driver} rx-usecs ${d.rxUsecs} is its dynamic throttling mode` : ''),
        why: (d) =>
          d.profile === 'measurement'
            ? 'a measurement (perfSONAR-style) host turns it off so that interrupt timing does not blur what is measured'
            : `for a latency host it lets the driver raise the delay under load${d.rxUsecsHigh ? ` (up to rx-usecs-high ${d.rxUsecsHigh} µs)` : ''}`,
        // What the structured fix sets: rx-usecs 0 for a dynamic-ITR driver, else adaptive off where it is on.
        targetRxUsecs: (d) => (d.dynamicItr ? '0' : ''),
        targetAdaptiveRx: (d) => (!d.dynamicItr && d.adaptiveRx === 'on' ? 'off' : ''),
        targetAdaptiveTx: (d) => (!d.dynamicItr && d.adaptiveTx === 'on' ? 'off' : ''),
        setting: (d) =>
          d.dynamicItr
            ? 'rx-usecs 0'
            : [d.adaptiveRx === 'on' ? 'adaptive-rx off' : '', d.adaptiveTx === 'on' ? 'adaptive-tx off' : ''].filter(Boolean).join(' '),
      },
      message: '{subject}: adaptive interrupt coalescing is on (RX {adaptiveRx}, TX {adaptiveTx}{dynamicMode}); {why}',
      fix: COALESCE_FIX,
    }),
    'high-rx-usecs': symptom({
      severity: 'warning',
      data: z.object({
        rxUsecs: z.number().int(),
        interruptsPerSecond: z.number().int(),
        latencyMaxRxUsecs: z.number().int(),
        profile: profileSchema,
      }),
      message:
        '{subject}: rx-usecs {rxUsecs} holds each received packet up to {rxUsecs} µs (about {interruptsPerSecond} interrupts/s per queue); for a latency host keep it at or below {latencyMaxRxUsecs} µs',
      fix: {
        text: '{commands}',
        ops: [{ kind: 'ethtool-coalesce', iface: '{subject}', 'adaptive-rx': 'off', 'rx-usecs': '{latencyMaxRxUsecs}' }],
      },
    }),
  },
  run(ctx) {
    const { facts, optional, options: opts, profile, report, unknown, source } = ctx;
    const device = facts['net.device'];
    const driver = knownDriver(device, optional['ethtool.driver'], optional['ethtool.stats']);
    const result = optional['ethtool.coalesce'];
    if (!result.ok)
      return skipForFailedFact(ctx, result.error, {
        unsupported: (message) => `the driver has no interrupt coalescing settings (${message})`,
      });
    const coalesce = result.value;
    if (coalesce.adaptiveRx === null && coalesce.rxUsecs === null) {
      return unknown('ethtool -c reports neither adaptive coalescing nor rx-usecs for this driver');
    }
    const commandSource: Source | undefined = source('ethtool.coalesce', '-c');
    const withSource = (item: Evidence): Evidence => ({ ...item, ...(commandSource ? { source: commandSource } : {}) });
    const itrDynamic = dynamicItr(driver, coalesce);
    const adaptive = coalesce.adaptiveRx === true || coalesce.adaptiveTx === true || itrDynamic;
    const adaptiveEvidence = withSource({ label: 'adaptive RX', observed: onOff(coalesce.adaptiveRx) });
    const rxUsecsEvidence = withSource({ label: 'rx-usecs', observed: coalesce.rxUsecs, unit: 'µs' });

    if (profile === 'throughput') {
      // Per-packet interrupts are a receive matter: adaptive TX does not moderate them.
      const rxAdaptive = coalesce.adaptiveRx === true || itrDynamic;
      const perPacket =
        !rxAdaptive &&
        coalesce.rxUsecs !== null &&
        coalesce.rxUsecs <= opts.perPacketRxUsecs &&
        (coalesce.rxFrames === null || coalesce.rxFrames <= 1);
      if (perPacket) {
        const dynamic = driver ? ITR_DYNAMIC_VALUES[driver] : undefined;
        const paravirtual = device.kind === 'paravirtual';
        // With no driver from any evidence, rx-usecs 1 may be an Intel dynamic mode: a note.
        const ambiguous = driver === null && Object.values(ITR_DYNAMIC_VALUES).some((values) => values.includes(coalesce.rxUsecs!));
        // Interrupt counts since boot that show the port idle: nothing has been interrupted per packet.
        const irqs = optional['nic.irqs'];
        const counted = irqs.ok ? irqs.value.irqs.filter((irq) => irq.counts.length > 0) : [];
        const idle =
          counted.length > 0 && counted.reduce((sum, irq) => sum + irq.counts.reduce((a, b) => a + b, 0), 0) < opts.idlePortInterrupts;
        report('interrupt-per-packet', {
          // A virtual NIC's interrupts are the hypervisor's to moderate; many cannot coalesce at all.
          ...(paravirtual || ambiguous || idle ? { severity: 'info' as const } : {}),
          evidence: [
            { ...adaptiveEvidence, expected: 'on' },
            { ...rxUsecsEvidence, expected: dynamic ? dynamic[0]! : '> 1 or adaptive' },
            withSource({ label: 'rx-frames', observed: coalesce.rxFrames }),
          ],
          data: {
            rxUsecs: coalesce.rxUsecs,
            rxFrames: coalesce.rxFrames,
            driver,
            profile,
            paravirtual,
            setRxUsecs: dynamic ? dynamic[0]! : null,
          },
        });
      }
      return undefined;
    }

    if (adaptive) {
      const rxUsecsHigh = coalesce.values['rx-usecs-high'] ?? null;
      report('adaptive-coalescing-on', {
        evidence: [{ ...adaptiveEvidence, expected: 'off' }, ...(itrDynamic ? [{ ...rxUsecsEvidence, expected: 0 }] : [])],
        data: {
          adaptiveRx: onOff(coalesce.adaptiveRx),
          adaptiveTx: onOff(coalesce.adaptiveTx),
          driver,
          rxUsecs: coalesce.rxUsecs,
          dynamicItr: itrDynamic,
          rxUsecsHigh,
          profile,
        },
      });
    }

    if (profile === 'latency' && !itrDynamic && coalesce.rxUsecs !== null && coalesce.rxUsecs > opts.latencyMaxRxUsecs) {
      report('high-rx-usecs', {
        evidence: [{ ...rxUsecsEvidence, expected: opts.latencyMaxRxUsecs }],
        data: {
          rxUsecs: coalesce.rxUsecs,
          // CAUSES.md: rx-usecs 80 ≈ 12,500 interrupts/s/queue.
          interruptsPerSecond: Math.round(1_000_000 / coalesce.rxUsecs),
          latencyMaxRxUsecs: opts.latencyMaxRxUsecs,
          profile,
        },
      });
    }
    return undefined;
  },
});

/**
 * The NIC's driver from any evidence: sysfs, `ethtool -i`, or the family its `ethtool -S`
 * counter names belong to (a capture with only ethtool -c and -S still names ixgbe or ice).
 */
function knownDriver(device: NetDevice, info: FactResult<EthtoolDriver>, stats: FactResult<EthtoolStats>): string | null {
  if (device.driver) return device.driver;
  if (info.ok && info.value.driver) return info.value.driver;
  return stats.ok ? driverFromCounters(stats.value.counters.map((counter) => counter.name)) : null;
}
