import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { TcEntry } from '../src/parsers/tc-qdisc.js';

const options = z.object({
  /** A shaper at or above this share of the link speed does not cap it. */
  shapedBelowPercent: z.number().positive().max(100).default(100),
});

/** Ingress and clsact hang off ffff:, outside the egress tree a shaper limits. */
function egress(entry: TcEntry): boolean {
  return entry.kind !== 'ingress' && entry.kind !== 'clsact' && !(entry.parent ?? '').startsWith('ffff:');
}

interface Shaper {
  entry: TcEntry;
  bitsPerSecond: number;
  perFlow: boolean;
}

/** The rate an entry enforces: htb may borrow up to ceil; fq maxrate caps each flow. */
function shaperOf(entry: TcEntry): Shaper | null {
  if (entry.type === 'class' && entry.kind === 'htb') {
    const limit = entry.ceilBitsPerSecond ?? entry.rateBitsPerSecond;
    return limit === null ? null : { entry, bitsPerSecond: limit, perFlow: false };
  }
  if (entry.bandwidthBitsPerSecond !== null) return { entry, bitsPerSecond: entry.bandwidthBitsPerSecond, perFlow: false };
  if (entry.maxrateBitsPerSecond !== null) return { entry, bitsPerSecond: entry.maxrateBitsPerSecond, perFlow: true };
  if (entry.rateBitsPerSecond !== null) return { entry, bitsPerSecond: entry.rateBitsPerSecond, perFlow: false };
  return null;
}

const counter = z.number().int().nonnegative();

const gbps = (bitsPerSecond: number) => Number((bitsPerSecond / 1e9).toFixed(2));

export default defineCheck({
  id: 'qdisc',
  title: 'Egress qdiscs and shapers',
  description:
    'Reads tc -s qdisc show dev <if> (and tc -s class show for classful qdiscs). A qdisc or class with a rate below the link speed (tbf, htb, cake bandwidth, fq maxrate per flow) caps egress whatever the streams; drops counted on the root qdisc since it was created mean packets were discarded before the NIC. net.core.default_qdisc is judged by socket-buffers.',
  scope: 'interface',
  requires: ['tc.qdisc', 'net.device'],
  options,
  appliesTo: (iface) =>
    iface.kind === 'bridge' ? `${iface.name} is a bridge: its speed is nominal, the ports below it carry the traffic` : null,
  symptoms: {
    'egress-shaped': symptom({
      severity: 'warning',
      data: z.object({
        /** The qdisc kind (tbf, htb, cake, fq) and tc handle of the tightest shaper. */
        kind: z.string().min(1),
        handle: z.string().min(1),
        type: z.enum(['qdisc', 'class']),
        rateMbps: z.number().nonnegative(),
        rateGbps: z.number().nonnegative(),
        linkMbps: z.number().positive(),
        linkGbps: z.number().positive(),
        percent: z.number().nonnegative(),
        /** fq maxrate caps each flow, not the interface. */
        perFlow: z.boolean(),
      }),
      phrases: { limits: (d) => (d.perFlow ? 'each flow' : 'egress') },
      message: '{subject}: {kind} {handle} limits {limits} to {rateGbps} Gb/s, {percent} % of the {linkGbps} Gb/s link',
      fix: 'If nobody needs this shaper, remove it: tc qdisc del dev {subject} root (otherwise raise its rate)',
    }),
    'qdisc-drops': symptom({
      severity: 'warning',
      data: z.object({
        kind: z.string().min(1),
        handle: z.string().min(1),
        dropped: counter,
        overlimits: counter.nullable(),
        sentPackets: counter.nullable(),
      }),
      phrases: {
        sentCount: (d) => (d.sentPackets === null ? 'an unknown number of' : String(d.sentPackets)),
        overlimitCount: (d) => (d.overlimits === null ? 'unknown' : String(d.overlimits)),
      },
      message:
        '{subject}: the root {kind} qdisc dropped {dropped} of {sentCount} packets since it was created (overlimits {overlimitCount})',
      fix: 'See which qdisc drops with tc -s qdisc show dev {subject}: a shaper or a short queue limit (raise the limit, or pace flows with fq)',
    }),
  },
  run({ facts, options: opts, subject, report, unknown, source }) {
    const tc = facts['tc.qdisc'];
    const device = facts['net.device'];
    const tcSource = source('tc.qdisc', 'qdisc');
    const withSource = tcSource ? { source: tcSource } : {};

    const root = tc.qdiscs.find((entry) => entry.root);
    if (root && root.dropped !== null && root.dropped > 0) {
      report('qdisc-drops', {
        evidence: [{ label: `${root.kind} ${root.handle} dropped`, observed: root.dropped, expected: 0, unit: 'packets', ...withSource }],
        data: { kind: root.kind, handle: root.handle, dropped: root.dropped, overlimits: root.overlimits, sentPackets: root.sentPackets },
      });
    }

    const shapers = [...tc.qdiscs, ...tc.classes]
      .filter(egress)
      .map(shaperOf)
      .filter((shaper): shaper is Shaper => shaper !== null);
    if (shapers.length === 0) return undefined;
    if (device.speedMbps === null)
      return unknown(
        `${subject} has a ${shapers[0]!.entry.kind} shaper but its link speed is unknown: cannot tell whether it limits the link`,
      );
    const linkBits = device.speedMbps * 1e6;
    const tightest = shapers.reduce((best, shaper) => (shaper.bitsPerSecond < best.bitsPerSecond ? shaper : best));
    const percent = Math.round((tightest.bitsPerSecond / linkBits) * 1000) / 10;
    if (percent >= opts.shapedBelowPercent) return undefined;
    report('egress-shaped', {
      evidence: [
        {
          label: `${tightest.entry.type} ${tightest.entry.kind} ${tightest.entry.handle} rate`,
          observed: tightest.bitsPerSecond / 1e6,
          expected: device.speedMbps,
          unit: 'Mb/s',
          ...withSource,
        },
        {
          label: 'link speed',
          observed: device.speedMbps,
          unit: 'Mb/s',
          source: { kind: 'file', path: `/sys/class/net/${subject}/speed` },
        },
      ],
      data: {
        kind: tightest.entry.kind,
        handle: tightest.entry.handle,
        type: tightest.entry.type,
        rateMbps: tightest.bitsPerSecond / 1e6,
        rateGbps: gbps(tightest.bitsPerSecond),
        linkMbps: device.speedMbps,
        linkGbps: device.speedMbps / 1000,
        percent,
        perFlow: tightest.perFlow,
      },
    });
    return undefined;
  },
});
