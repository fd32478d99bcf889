import { z } from 'zod';
import type { NetDevice } from '../src/collectors/net-device.js';
import type { SysctlNet } from '../src/collectors/sysctl.js';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence, InterfaceSummary, Scalar } from '../src/report/schema.js';

const tier = z.object({
  label: z.string(),
  /** The tier applies from this link speed up. */
  minMbps: z.number().nonnegative(),
  /** net.core.rmem_max / wmem_max. */
  coreMax: z.number().int().positive(),
  /** Third field of net.ipv4.tcp_rmem / tcp_wmem (autotuning maximum). */
  tcpMax: z.number().int().positive(),
});
type Tier = z.infer<typeof tier>;

// ESnet's 2025 tuning script (CAUSES.md, socket-buffer tiers); perfSONAR's installer is similar.
const ESNET_TIERS: Tier[] = [
  { label: 'below 40G', minMbps: 0, coreMax: 67_108_864, tcpMax: 33_554_432 },
  { label: '40G and up', minMbps: 40_000, coreMax: 536_870_912, tcpMax: 268_435_456 },
  { label: '100G and up', minMbps: 100_000, coreMax: 2_147_483_647, tcpMax: 1_073_741_824 },
];

const options = z.object({
  tiers: z.array(tier).min(1).default(ESNET_TIERS),
  /** RTT used to turn a window into the rate one stream can reach (10 ms: a regional path). */
  rttMs: z.number().positive().default(10),
  /**
   * A buffer that carries the link at this RTT (a data-centre LAN) is a note, not a warning:
   * the ESnet tiers are for long paths, and a LAN host with the kernel's defaults is not slow.
   */
  lanRttMs: z.number().positive().default(1),
  recommendedQdisc: z.string().default('fq'),
  standardMtu: z.number().int().positive().default(1500),
  dropIn: z.string().default('/etc/sysctl.d/90-nicdoctor.conf'),
});

const FIX_TAIL = 'in {dropIn}, then run sysctl --system';

/** The sysctl.d file the fixes write (the dropIn option). */
const dropIn = z.string().min(1);
const bytes = z.number().int().nonnegative();
const qdiscName = z.string().regex(/^[\w-]+$/);
const algorithm = z.string().regex(/^[\w-]+$/);
/** The largest window without the window-scale option. */
const UNSCALED_WINDOW = 65_535;

/** A buffer limit against the ESnet tier of the fastest selected link (there always is one). */
const limitData = z.object({
  key: z.enum(['net.core.rmem_max', 'net.core.wmem_max', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']),
  /** The limit (for tcp_rmem/tcp_wmem: their third field, the autotuning maximum). */
  observed: bytes,
  expected: bytes,
  /** The label of the tier applied (the tiers option). */
  tier: z.string().min(1),
  fastestInterface: z.string().min(1),
  fastestMbps: z.number().nonnegative(),
  /** The RTT the rate ceiling assumes (rttMs option). */
  rttMs: z.number().positive(),
  dropIn,
});
/** tcp_rmem/tcp_wmem keep their first two fields, which the fix writes back unchanged. */
const tcpLimitData = limitData.extend({ min: bytes, default: bytes });

const limitPhrases = {
  linkNote: (d: z.infer<typeof limitData>) => `fastest selected link: ${d.fastestInterface} at ${d.fastestMbps / 1000} Gb/s`,
  window: (d: z.infer<typeof limitData>) => formatBytes(d.observed),
  ceiling: (d: z.infer<typeof limitData>) => formatRate(windowRateMbps(d.observed, d.rttMs)),
};

export default defineCheck({
  id: 'socket-buffers',
  title: 'Socket buffers and TCP sysctls',
  description:
    'Reads net.core.rmem_max/wmem_max and net.ipv4.tcp_rmem/tcp_wmem from /proc/sys and compares them with the ESnet tier for the fastest selected link (below 40G, 40G+, 100G+): one TCP stream cannot go faster than its window divided by the RTT. Also notes the default qdisc (fq paces flows), the congestion control in use, and MTU probing off on hosts with jumbo frames.',
  scope: 'host',
  requires: ['sysctl.net', 'interfaces'],
  options,
  symptoms: {
    'rmem-max-below-tier': symptom({
      severity: 'warning',
      data: limitData,
      phrases: limitPhrases,
      message:
        'net.core.rmem_max is {observed} bytes, less than the {expected} recommended for links {tier} ({linkNote}): a receive buffer set by the application (iperf3 -w) is capped at {window}: {ceiling} at {rttMs} ms RTT',
      fix: 'Put "net.core.rmem_max = {expected}" ' + FIX_TAIL,
    }),
    'wmem-max-below-tier': symptom({
      severity: 'warning',
      data: limitData,
      phrases: limitPhrases,
      message:
        'net.core.wmem_max is {observed} bytes, less than the {expected} recommended for links {tier} ({linkNote}): a send buffer set by the application (iperf3 -w) is capped at {window}: {ceiling} at {rttMs} ms RTT',
      fix: 'Put "net.core.wmem_max = {expected}" ' + FIX_TAIL,
    }),
    'tcp-rmem-below-tier': symptom({
      severity: 'warning',
      data: tcpLimitData,
      phrases: limitPhrases,
      message:
        "net.ipv4.tcp_rmem allows at most {observed} bytes, less than the {expected} recommended for links {tier} ({linkNote}): autotuning caps one stream's receive window at {window}: {ceiling} at {rttMs} ms RTT",
      fix: 'Put "net.ipv4.tcp_rmem = {min} {default} {expected}" ' + FIX_TAIL,
    }),
    'tcp-wmem-below-tier': symptom({
      severity: 'warning',
      data: tcpLimitData,
      phrases: limitPhrases,
      message:
        "net.ipv4.tcp_wmem allows at most {observed} bytes, less than the {expected} recommended for links {tier} ({linkNote}): autotuning caps one stream's send buffer at {window}: {ceiling} at {rttMs} ms RTT",
      fix: 'Put "net.ipv4.tcp_wmem = {min} {default} {expected}" ' + FIX_TAIL,
    }),
    'window-scaling-off': symptom({
      severity: 'warning',
      data: z.object({ observed: z.literal(0), expected: z.literal(1), rttMs: z.number().positive(), dropIn }),
      phrases: { ceiling: (d) => formatRate(windowRateMbps(UNSCALED_WINDOW, d.rttMs)) },
      message:
        'net.ipv4.tcp_window_scaling is 0: every TCP window is limited to 64 KiB ({ceiling} at {rttMs} ms RTT) whatever the buffer sizes',
      fix: 'Put "net.ipv4.tcp_window_scaling = 1" ' + FIX_TAIL,
    }),
    'default-qdisc-not-fq': symptom({
      severity: 'info',
      data: z.object({ observed: qdiscName, expected: qdiscName, dropIn }),
      message:
        'net.core.default_qdisc is {observed}: ESnet recommends {expected}, which paces each TCP flow and so reduces bursts and retransmits when many streams share a link',
      fix:
        'Put "net.core.default_qdisc = {expected}" ' +
        FIX_TAIL +
        '; it applies to qdiscs created afterwards: reboot, or tc qdisc del dev <if> root to let the kernel re-create the default with {expected}',
    }),
    'congestion-control': symptom({
      severity: 'info',
      data: z.object({
        current: algorithm,
        /** net.ipv4.tcp_available_congestion_control: space-separated names; null when unread. */
        available: z
          .string()
          .regex(/^[\w-]+( [\w-]+)*$/)
          .nullable(),
        bbrAvailable: z.boolean(),
        dropIn,
      }),
      phrases: {
        loaded: (d) => d.available ?? 'unknown',
        bbrNote: (d) =>
          d.bbrAvailable
            ? 'bbr is loaded: it keeps throughput up under random loss on long paths, where cubic backs off'
            : 'bbr is not loaded (modprobe tcp_bbr on kernels 4.9+): it keeps throughput up under random loss on long paths, where cubic backs off',
      },
      message: 'TCP congestion control is {current} (loaded: {loaded}); {bbrNote}',
      fix: 'To try BBR: modprobe tcp_bbr, then put "net.ipv4.tcp_congestion_control = bbr" and "net.core.default_qdisc = fq" ' + FIX_TAIL,
    }),
    // Hygiene: probing only matters where a hop has a smaller MTU and ICMP is filtered, which
    // nothing here shows; a note, not a fault. Overlays are judged by the mtu check instead.
    'mtu-probing-off-with-jumbo': symptom({
      severity: 'info',
      data: z.object({
        observed: z.literal(0),
        expected: z.literal(1),
        /** The selected interfaces above the standard MTU, comma-separated. */
        interfaces: z.string().min(1),
        mtu: z.number().int().positive(),
        dropIn,
      }),
      message:
        '{interfaces} use MTU {mtu} but net.ipv4.tcp_mtu_probing is 0: where a hop has a smaller MTU and ICMP "fragmentation needed" is filtered, connections stall instead of finding the path MTU',
      fix: 'Put "net.ipv4.tcp_mtu_probing = 1" ' + FIX_TAIL,
    }),
  },
  run({ facts, interfaces, options: opts, report, notApplicable, unknown, source }) {
    if (interfaces.length === 0) return notApplicable('no network interface is selected');
    const sysctl = facts['sysctl.net'];
    if (sysctl.rmemMax === null && sysctl.wmemMax === null && sysctl.tcpRmem === null && sysctl.tcpWmem === null) {
      return unknown('net.core.rmem_max, wmem_max and net.ipv4.tcp_rmem, tcp_wmem could not be read from /proc/sys');
    }

    const selected = interfaces.map((summary) => facts.interfaces.find((device) => device.name === summary.name) ?? summary);
    const fastest = fastestLink(selected);
    const tiers = [...opts.tiers].sort((a, b) => a.minMbps - b.minMbps);
    const chosen = fastest ? (tiers.filter((candidate) => candidate.minMbps <= fastest.speedMbps).at(-1) ?? tiers[0]!) : tiers[0]!;
    // Only a physical port's negotiated speed picks a tier: a veth's or virtio's 10000 is nominal,
    // and "lowest tier assumed" would tell every VM and container to tune what is not slow.
    // Below this, one stream cannot fill the port even on a LAN.
    const lanBytes = fastest ? (fastest.speedMbps * 1e6 * opts.lanRttMs) / 1000 / 8 : 0;
    const severityFor = (bytes: number) => (bytes >= lanBytes ? { severity: 'info' as const } : {});
    const linkEvidence: Evidence[] = fastest
      ? [
          {
            label: `${fastest.name} link speed`,
            observed: fastest.speedMbps,
            unit: 'Mb/s',
            source: { kind: 'file', path: `/sys/class/net/${fastest.name}/speed` },
          },
        ]
      : [];
    const common = fastest
      ? { tier: chosen.label, fastestInterface: fastest.name, fastestMbps: fastest.speedMbps, rttMs: opts.rttMs, dropIn: opts.dropIn }
      : null;
    const sysctlEvidence = (key: string, observed: Scalar, expected?: Scalar, unit?: string, label = key): Evidence => {
      const from = source('sysctl.net', `/${key.replace(/\./g, '/')}`);
      return {
        label,
        observed,
        ...(expected !== undefined ? { expected } : {}),
        ...(unit ? { unit } : {}),
        ...(from ? { source: from } : {}),
      };
    };

    const coreLimits = [
      ['rmem-max-below-tier', 'net.core.rmem_max', sysctl.rmemMax],
      ['wmem-max-below-tier', 'net.core.wmem_max', sysctl.wmemMax],
    ] as const;
    for (const [symptom, key, observed] of coreLimits) {
      if (!common || observed === null || observed >= chosen.coreMax) continue;
      // rmem_max/wmem_max cap only buffers an application sets itself (iperf3 -w); autotuned
      // TCP, which nearly everything uses, is bounded by tcp_rmem/tcp_wmem: a note, never a cause.
      report(symptom, {
        severity: 'info',
        evidence: [sysctlEvidence(key, observed, chosen.coreMax, 'bytes'), ...linkEvidence],
        data: { key, observed, expected: chosen.coreMax, ...common },
      });
    }

    const tcpLimits = [
      ['tcp-rmem-below-tier', 'net.ipv4.tcp_rmem', sysctl.tcpRmem],
      ['tcp-wmem-below-tier', 'net.ipv4.tcp_wmem', sysctl.tcpWmem],
    ] as const;
    for (const [symptom, key, mem] of tcpLimits) {
      if (!common || mem === null || mem.max >= chosen.tcpMax) continue;
      report(symptom, {
        ...severityFor(mem.max),
        evidence: [sysctlEvidence(key, mem.max, chosen.tcpMax, 'bytes', `${key} maximum`), ...linkEvidence],
        data: { key, observed: mem.max, expected: chosen.tcpMax, min: mem.min, default: mem.default, ...common },
      });
    }

    if (sysctl.tcpWindowScaling === 0) {
      report('window-scaling-off', {
        evidence: [sysctlEvidence('net.ipv4.tcp_window_scaling', 0, 1)],
        data: { observed: 0, expected: 1, rttMs: opts.rttMs, dropIn: opts.dropIn },
      });
    }

    if (sysctl.defaultQdisc !== null && sysctl.defaultQdisc !== opts.recommendedQdisc) {
      report('default-qdisc-not-fq', {
        evidence: [sysctlEvidence('net.core.default_qdisc', sysctl.defaultQdisc, opts.recommendedQdisc)],
        data: { observed: sysctl.defaultQdisc, expected: opts.recommendedQdisc, dropIn: opts.dropIn },
      });
    }

    reportCongestionControl(sysctl, opts.dropIn, sysctlEvidence, report);

    // Only wire-facing devices: an overlay's or a guest tap's MTU follows its underlay (mtu check).
    const jumbo = selected.filter((device) => WIRE_FACING.has(device.kind) && device.mtu !== null && device.mtu > opts.standardMtu);
    if (sysctl.tcpMtuProbing === 0 && jumbo.length > 0) {
      const mtu = Math.max(...jumbo.map((device) => device.mtu!));
      report('mtu-probing-off-with-jumbo', {
        evidence: [
          sysctlEvidence('net.ipv4.tcp_mtu_probing', 0, 1),
          ...jumbo.map((device): Evidence => ({
            label: `${device.name} MTU`,
            observed: device.mtu,
            unit: 'bytes',
            source: { kind: 'file', path: `/sys/class/net/${device.name}/mtu` },
          })),
        ],
        data: { observed: 0, expected: 1, interfaces: jumbo.map((device) => device.name).join(', '), mtu, dropIn: opts.dropIn },
      });
    }
    return undefined;
  },
});

const WIRE_FACING: ReadonlySet<string> = new Set(['physical', 'paravirtual', 'bond', 'vlan']);

type ReportCongestion = (
  symptom: 'congestion-control',
  finding: { evidence: Evidence[]; data: { current: string; available: string | null; bbrAvailable: boolean; dropIn: string } },
) => void;

/** Informational: which algorithm runs, and whether BBR is there to try (it needs fq or internal pacing). */
function reportCongestionControl(
  sysctl: SysctlNet,
  dropIn: string,
  evidence: (key: string, observed: Scalar) => Evidence,
  report: ReportCongestion,
): void {
  const current = sysctl.tcpCongestionControl;
  if (current === null || current === 'bbr') return;
  const available = sysctl.tcpAvailableCongestionControl;
  const bbrLoaded = available?.includes('bbr') ?? false;
  report('congestion-control', {
    evidence: [
      evidence('net.ipv4.tcp_congestion_control', current),
      evidence('net.ipv4.tcp_available_congestion_control', available ? available.join(' ') : null),
    ],
    data: { current, available: available ? available.join(' ') : null, bbrAvailable: bbrLoaded, dropIn },
  });
}

function fastestLink(devices: ReadonlyArray<NetDevice | InterfaceSummary>): { name: string; speedMbps: number } | null {
  let best: { name: string; speedMbps: number } | null = null;
  for (const device of devices) {
    if (device.speedMbps !== null && (best === null || device.speedMbps > best.speedMbps))
      best = { name: device.name, speedMbps: device.speedMbps };
  }
  return best;
}

/** The most one stream can carry with this window: window / RTT. */
function windowRateMbps(bytes: number, rttMs: number): number {
  return (bytes * 8) / (rttMs * 1000);
}

function formatRate(mbps: number): string {
  return mbps >= 1000 ? `${(mbps / 1000).toFixed(1)} Gb/s` : `${Math.round(mbps)} Mb/s`;
}

function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
