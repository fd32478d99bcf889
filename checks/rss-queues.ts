import { receivesOnOneQueueByDesign } from '../src/domain/rss.js';
import { z } from 'zod';
import { defineCheck, symptom, type CheckContext } from '../src/contracts/check.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import type { FactResult } from '../src/contracts/facts.js';
import type { NetDevice } from '../src/collectors/net-device.js';
import type { NetQueues } from '../src/collectors/net-queues.js';
import type { NicIrqs } from '../src/collectors/nic-irqs.js';
import type { CpuTopology } from '../src/collectors/cpu-topology.js';
import { takesReceive, type ProcInterrupts } from '../src/parsers/proc-interrupts.js';
import { unknownForFailedFact } from '../src/contracts/optional-fact.js';
import { channelMode, currentRxQueues, type EthtoolChannels } from '../src/parsers/ethtool-channels.js';
import { formatShortCpuMask, parseCpusOrNull } from '../src/parsers/cpulist.js';
import type { Evidence, Source } from '../src/report/schema.js';

const options = z.object({
  /** A lone vector that took at least this share of the host's MSI interrupts carries real traffic. */
  singleVectorHostShare: z.number().nonnegative().default(0.05),
  /** A single receive queue on a port this fast or faster is a warning (CAUSES.md cause 6). */
  fastLinkMbps: z.number().positive().default(10_000),
  /**
   * Queues the hardware RSS hash can spread over, whatever `ethtool -l` allows (CAUSES.md:
   * ixgbe 16 — it reports up to 63/64 channels for Flow Director —, i40e 64).
   */
  driverRssCaps: z.record(z.string(), z.number().int().positive()).default({ ixgbe: 16, i40e: 64 }),
  /**
   * One receive queue of several is a warning once the host is known to have at least this many
   * CPUs, even when their exact count is not (only /proc/interrupts columns, or a guest's offered
   * queue maximum, which hypervisors size to the vCPU count): every flow then lands on one CPU.
   */
  singleQueueMinCpus: z.number().int().min(2).default(2),
  /** One of several receive vectors that took at least this share of the NIC's receive interrupts is the only queue in use. */
  oneBusyVectorShare: z.number().gt(0).max(1).default(0.98),
  /** Below this many receive interrupts since boot the NIC has been too idle to judge how its queues are used. */
  minInterrupts: z.number().int().nonnegative().default(100_000),
});

type Options = z.infer<typeof options>;

// Bonds, bridges, VLANs and software devices have no hardware queues: RSS is set on the NIC below.

type Channel = 'combined' | 'rx' | 'tx';

interface ChannelPlan {
  channel: Channel;
  current: number;
  max: number;
  suggested: number;
}

const queueCount = z.number().int().nonnegative();
/** A cpumask as rps_cpus takes it ("ff,ffffffff"). */
const cpuMask = z.string().regex(/^[0-9a-f]+(,[0-9a-f]+)*$/i);

/** What `ethtool -L` would set: one value per channel kind the driver has (null: leave it). */
const targets = {
  targetCombined: queueCount.nullable(),
  targetRx: queueCount.nullable(),
  targetTx: queueCount.nullable(),
};
type Targets = { [K in keyof typeof targets]: number | null };

/** The ethtool -L arguments for the targets: "combined 16", "rx 4 tx 4". */
function channelArgs(d: Targets): string {
  return (
    [
      ['combined', d.targetCombined],
      ['rx', d.targetRx],
      ['tx', d.targetTx],
    ] as const
  )
    .flatMap(([kind, count]) => (count === null ? [] : [`${kind} ${count}`]))
    .join(' ');
}

/** The CPUs to steer receive processing to, as a mask, or what to put there when they are unknown. */
const rpsMaskOf = (mask: string | null) => mask ?? '<hex mask of the CPUs to use>';

const singleQueueData = z.object({
  current: z.literal(1),
  /** The receive (or combined) channels' driver maximum and suggestion; null without ethtool -l. */
  max: queueCount.nullable(),
  suggested: queueCount.nullable(),
  localCpus: queueCount.nullable(),
  localCpuMask: cpuMask.nullable(),
  linkGbps: z.number().nonnegative(),
  ...targets,
});

const belowMaxData = z.object({
  channel: z.enum(['combined', 'rx', 'tx']),
  current: queueCount,
  max: queueCount,
  suggested: queueCount,
  localCpus: queueCount.nullable(),
  /** Where the CPU count comes from: the NIC's NUMA node, the host's online CPUs, or nowhere. */
  cpuSource: z.enum(['nic-local', 'online', 'unknown']),
  driver: z.string().min(1).nullable(),
  /** The driverRssCaps entry for the driver: queues its RSS hash spreads over at most. */
  driverRssCap: queueCount.nullable(),
  ...targets,
});

const check = defineCheck({
  id: 'rss-queues',
  title: 'RSS queue count',
  description:
    'Compares the channels in use (`ethtool -l`) with the driver maximum and the NIC-local CPUs: with fewer queues, received traffic is processed on fewer CPUs whatever the number of flows. A single queue on a 10G+ port is reported on its own (it subsumes "below maximum"); a single queue without RPS (/sys/class/net/<if>/queues/rx-0/rps_cpus) is noted. Bonds, bridges, VLANs and software interfaces are not applicable; a driver without `ethtool -l` support is judged from the kernel queues in sysfs when it has a single queue, otherwise not applicable.',
  scope: 'interface',
  // ethtool -l is optional so that a driver without it (bonds, some NICs) is judged here as
  // not applicable or from sysfs, rather than gated to unknown by the engine.
  requires: ['net.device'],
  optionalFacts: ['ethtool.channels', 'net.queues', 'cpu.topology', 'nic.irqs', 'proc.interrupts'],
  options,
  symptoms: {
    'single-queue-fast-port': symptom({
      severity: 'warning',
      data: singleQueueData,
      phrases: {
        maxText: (d) => (d.max === null ? 'unknown' : String(d.max)),
        remedy: (d, { subject }) =>
          d.suggested !== null && d.suggested > 1
            ? `ethtool -L ${subject} ${channelArgs(d)} (one queue per NIC-local CPU, up to the driver maximum ${d.max})`
            : `the driver offers a single queue: enable multiqueue where the NIC comes from (virtio: queues=N on the host; a cloud instance type with more queues), or spread receive processing with RPS: echo ${rpsMaskOf(d.localCpuMask)} > /sys/class/net/${subject}/queues/rx-0/rps_cpus`,
      },
      message:
        '{subject} receives on a single queue ({current} of max {maxText}) on a {linkGbps} Gb/s port: every flow is processed by one CPU, which caps throughput well below line rate',
      fix: '{remedy}',
    }),
    'queues-below-max': symptom({
      severity: 'warning',
      data: belowMaxData,
      phrases: {
        basis: (d) =>
          [
            `driver maximum ${d.max}`,
            d.localCpus !== null
              ? `${d.localCpus} ${d.cpuSource === 'nic-local' ? 'NIC-local' : 'online'} CPUs`
              : 'NIC-local CPU count unknown',
            ...(d.driverRssCap !== null ? [`${d.driver} spreads RSS over at most ${d.driverRssCap} queues`] : []),
          ].join(', '),
        channelArgs,
      },
      message: '{subject} uses {current} {channel} queues where {suggested} are possible ({basis}): traffic is spread over fewer CPUs',
      fix: {
        text: '{commands}',
        ops: [{ kind: 'ethtool-channels', iface: '{subject}', rx: '{targetRx}', tx: '{targetTx}', combined: '{targetCombined}' }],
      },
    }),
    'single-queue-vector': symptom({
      severity: 'warning',
      data: z.object({
        /** The vector's action name in /proc/interrupts ("eth2", "eth0-TxRx-0"), or "IRQ n". */
        vector: z.string().min(1),
        interrupts: z.number().int().nonnegative(),
        sharePercent: z.number().int().min(0).max(100),
        cpus: z.number().int().min(2),
      }),
      message:
        "{subject} has a single interrupt vector ({vector}) that took {interrupts} interrupts, {sharePercent} % of the host's MSI interrupts, on a {cpus}-CPU host: one receive queue, so one CPU does all its receive work (ethtool -l was not captured)",
      fix: "Check ethtool -l {subject}; enable more queues (ethtool -L {subject} combined <N>, or the driver's RSS/MQ module parameter) and make sure MSI-X is in use (lspci -vv: MSI-X Enable+)",
    }),
    'one-of-several-queues-busy': symptom({
      severity: 'warning',
      data: z.object({
        /** The busy vector's action name in /proc/interrupts ("eth0-0"), or "IRQ n". */
        vector: z.string().min(1),
        interrupts: z.number().int().nonnegative(),
        /** Its share of the NIC's receive interrupts since boot. */
        sharePercent: z.number().int().min(0).max(100),
        vectors: z.number().int().min(2),
        cpus: z.number().int().min(2),
      }),
      message:
        '{subject} has {vectors} receive queue vectors, but {vector} took {sharePercent} % of their interrupts ({interrupts} since boot) on a {cpus}-CPU host: received traffic uses one queue, so one CPU does all of its receive work',
      fix: 'Read ethtool -x {subject} (is the indirection table spread over the queues?) and ethtool -n {subject} rx-flow-hash tcp4; traffic the NIC cannot hash (one flow, a tunnel, PPPoE or VLAN stacks) is spread with RPS: echo <hex mask of the CPUs to use> > /sys/class/net/{subject}/queues/rx-0/rps_cpus',
    }),
    'rps-off-single-queue': symptom({
      severity: 'info',
      data: z.object({ rpsCpus: cpuMask, localCpuMask: cpuMask.nullable() }),
      phrases: { rpsMask: (d) => rpsMaskOf(d.localCpuMask) },
      message:
        '{subject} has a single hardware receive queue and RPS is off (rx-0/rps_cpus = {rpsCpus}): protocol processing for every flow runs on the CPU that takes the interrupt',
      fix: 'echo {rpsMask} > /sys/class/net/{subject}/queues/rx-0/rps_cpus (steers receive processing to those CPUs; add rps_flow_cnt and net.core.rps_sock_flow_entries for RFS)',
    }),
  },
  run(ctx) {
    const { facts, optional, options: opts, subject, report, notApplicable, source } = ctx;
    const device = facts['net.device'];
    const channelsResult = optional['ethtool.channels'];
    if (!hasOwnQueues(device, channelsResult)) {
      return notApplicable(
        `${subject} is a ${device.kind} interface: it has no hardware receive queues of its own (RSS is configured on the physical NIC)`,
      );
    }
    const queuesResult = optional['net.queues'];
    const queues = queuesResult.ok ? queuesResult.value : null;
    const channelsSource = source('ethtool.channels');
    const cpus = localCpus(device, optional['cpu.topology']);
    const knownCpus = cpus.count ?? cpuLowerBound(device, optional['proc.interrupts'], channelsResult);

    let channels: Channels;
    if (channelsResult.ok) {
      const planned = planChannels(channelsResult.value, subject, device, cpus.count, opts);
      if (typeof planned === 'string') return notApplicable(planned);
      channels = planned;
    } else if (channelsResult.error.kind === 'unsupported') {
      // No channel interface: the kernel's queue directories still show whether there is one queue.
      if (!queues || queues.rx.length !== 1) {
        const seen = queues ? `; sysfs shows ${queues.rx.length} receive queues` : '';
        return notApplicable(
          `the ${device.driver ?? 'unknown'} driver does not support ethtool -l, so its queue count cannot be read or changed with ethtool -L${seen}`,
        );
      }
      channels = { plans: [], rxQueues: 1, targets: NO_TARGETS };
    } else {
      // Only a NIC the host owns: a guest's emulated or paravirtual NIC has the queues its hypervisor gives it.
      const single =
        device.kind !== 'physical' || receivesOnOneQueueByDesign(device.driver)
          ? null
          : singleVectorEvidence(optional['nic.irqs'], optional['proc.interrupts'], cpus.count, opts.singleVectorHostShare);
      const oneBusy = single ? null : oneBusyVector(ctx, cpus.count);
      if (oneBusy) {
        reportOneBusy(ctx, oneBusy);
        return undefined;
      }
      if (!single) return unknownForFailedFact(ctx, channelsResult.error, `ethtool -l ${subject}`);
      // ethtool -l was not captured, but /proc/interrupts shows one busy vector: one queue.
      report('single-queue-vector', {
        evidence: [
          {
            label: `${subject} queue interrupt vectors`,
            observed: 1,
            expected: `> 1 (${single.cpus} CPUs)`,
            unit: 'vectors',
            source: { kind: 'file', path: '/proc/interrupts' },
          },
          {
            label: `interrupts on vector ${single.name}`,
            observed: single.total,
            unit: 'interrupts',
            source: { kind: 'file', path: '/proc/interrupts' },
          },
        ],
        data: { vector: single.name, interrupts: single.total, sharePercent: Math.round(single.share * 100), cpus: single.cpus },
      });
      return undefined;
    }

    const withSource = (evidence: Evidence, from: Source | undefined): Evidence => (from ? { ...evidence, source: from } : evidence);
    const speed = device.speedMbps;
    const singleOnFastPort = channels.rxQueues === 1 && speed !== null && speed >= opts.fastLinkMbps;
    if (singleOnFastPort) {
      const plan = channels.plans.find((candidate) => candidate.channel !== 'tx');
      report('single-queue-fast-port', {
        evidence: [
          withSource(
            { label: 'receive queues', observed: 1, ...(plan ? { expected: plan.suggested } : {}), unit: 'queues' },
            channelsSource ?? source('net.queues'),
          ),
          withSource({ label: 'link speed', observed: speed, unit: 'Mb/s' }, source('net.device', '/speed')),
        ],
        data: {
          current: 1,
          max: plan?.max ?? null,
          suggested: plan?.suggested ?? null,
          localCpus: cpus.count,
          localCpuMask: cpus.mask,
          linkGbps: speed / 1000,
          ...channels.targets,
        },
      });
    }

    for (const plan of channels.plans) {
      if (plan.current >= plan.suggested) continue;
      // The single-queue finding already covers the receive side of that port.
      if (singleOnFastPort && plan.channel !== 'tx') continue;
      const evidence: Evidence[] = [
        withSource({ label: `${plan.channel} channels`, observed: plan.current, expected: plan.suggested, unit: 'queues' }, channelsSource),
        withSource({ label: `${plan.channel} channels, driver maximum`, observed: plan.max, unit: 'queues' }, channelsSource),
      ];
      if (cpus.count !== null)
        evidence.push(withSource({ label: 'NIC-local CPUs', observed: cpus.count, unit: 'CPUs' }, source('net.device', 'local_cpulist')));
      report('queues-below-max', {
        // Without the NIC-local CPU count, "fewer queues than CPUs" is a guess: the driver maximum
        // (64 on ice) says what the NIC could do, not what this host has cores for. One queue of
        // several is not a guess once the host has more than one CPU: all flows share one CPU.
        ...(cpus.count === null && !(plan.current === 1 && knownCpus >= opts.singleQueueMinCpus) ? { severity: 'info' as const } : {}),
        evidence,
        data: {
          channel: plan.channel,
          current: plan.current,
          max: plan.max,
          suggested: plan.suggested,
          localCpus: cpus.count,
          cpuSource: cpus.source,
          driver: device.driver,
          driverRssCap: rssCap(device, opts),
          ...channels.targets,
        },
      });
    }

    const oneBusy = channels.rxQueues > 1 ? oneBusyVector(ctx, cpus.count) : null;
    if (oneBusy) reportOneBusy(ctx, oneBusy);

    // RPS spreads work to other CPUs: a one-CPU host (or NIC node) has none to spread it to.
    const rx0 = cpus.count === 1 ? undefined : singleQueueWithoutRps(channels.rxQueues, queues);
    if (rx0) {
      report('rps-off-single-queue', {
        evidence: [
          withSource({ label: 'rx-0 rps_cpus', observed: rx0.rpsCpus, expected: 'CPUs set' }, source('net.queues', 'rps_cpus')),
          withSource({ label: 'receive queues', observed: 1, unit: 'queues' }, channelsSource ?? source('net.queues')),
        ],
        data: { rpsCpus: rx0.rpsCpus, localCpuMask: cpus.mask },
      });
    }
    return undefined;
  },
});

export default check;

type Ctx = CheckContext<
  'net.device',
  'ethtool.channels' | 'net.queues' | 'cpu.topology' | 'nic.irqs' | 'proc.interrupts',
  typeof check.symptoms,
  Options
>;

// The steps of run(), in order.

/**
 * Whether the interface has receive queues of its own to judge. A veth that answers ethtool -l
 * with more than one channel has real, settable queues (the lab's "10GbE port" is one), but they
 * only matter where it stands for a link the user named (--link-speed, the lab): otherwise it is a
 * software device and RSS belongs to the physical NIC below.
 */
function hasOwnQueues(device: NetDevice, channels: FactResult<EthtoolChannels>): boolean {
  const settableSoftwareQueues =
    device.kind === 'virtual' &&
    device.speedMbps !== null &&
    channels.ok &&
    Math.max(channels.value.max.combined ?? 0, channels.value.max.rx ?? 0) > 1;
  return !isSoftware(device) || settableSoftwareQueues;
}

interface LocalCpus {
  count: number | null;
  /** The CPUs as an rps_cpus mask. */
  mask: string | null;
  source: 'nic-local' | 'online' | 'unknown';
}

/** The NIC's NUMA-local CPUs; without them (a VM's NIC has no node) the host's online CPUs. */
function localCpus(device: NetDevice, topology: FactResult<CpuTopology>): LocalCpus {
  const local = device.localCpuList ? parseCpusOrNull(device.localCpuList, 'list') : null;
  const set = local ?? (!device.localCpuList && topology.ok && topology.value.online.length > 0 ? topology.value.online : null);
  return {
    count: set ? set.length : null,
    mask: set && set.length > 0 ? formatShortCpuMask(set) : null,
    source: set === null ? 'unknown' : device.localCpuList ? 'nic-local' : 'online',
  };
}

/**
 * The fewest CPUs the host is known to have when their list is missing: the count columns of
 * /proc/interrupts (one per online CPU), or in a guest the queues its hypervisor offers (QEMU and
 * the clouds offer one queue pair per vCPU). 0 when nothing says.
 */
function cpuLowerBound(device: NetDevice, interrupts: FactResult<ProcInterrupts>, channels: FactResult<EthtoolChannels>): number {
  const columns = interrupts.ok ? interrupts.value.cpus.length : 0;
  const offered = device.kind === 'paravirtual' && channels.ok ? Math.max(channels.value.max.combined ?? 0, channels.value.max.rx ?? 0) : 0;
  return Math.max(columns, offered);
}

function rssCap(device: NetDevice, opts: Options): number | null {
  return (device.driver ? opts.driverRssCaps[device.driver] : undefined) ?? null;
}

interface Channels {
  plans: ChannelPlan[];
  /** Receive queues in use. */
  rxQueues: number;
  targets: Targets;
}

const NO_TARGETS: Targets = { targetCombined: null, targetRx: null, targetTx: null };

/**
 * Per channel kind the driver has: in use, maximum, and the suggestion (one queue per local CPU,
 * up to the maximum and the driver's RSS cap). A reason instead when the driver exposes no count.
 */
function planChannels(
  channels: EthtoolChannels,
  subject: string,
  device: NetDevice,
  cpuCount: number | null,
  opts: Options,
): Channels | string {
  const cap = rssCap(device, opts);
  const target = (max: number) => Math.min(max, cpuCount ?? max, cap ?? max);
  const mode = channelMode(channels);
  if (mode === 'none')
    return `ethtool -l ${subject} reports no receive or combined channels: the ${device.driver ?? 'unknown'} driver does not expose its queue count`;
  if (mode === 'combined') {
    const max = channels.max.combined!;
    const current = currentRxQueues(channels);
    return {
      plans: [{ channel: 'combined', current, max, suggested: target(max) }],
      rxQueues: current,
      targets: { ...NO_TARGETS, targetCombined: target(max) },
    };
  }
  const plans = (['rx', 'tx'] as const)
    .filter((kind) => (channels.max[kind] ?? 0) > 0)
    .map((kind): ChannelPlan => {
      const max = channels.max[kind]!;
      return { channel: kind, current: channels.current[kind] ?? 0, max, suggested: target(max) };
    });
  const suggestion = (kind: Channel) => plans.find((plan) => plan.channel === kind)?.suggested ?? null;
  return { plans, rxQueues: channels.current.rx ?? 0, targets: { ...NO_TARGETS, targetRx: suggestion('rx'), targetTx: suggestion('tx') } };
}

/** rx-0's rps_cpus when the interface has a single receive queue and RPS is off for it. */
function singleQueueWithoutRps(rxQueues: number, queues: NetQueues | null): { rpsCpus: string } | undefined {
  const rx0 = queues?.rx.length === 1 ? queues.rx[0] : undefined;
  return rxQueues === 1 && rx0 && rx0.rpsCpuCount === 0 && rx0.rpsCpus !== null ? { rpsCpus: rx0.rpsCpus } : undefined;
}

/**
 * One queue vector that carries real traffic (a busy share of the host's MSI interrupts) on a host
 * with several CPUs, or null. Only used when ethtool -l is missing: the vectors are the evidence.
 */
function singleVectorEvidence(
  irqs: FactResult<NicIrqs>,
  interrupts: FactResult<ProcInterrupts>,
  cpus: number | null,
  minShare: number,
): { name: string; total: number; share: number; cpus: number } | null {
  if (!irqs.ok || !interrupts.ok) return null;
  // Without the CPU list, the columns of /proc/interrupts count the online CPUs.
  const online = cpus ?? interrupts.value.cpus.length;
  if (online < 2) return null;
  const queues = irqs.value.irqs.filter((irq) => irq.role === 'queue');
  if (queues.length !== 1) return null;
  const total = queues[0]!.counts.reduce((sum, count) => sum + count, 0);
  const allMsi = interrupts.value.rows.filter((row) => /MSI/i.test(row.chip ?? '')).reduce((sum, row) => sum + row.total, 0);
  const share = allMsi > 0 ? total / allMsi : 0;
  return share >= minShare ? { name: queues[0]!.name ?? `IRQ ${queues[0]!.irq}`, total, share, cpus: online } : null;
}

interface OneBusyVector {
  name: string;
  total: number;
  share: number;
  vectors: number;
  cpus: number;
  idle: boolean;
}

/**
 * Several receive vectors of which one took (nearly) every interrupt since boot, on a NIC busy
 * enough to judge: RSS leaves all but one queue idle. A physical NIC only: a guest's queues are
 * steered by its hypervisor.
 */
function oneBusyVector({ facts, optional, options: opts }: Ctx, cpus: number | null): OneBusyVector | null {
  const irqs = optional['nic.irqs'];
  const interrupts = optional['proc.interrupts'];
  if (facts['net.device'].kind !== 'physical' || !irqs.ok || !interrupts.ok) return null;
  const online = cpus ?? interrupts.value.cpus.length;
  if (online < 2) return null;
  const receive = irqs.value.irqs.filter((irq) => irq.role === 'queue' && takesReceive(irq.name));
  if (receive.length < 2) return null;
  const totals = receive.map((irq) => irq.counts.reduce((sum, count) => sum + count, 0));
  const total = totals.reduce((sum, count) => sum + count, 0);
  const top = totals.reduce((best, count, index) => (count > totals[best]! ? index : best), 0);
  if (total < opts.minInterrupts || totals[top]! / total < opts.oneBusyVectorShare) return null;
  const busy = receive[top]!;
  const allMsi = interrupts.value.rows.filter((row) => /MSI/i.test(row.chip ?? '')).reduce((sum, row) => sum + row.total, 0);
  return {
    name: busy.name ?? `IRQ ${busy.irq}`,
    total: totals[top]!,
    share: totals[top]! / total,
    vectors: receive.length,
    cpus: online,
    // A port that took a sliver of the host's interrupts is nearly idle: how it uses its queues is a note.
    idle: allMsi > 0 && total / allMsi < opts.singleVectorHostShare,
  };
}

function reportOneBusy({ report }: Ctx, busy: OneBusyVector): void {
  report('one-of-several-queues-busy', {
    ...(busy.idle ? { severity: 'info' as const } : {}),
    evidence: [
      { label: 'receive queue vectors', observed: busy.vectors, unit: 'vectors', source: { kind: 'file', path: '/proc/interrupts' } },
      {
        label: `interrupts on vector ${busy.name}`,
        observed: busy.total,
        expected: `about 1/${busy.vectors} of the NIC's receive`,
        unit: 'interrupts',
        source: { kind: 'file', path: '/proc/interrupts' },
      },
    ],
    data: {
      vector: busy.name,
      interrupts: busy.total,
      sharePercent: Math.floor(busy.share * 100),
      vectors: busy.vectors,
      cpus: busy.cpus,
    },
  });
}
