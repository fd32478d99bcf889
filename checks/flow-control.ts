import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import type { Evidence } from '../src/report/schema.js';

const options = z.object({
  /** Pause frames matter where a burst outruns the host: 10G and up. */
  minSpeedMbps: z.number().positive().default(10_000),
  /** Drivers that default flow control to off (CAUSES.md cause 14: Intel ice): a warning there. */
  offByDefaultDrivers: z.array(z.string()).default(['ice']),
});

const onOffSchema = z.enum(['on', 'off']);

function onOff(value: boolean): 'on' | 'off' {
  return value ? 'on' : 'off';
}

export default defineCheck({
  id: 'flow-control',
  title: 'Ethernet flow control (pause frames)',
  description:
    'Reads ethtool -a on physical ports of 10G and up. Pause frames off (configured, or refused by the link partner) is noted: without them a burst the host cannot absorb is dropped at the NIC. A warning for drivers that turn it off by default (ice). Virtual NICs have no pause frames.',
  scope: 'interface',
  appliesTo: (iface) =>
    iface.kind === 'physical' ? null : `${iface.name} is a ${iface.kind} interface: pause frames belong to a physical port`,
  requires: ['net.device'],
  optionalFacts: ['ethtool.pause', 'ticket.reports'],
  options,
  symptoms: {
    'pause-off': symptom({
      severity: 'info',
      data: z.object({
        rx: onOffSchema,
        tx: onOffSchema,
        /** Configured on, but autonegotiation with the link partner settled on off. */
        refused: z.boolean(),
        driver: z.string().nullable(),
        speedMbps: z.number().nullable(),
        /** The driver turns flow control off by default (options.offByDefaultDrivers). */
        offByDefault: z.boolean(),
        /** The ticket's poster says turning flow control on cured the problem. */
        curedByPoster: z.boolean(),
      }),
      phrases: {
        detail: (d) =>
          d.refused
            ? 'configured on, but autonegotiation with the link partner settled on off: the switch port has flow control off'
            : 'configured off',
        driverNote: (d) =>
          (d.offByDefault ? `; the ${d.driver} driver turns it off by default, a known cause of drops under bursts` : '') +
          (d.curedByPoster ? '; the ticket reports that turning flow control on cured the problem' : ''),
      },
      message:
        '{subject}: flow control RX {rx}, TX {tx} ({detail}); without pause frames a burst the host cannot absorb is dropped at the NIC{driverNote}',
      fix: {
        text: '{commands}, and turn flow control on at the switch port too (both ends must agree)',
        ops: [{ kind: 'ethtool-pause', iface: '{subject}', rx: 'on', tx: 'on' }],
      },
    }),
  },
  run(ctx) {
    const { facts, optional, options: opts, report, notApplicable, unknown, source } = ctx;
    const device = facts['net.device'];
    if (device.kind !== 'physical') return notApplicable(`${device.kind} interface: pause frames belong to a physical port`);
    const result = optional['ethtool.pause'];
    if (!result.ok)
      return skipForFailedFact(ctx, result.error, { unsupported: (message) => `the driver does not support flow control (${message})` });
    if (device.speedMbps !== null && device.speedMbps < opts.minSpeedMbps) return undefined;
    const pause = result.value;
    if (pause.rx === null || pause.tx === null) return unknown('ethtool -a did not report both RX and TX pause settings');
    // Off when configured off, or when autonegotiation with the link partner settled on off.
    // ethtool derives "negotiated" from both ends' advertisements, so it cannot turn a
    // configured off into on.
    const rx = pause.rx && pause.rxNegotiated !== false;
    const tx = pause.tx && pause.txNegotiated !== false;
    if (rx && tx) return undefined;

    const commandSource = source('ethtool.pause', '-a');
    const withSource = (item: Evidence): Evidence => ({ ...item, ...(commandSource ? { source: commandSource } : {}) });
    const refused = (pause.rx && !rx) || (pause.tx && !tx);
    const offByDefault = device.driver !== null && opts.offByDefaultDrivers.includes(device.driver);
    const evidence: Evidence[] = [
      withSource({ label: 'pause RX', observed: onOff(rx), expected: 'on' }),
      withSource({ label: 'pause TX', observed: onOff(tx), expected: 'on' }),
    ];
    if (pause.autonegotiate !== null) evidence.push(withSource({ label: 'pause autonegotiate', observed: onOff(pause.autonegotiate) }));
    // Pause frames off is a setting many fabrics choose; it becomes a cause only with drops at the
    // NIC (rule flow-control-off, which the drops then make a warning), or when the poster's own
    // before-and-after test says turning it on cured the problem.
    const tickets = optional['ticket.reports'];
    const curedByPoster = tickets.ok && tickets.value.flowControlCured;
    report('pause-off', {
      ...(curedByPoster ? { severity: 'warning' as const } : {}),
      evidence,
      data: {
        rx: onOff(rx),
        tx: onOff(tx),
        refused,
        driver: device.driver,
        speedMbps: device.speedMbps,
        offByDefault,
        curedByPoster,
      },
    });
    return undefined;
  },
});
