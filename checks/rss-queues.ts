import { z } from 'zod';
import { defineCheck } from '../src/engine/check.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import type { FactResult } from '../src/engine/facts.js';
import type { NicIrqs } from '../src/collectors/nic-irqs.js';
import type { ProcInterrupts } from '../src/parsers/proc-interrupts.js';
import { unknownForFailedFact } from '../src/engine/optional-fact.js';
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
});

// Bonds, bridges, VLANs and software devices have no hardware queues: RSS is set on the NIC below.

interface ChannelPlan {
  /** 'combined', 'rx' or 'tx'. */
  channel: string;
  current: number;
  max: number;
  suggested: number;
}

export default defineCheck({
  id: 'rss-queues',
  title: 'Enough RSS queues are in use',
  failureTitle: 'Too few receive queues (RSS) are in use',
  description:
    'Compares the channels in use (`ethtool -l`) with the driver maximum and the NIC-local CPUs (CAUSES.md cause 6): with fewer queues, received traffic is processed on fewer CPUs whatever the number of flows. A single queue on a 10G+ port is reported on its own (it subsumes "below maximum"); a single queue without RPS (/sys/class/net/<if>/queues/rx-0/rps_cpus) is noted. Bonds, bridges, VLANs and software interfaces are not applicable; a driver without `ethtool -l` support is judged from the kernel queues in sysfs when it has a single queue, otherwise not applicable.',
  scope: 'interface',
  // ethtool -l is optional so that a driver without it (bonds, some NICs) is judged here as
  // not applicable or from sysfs, rather than gated to unknown by the engine.
  requires: ['net.device'],
  optionalFacts: ['ethtool.channels', 'net.queues', 'cpu.topology', 'nic.irqs', 'proc.interrupts'],
  options,
  symptoms: {
    'single-queue-fast-port': {
      severity: 'warning',
      message: '{subject} receives on a single queue ({current} of max {max}) on a {linkGbps} Gb/s port: every flow is processed by one CPU, which caps throughput well below line rate',
      fix: '{remedy}',
    },
    'queues-below-max': {
      severity: 'warning',
      message: '{subject} uses {current} {channel} queues where {suggested} are possible ({basis}): traffic is spread over fewer CPUs',
      fix: { text: '{commands}', ops: [{ kind: 'ethtool-channels', iface: '{subject}', rx: '{targetRxQueues}', tx: '{targetTxQueues}', combined: '{targetCombinedQueues}' }] },
    },
    'single-queue-vector': {
      severity: 'warning',
      message: '{subject} has a single interrupt vector ({vector}) that took {interrupts} interrupts, {sharePercent} % of the host\'s MSI interrupts, on a {cpus}-CPU host: one receive queue, so one CPU does all its receive work (ethtool -l was not captured)',
      fix: 'Check ethtool -l {subject}; enable more queues (ethtool -L {subject} combined <N>, or the driver\'s RSS/MQ module parameter) and make sure MSI-X is in use (lspci -vv: MSI-X Enable+)',
    },
    'rps-off-single-queue': {
      severity: 'info',
      message: '{subject} has a single hardware receive queue and RPS is off (rx-0/rps_cpus = {rpsCpus}): protocol processing for every flow runs on the CPU that takes the interrupt',
      fix: 'echo {rpsMask} > /sys/class/net/{subject}/queues/rx-0/rps_cpus (steers receive processing to those CPUs; add rps_flow_cnt and net.core.rps_sock_flow_entries for RFS)',
    },
  },
  run(ctx) {
    const { facts, optional, options: opts, subject, report, notApplicable, source } = ctx;
    const device = facts['net.device'];
    const channelsResult = optional['ethtool.channels'];
    // A veth that answers ethtool -l with more than one channel has real, settable queues (the
    // lab's "10GbE port" is one); other software interfaces have none of their own.
    // A veth's channels only matter where it stands for a link the user named (--link-speed, the lab):
    // otherwise it is a software device and RSS belongs to the physical NIC below.
    const settableSoftwareQueues =
      device.kind === 'virtual' && device.speedMbps !== null && channelsResult.ok && Math.max(channelsResult.value.max.combined ?? 0, channelsResult.value.max.rx ?? 0) > 1;
    if (isSoftware(device) && !settableSoftwareQueues) {
      return notApplicable(`${subject} is a ${device.kind} interface: it has no hardware receive queues of its own (RSS is configured on the physical NIC)`);
    }
    const queuesResult = optional['net.queues'];
    const queues = queuesResult.ok ? queuesResult.value : null;
    const channelsSource = source('ethtool.channels');
    const withSource = (evidence: Evidence, from: Source | undefined): Evidence => (from ? { ...evidence, source: from } : evidence);

    // The NIC's NUMA-local CPUs; without them (a VM's NIC has no node) the host's online CPUs.
    const topology = optional['cpu.topology'];
    const localCpuSet = device.localCpuList ? parseCpusOrNull(device.localCpuList, 'list') : topology.ok && topology.value.online.length > 0 ? topology.value.online : null;
    const localCpus = localCpuSet ? localCpuSet.length : null;
    const cap = device.driver ? opts.driverRssCaps[device.driver] : undefined;
    const target = (max: number) => Math.min(max, localCpus ?? max, cap ?? max);
    const basisFor = (max: number): string => {
      const parts = [`driver maximum ${max}`];
      parts.push(localCpus !== null ? `${localCpus} ${device.localCpuList ? 'NIC-local' : 'online'} CPUs` : 'NIC-local CPU count unknown');
      if (cap !== undefined) parts.push(`${device.driver} spreads RSS over at most ${cap} queues`);
      return parts.join(', ');
    };

    let plans: ChannelPlan[];
    let rxQueues: number;
    let channelArgs: string;
    if (channelsResult.ok) {
      const channels: EthtoolChannels = channelsResult.value;
      const mode = channelMode(channels);
      if (mode === 'none') return notApplicable(`ethtool -l ${subject} reports no receive or combined channels: the ${device.driver ?? 'unknown'} driver does not expose its queue count`);
      if (mode === 'combined') {
        const max = channels.max.combined!;
        const current = currentRxQueues(channels);
        plans = [{ channel: 'combined', current, max, suggested: target(max) }];
        rxQueues = current;
        channelArgs = `combined ${target(max)}`;
      } else {
        plans = (['rx', 'tx'] as const)
          .filter((kind) => (channels.max[kind] ?? 0) > 0)
          .map((kind) => {
            const max = channels.max[kind]!;
            return { channel: kind, current: channels.current[kind] ?? 0, max, suggested: target(max) };
          });
        rxQueues = channels.current.rx ?? 0;
        channelArgs = plans.map((plan) => `${plan.channel} ${plan.suggested}`).join(' ');
      }
    } else if (channelsResult.error.kind === 'unsupported') {
      // No channel interface: the kernel's queue directories still show whether there is one queue.
      if (!queues || queues.rx.length !== 1) {
        const seen = queues ? `; sysfs shows ${queues.rx.length} receive queues` : '';
        return notApplicable(`the ${device.driver ?? 'unknown'} driver does not support ethtool -l, so its queue count cannot be read or changed with ethtool -L${seen}`);
      }
      plans = [];
      rxQueues = 1;
      channelArgs = '';
    } else {
      // Only a NIC the host owns: a guest's emulated or paravirtual NIC has the queues its hypervisor gives it.
      const single = device.kind !== 'physical' ? null : singleVectorEvidence(optional['nic.irqs'], optional['proc.interrupts'], localCpus, opts.singleVectorHostShare);
      if (!single) return unknownForFailedFact(ctx, channelsResult.error, `ethtool -l ${subject}`);
      // ethtool -l was not captured, but /proc/interrupts shows one busy vector: one queue.
      report('single-queue-vector', {
        evidence: [
          { label: `${subject} queue interrupt vectors`, observed: 1, expected: `> 1 (${single.cpus} CPUs)`, unit: 'vectors', source: { kind: 'file', path: '/proc/interrupts' } },
          { label: `interrupts on vector ${single.name}`, observed: single.total, unit: 'interrupts', source: { kind: 'file', path: '/proc/interrupts' } },
        ],
        data: { vector: single.name, interrupts: single.total, sharePercent: Math.round(single.share * 100), cpus: single.cpus },
      });
      return undefined;
    }

    // The channel counts the fix sets, by channel type (typed, for the structured fix).
    const targetOf = (channel: ChannelPlan['channel']) => plans.find((plan) => plan.channel === channel)?.suggested ?? null;
    const targets = { targetRxQueues: targetOf('rx'), targetTxQueues: targetOf('tx'), targetCombinedQueues: targetOf('combined') };
    const rpsMask = localCpuSet && localCpuSet.length > 0 ? formatShortCpuMask(localCpuSet) : '<hex mask of the CPUs to use>';
    const speed = device.speedMbps;
    const singleOnFastPort = rxQueues === 1 && speed !== null && speed >= opts.fastLinkMbps;
    if (singleOnFastPort) {
      const plan = plans.find((candidate) => candidate.channel !== 'tx');
      const remedy =
        plan && plan.suggested > 1
          ? `ethtool -L ${subject} ${channelArgs} (one queue per NIC-local CPU, up to the driver maximum ${plan.max})`
          : `the driver offers a single queue: enable multiqueue where the NIC comes from (virtio: queues=N on the host; a cloud instance type with more queues), or spread receive processing with RPS: echo ${rpsMask} > /sys/class/net/${subject}/queues/rx-0/rps_cpus`;
      report('single-queue-fast-port', {
        evidence: [
          withSource({ label: 'receive queues', observed: 1, ...(plan ? { expected: plan.suggested } : {}), unit: 'queues' }, channelsSource ?? source('net.queues')),
          withSource({ label: 'link speed', observed: speed, unit: 'Mb/s' }, source('net.device', '/speed')),
        ],
        data: {
          current: 1,
          max: plan?.max ?? null,
          suggested: plan?.suggested ?? null,
          localCpus,
          linkGbps: speed / 1000,
          remedy,
          ...(plan && plan.suggested > 1 ? targets : { targetRxQueues: null, targetTxQueues: null, targetCombinedQueues: null }),
        },
      });
    }

    for (const plan of plans) {
      if (plan.current >= plan.suggested) continue;
      // The single-queue finding already covers the receive side of that port.
      if (singleOnFastPort && plan.channel !== 'tx') continue;
      const evidence: Evidence[] = [
        withSource({ label: `${plan.channel} channels`, observed: plan.current, expected: plan.suggested, unit: 'queues' }, channelsSource),
        withSource({ label: `${plan.channel} channels, driver maximum`, observed: plan.max, unit: 'queues' }, channelsSource),
      ];
      if (localCpus !== null) evidence.push(withSource({ label: 'NIC-local CPUs', observed: localCpus, unit: 'CPUs' }, source('net.device', 'local_cpulist')));
      report('queues-below-max', {
        // Without the NIC-local CPU count, "fewer queues than CPUs" is a guess: the driver maximum
        // (64 on ice) says what the NIC could do, not what this host has cores for.
        ...(localCpus === null ? { severity: 'info' as const } : {}),
        evidence,
        data: { channel: plan.channel, current: plan.current, max: plan.max, localCpus, suggested: plan.suggested, basis: basisFor(plan.max), channelArgs, ...targets },
      });
    }

    const rx0 = queues?.rx.length === 1 ? queues.rx[0] : undefined;
    if (rxQueues === 1 && rx0 && rx0.rpsCpuCount === 0) {
      report('rps-off-single-queue', {
        evidence: [
          withSource({ label: 'rx-0 rps_cpus', observed: rx0.rpsCpus, expected: 'CPUs set' }, source('net.queues', 'rps_cpus')),
          withSource({ label: 'receive queues', observed: 1, unit: 'queues' }, channelsSource ?? source('net.queues')),
        ],
        data: {
          rpsCpus: rx0.rpsCpus,
          rpsMask,
        },
      });
    }
    return undefined;
  },
});

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
