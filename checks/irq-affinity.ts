import { z } from 'zod';
import type { NicIrq } from '../src/collectors/nic-irqs.js';
import { defineCheck, symptom, type CheckContext } from '../src/contracts/check.js';
import type { FactTypes } from '../src/contracts/facts.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import { formatCpuList, parseCpuList } from '../src/parsers/cpulist.js';
import { takesReceive, type ProcInterrupts } from '../src/parsers/proc-interrupts.js';

const options = z.object({
  /** Fewer queue vectors than this is a single-queue NIC: an RSS question (rss-queues), not an affinity one. */
  minQueues: z.number().int().min(2).default(2),
  /** Share of the NIC's queue interrupts handled by one CPU above which they are concentrated (CAUSES.md 5). */
  concentrationShare: z.number().gt(0).max(1).default(0.8),
  /** Below this many queue interrupts since boot the NIC has been too idle to judge the spread. */
  minInterrupts: z.number().int().nonnegative().default(100_000),
  /** A NIC whose queues took less than this share of all MSI interrupts since boot is idle: its concentration is a note. */
  idleShareOfHost: z.number().nonnegative().default(0.01),
  /** From this many queues, a throughput host without irqbalance should have its IRQs spread by hand. */
  irqbalanceMinQueues: z.number().int().min(2).default(4),
  /** At 40G and up vendors pin IRQs themselves (CAUSES.md 5), so irqbalance undoing it is a warning. */
  vendorPinningMbps: z.number().positive().default(40_000),
  /** A CPU that handled less than this share of the busiest CPU's device interrupts is free to take a NIC's. */
  freeCpuShare: z.number().nonnegative().default(0.01),
  /** Another device line competes with a queue for its CPU when it took at least this share of the queue's interrupts. */
  competingShare: z.number().gt(0).default(0.5),
  /** A CPU whose device interrupts are this many times the next busiest CPU's is the host's outlier. */
  outlierRatio: z.number().gt(1).default(2),
});

/** What every finding of this check says about the NIC's queue interrupts. */
const queueFields = {
  queues: z.number().int(),
  /** The queue IRQ numbers, comma-separated ("40,41,42"). */
  irqs: z.string().regex(/^\d+(,\d+)*$/),
  /** The NIC-local CPUs (all online CPUs when the NIC reports none), a cpulist ("0-7"). */
  localCpus: z.string(),
  /** The NIC's NUMA node, null when the firmware does not report one. */
  numaNode: z.number().int().nullable(),
};
type QueueData = { irqs: string; localCpus: string; numaNode: number | null };

/** Wording every finding shares: the node for commands, the shell loop that pins the queues. */
const queuePhrases = {
  // A placeholder rather than an invented node when the firmware does not report one.
  node: (d: QueueData) => (d.numaNode === null ? '<node>' : String(d.numaNode)),
  pinLoop: (d: QueueData) => pinLoop(d.irqs.split(',').map(Number), parseCpuList(d.localCpus)),
};

const check = defineCheck({
  id: 'irq-affinity',
  title: 'NIC interrupt placement',
  description:
    "Reads the NIC's vectors (msi_irqs, /proc/interrupts) and /proc/irq/<n>/{smp,effective}_affinity_list. All queue IRQs on one CPU, IRQs on CPUs outside the NIC's NUMA node, or most interrupts handled by one CPU leave one core's softirq saturated while more streams do not help. Also notes irqbalance overriding hand pinning, or missing on a many-queue NIC.",
  scope: 'interface',
  appliesTo: (iface) => (isSoftware(iface) ? `${iface.name} has no interrupts of its own (${iface.kind} interface)` : null),
  requires: ['nic.irqs', 'net.device'],
  optionalFacts: ['irqbalance', 'proc.interrupts'],
  options,
  symptoms: {
    'irqs-on-one-cpu': symptom({
      severity: 'warning',
      data: z.object({ ...queueFields, cpu: z.number().int() }),
      phrases: queuePhrases,
      message: 'All {queues} queue interrupts of {subject} go to CPU {cpu}: one core does the receive work of every queue',
      fix: {
        text: 'Spread them over the NIC-local CPUs {localCpus}: {commands} (or the vendor script: set_irq_affinity_bynode.sh {node} {subject}; or systemctl enable --now irqbalance)',
        ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }],
      },
    }),
    'irqs-off-node': symptom({
      severity: 'warning',
      data: z.object({
        ...queueFields,
        offNode: z.number().int(),
        entirelyRemote: z.number().int(),
        /** The online CPUs outside the NIC's node, a cpulist. */
        remoteCpus: z.string(),
      }),
      phrases: queuePhrases,
      message:
        '{offNode} of {queues} queue interrupts of {subject} go to CPUs outside its NUMA node {node} (local CPUs {localCpus}): every packet crosses the socket interconnect',
      fix: {
        text: "Pin them to the local CPUs: {commands} (or set_irq_affinity_bynode.sh {node} {subject}); with irqbalance, it follows the NIC's node when numa_node is reported (irqbalance --policyscript or IRQBALANCE_BANNED_CPULIST={remoteCpus})",
        ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }],
      },
    }),
    'interrupt-concentration': symptom({
      severity: 'warning',
      data: z.object({
        ...queueFields,
        cpu: z.number().int(),
        total: z.number(),
        topCount: z.number(),
        share: z.number(),
        sharePercent: z.number(),
      }),
      phrases: queuePhrases,
      message:
        'CPU {cpu} handled {sharePercent}% of the {total} queue interrupts of {subject} since boot ({queues} queues): its softirq is the bottleneck',
      fix: {
        text: 'Spread the queue IRQs over the NIC-local CPUs {localCpus}: {commands}; counts are since boot, so compare two readings of /proc/interrupts after changing affinity',
        ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }],
      },
    }),
    'stacked-with-busy-devices': symptom({
      severity: 'warning',
      data: z.object({
        ...queueFields,
        cpu: z.number().int(),
        total: z.number(),
        /** How many other busy device interrupt lines the same CPU handles. */
        otherBusy: z.number().int().positive(),
        /** Their interrupts since boot. */
        otherTotal: z.number(),
        /** CPUs that handled (almost) no device interrupts, a cpulist. */
        freeCpus: z.string(),
      }),
      phrases: queuePhrases,
      message:
        'The receive interrupts of {subject} ({total} since boot) are handled by CPU {cpu}, which also takes {otherBusy} other busy device interrupt line(s) ({otherTotal}), while CPU(s) {freeCpus} take none: one core does the receive work of several devices',
      fix: {
        text: 'Move {subject} to a free CPU: {commands} (or let irqbalance spread the lines; with one receive queue, RPS spreads the protocol work too)',
        ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{freeCpus}' }],
      },
    }),
    'queues-share-cpu': symptom({
      severity: 'warning',
      data: z.object({
        ...queueFields,
        cpu: z.number().int(),
        /** Busy receive queues handled by that one CPU. */
        stacked: z.number().int().min(2),
        busy: z.number().int().min(2),
        /** CPUs the queues should use that took none of them, a cpulist. */
        unusedCpus: z.string(),
      }),
      phrases: queuePhrases,
      message:
        '{stacked} of the {busy} busy receive queues of {subject} are handled by CPU {cpu} while CPU(s) {unusedCpus} take none of them: that core does the receive work of {stacked} queues',
      fix: {
        text: 'Spread the queue IRQs one per CPU over {localCpus}: {commands}; counts are since boot, so compare two readings of /proc/interrupts after changing affinity',
        ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }],
      },
    }),
    'busiest-queue-stacked': symptom({
      severity: 'warning',
      data: z.object({
        ...queueFields,
        cpu: z.number().int(),
        /** The NIC's busiest receive queue and its interrupts since boot. */
        queueIrq: z.number().int(),
        queueTotal: z.number(),
        /** The other busy device lines on that CPU ("IRQ 64 (eth3-fp-0)"), and their interrupts. */
        otherLines: z.string(),
        otherTotal: z.number(),
        /** Device interrupts that CPU handled, and the next busiest CPU's. */
        cpuTotal: z.number(),
        nextBusiest: z.number(),
        ratio: z.number(),
        /** The CPU the NIC's queues should use that handled the fewest device interrupts. */
        quietCpu: z.number().int(),
      }),
      phrases: queuePhrases,
      message:
        'The busiest receive queue of {subject} (IRQ {queueIrq}, {queueTotal} interrupts since boot) shares CPU {cpu} with {otherLines}, which took {otherTotal}: that CPU handled {cpuTotal} device interrupts, {ratio} times the next busiest CPU',
      fix: {
        text: 'Move one of them to a quieter CPU (CPU {quietCpu} handled the fewest): echo {quietCpu} > /proc/irq/{queueIrq}/smp_affinity_list, or offset the queue-to-CPU mapping of one port; counts are since boot, so compare two readings of /proc/interrupts after changing affinity',
        ops: [{ kind: 'irq-affinity', irqs: '{queueIrq}', cpus: '{quietCpu}' }],
      },
    }),
    'irqbalance-overrides-pinning': symptom({
      severity: 'info',
      data: z.object({
        ...queueFields,
        pid: z.number().int().nullable(),
        /** The queue IRQs irqbalance is not told to leave alone, comma-separated. */
        unbannedIrqs: z.string().regex(/^\d+(,\d+)*$/),
        configPath: z.string(),
      }),
      phrases: {
        ...queuePhrases,
        banArgs: (d) =>
          d.unbannedIrqs
            .split(',')
            .map((irq) => `--banirq=${irq}`)
            .join(' '),
      },
      message:
        'The {queues} queue interrupts of {subject} are pinned one per CPU, but irqbalance (pid {pid}) is running and will move them',
      fix: 'Keep one owner: either stop irqbalance (systemctl disable --now irqbalance) and keep the pinning, or exclude these IRQs with IRQBALANCE_ARGS="{banArgs}" in {configPath}, or drop the pinning script and let irqbalance place them',
    }),
    'irqbalance-absent': symptom({
      severity: 'info',
      data: z.object({ ...queueFields, distinctCpus: z.number().int() }),
      phrases: queuePhrases,
      message: 'irqbalance is not running and the {queues} queue interrupts of {subject} use only {distinctCpus} CPU(s)',
      fix: {
        text: 'systemctl enable --now irqbalance, or pin the queues by hand: {commands}',
        ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }],
      },
    }),
  },
  run(ctx) {
    const { facts, subject, notApplicable, unknown } = ctx;
    const nic = facts['nic.irqs'];
    const device = facts['net.device'];
    if (nic.irqs.length === 0) return notApplicable(`${subject} has no interrupts of its own (${device.kind} interface)`);
    const queues = nic.irqs.filter((irq) => irq.role === 'queue');
    if (queues.length === 0) return notApplicable(`${subject} has no queue interrupts (only ${nic.irqs.length} control vector(s))`);
    const view = queueView(ctx, queues);
    if (!view.knownAffinity && !view.haveCounts) {
      return unknown(
        `the affinity and counts of ${subject}'s interrupts could not be read`,
        'run nicdoctor as root so that /proc/irq/<n>/smp_affinity_list can be read',
      );
    }
    const oneCpu = reportOneCpu(ctx, view);
    reportOffNode(ctx, view);
    const concentrated = reportConcentration(ctx, view, oneCpu);
    const shared = oneCpu === null && !concentrated && reportQueuesShareCpu(ctx, view);
    if (!view.multiQueue) reportStackedWithDevices(ctx, view);
    else if (oneCpu === null && !concentrated && !shared) reportBusiestQueueStacked(ctx, view);
    reportIrqbalance(ctx, view, oneCpu);
    return undefined;
  },
});

type Ctx = CheckContext<'nic.irqs' | 'net.device', 'irqbalance' | 'proc.interrupts', typeof check.symptoms, z.output<typeof options>>;
type NetDevice = FactTypes['net.device'];
type Options = z.output<typeof options>;

/** The NIC's queue interrupts as every step sees them. */
interface QueueView {
  queues: NicIrq[];
  device: NetDevice;
  onlineCpus: number[];
  localCpus: number[];
  /** Where the queues should go: the NIC-local CPUs, or every online CPU when the NIC reports none. */
  targetCpus: number[];
  knownAffinity: boolean;
  haveCounts: boolean;
  /** Several receive queues on a host with several CPUs (rx-0 + tx-0 is one receive queue). */
  multiQueue: boolean;
  /** The queue vectors that take receive interrupts (all of them but transmit-only ones). */
  receive: NicIrq[];
  common: { queues: number; irqs: string; localCpus: string; numaNode: number | null };
}

/** Effective affinity where the kernel reports it (where the IRQ really lands), else the mask. */
function where(irq: NicIrq): number[] | null {
  return irq.effectiveAffinity ?? irq.affinity;
}

function queueView({ facts, options: opts }: Ctx, queues: NicIrq[]): QueueView {
  const device = facts['net.device'];
  const onlineCpus = facts['nic.irqs'].cpus;
  const localCpus = device.localCpuList ? parseCpuList(device.localCpuList) : [];
  const targetCpus = localCpus.length > 0 ? localCpus : onlineCpus;
  const receive = queues.filter((irq) => takesReceive(irq.name));
  return {
    receive,
    queues,
    device,
    onlineCpus,
    localCpus,
    targetCpus,
    knownAffinity: queues.every((irq) => where(irq) !== null),
    haveCounts: queues.some((irq) => irq.counts.length > 0),
    multiQueue: receive.length >= opts.minQueues && onlineCpus.length >= 2,
    common: {
      queues: queues.length,
      irqs: queues.map((irq) => irq.irq).join(','),
      localCpus: formatCpuList(targetCpus),
      numaNode: device.numaNode,
    },
  };
}

function affinityEvidence({ source }: Ctx, irq: NicIrq) {
  const effective = irq.effectiveAffinity !== null;
  const file = `/proc/irq/${irq.irq}/${effective ? 'effective_affinity_list' : 'smp_affinity_list'}`;
  const fileSource = source('nic.irqs', file);
  return {
    label: `IRQ ${irq.irq}${irq.name ? ` (${irq.name})` : ''} CPUs`,
    observed: formatCpuList(where(irq) ?? []),
    ...(fileSource ? { source: fileSource } : {}),
  };
}

/** 1. Every queue on the same single CPU; returns that CPU. */
function reportOneCpu(ctx: Ctx, view: QueueView): number | null {
  if (!view.multiQueue || !view.knownAffinity) return null;
  const used = new Set(view.queues.flatMap((irq) => where(irq)!));
  if (used.size !== 1) return null;
  const oneCpu = [...used][0]!;
  ctx.report('irqs-on-one-cpu', {
    evidence: view.queues.map((irq) => ({ ...affinityEvidence(ctx, irq), expected: 'different CPUs' })),
    data: { ...view.common, cpu: oneCpu },
  });
  return oneCpu;
}

/** 2. Queues on CPUs outside the NIC's node (only meaningful when the node is not the whole host). */
function reportOffNode(ctx: Ctx, view: QueueView): void {
  const local = new Set(view.localCpus);
  if (!view.knownAffinity || local.size === 0 || !view.onlineCpus.some((cpu) => !local.has(cpu))) return;
  const allOnline = formatCpuList(view.onlineCpus);
  // The default mask (every CPU) says nothing about where an IRQ lands; effective affinity does.
  const offNode = view.queues.filter((irq) => {
    const cpus = where(irq)!;
    const outside = cpus.some((cpu) => !local.has(cpu));
    if (!outside) return false;
    return irq.effectiveAffinity !== null || formatCpuList(cpus) !== allOnline;
  });
  if (offNode.length === 0) return;
  const remote = view.onlineCpus.filter((cpu) => !local.has(cpu));
  ctx.report('irqs-off-node', {
    evidence: offNode.map((irq) => ({ ...affinityEvidence(ctx, irq), expected: formatCpuList(view.localCpus) })),
    data: {
      ...view.common,
      offNode: offNode.length,
      entirelyRemote: offNode.filter((irq) => where(irq)!.every((cpu) => !local.has(cpu))).length,
      remoteCpus: formatCpuList(remote),
    },
  });
}

/** 3. Where the interrupts were actually handled (counts since boot). */
function reportConcentration(ctx: Ctx, view: QueueView, oneCpu: number | null): boolean {
  const { options: opts } = ctx;
  if (!view.multiQueue || !view.haveCounts) return false;
  const perCpu = view.onlineCpus.map((_, column) => view.queues.reduce((sum, irq) => sum + (irq.counts[column] ?? 0), 0));
  const total = perCpu.reduce((sum, count) => sum + count, 0);
  const top = perCpu.reduce((best, count, column) => (count > perCpu[best]! ? column : best), 0);
  const share = total > 0 ? perCpu[top]! / total : 0;
  const topCpu = view.onlineCpus[top]!;
  // When affinity already puts everything on this CPU, irqs-on-one-cpu said it.
  // Counts are since boot: a port that took a sliver of the host's MSI interrupts is idle, and
  // where an idle port's few interrupts landed says nothing about a bottleneck.
  const idle = idleOnHost(ctx, total);
  if (total < opts.minInterrupts || share <= opts.concentrationShare || oneCpu === topCpu) return false;
  ctx.report('interrupt-concentration', {
    ...(idle ? { severity: 'info' as const } : {}),
    evidence: [
      {
        label: `queue interrupts on CPU ${topCpu}`,
        observed: perCpu[top]!,
        expected: `at most ${Math.round(opts.concentrationShare * 100)}% of ${total}`,
        unit: 'interrupts',
        source: { kind: 'file', path: '/proc/interrupts' },
      },
      { label: 'queue interrupts, all CPUs', observed: total, unit: 'interrupts', source: { kind: 'file', path: '/proc/interrupts' } },
    ],
    data: {
      ...view.common,
      cpu: topCpu,
      total,
      topCount: perCpu[top]!,
      share: Number(share.toFixed(4)),
      sharePercent: Math.round(share * 100),
    },
  });
  return true;
}

/** Whether a NIC whose queues took `total` interrupts since boot took only a sliver of the host's MSI interrupts. */
function idleOnHost({ optional, options: opts }: Ctx, total: number): boolean {
  const allMsi = optional['proc.interrupts'].ok
    ? optional['proc.interrupts'].value.rows.filter((row) => /MSI/i.test(row.chip ?? '')).reduce((sum, row) => sum + row.total, 0)
    : 0;
  return allMsi > 0 && total / allMsi < opts.idleShareOfHost;
}

/** The CPU column that took at least `share` of a row's counts, or null. */
function dominantColumn(counts: readonly number[], share: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const top = counts.reduce((best, count, column) => (count > counts[best]! ? column : best), 0);
  return counts[top]! / total >= share ? top : null;
}

/** The busy receive queues since boot and the CPU column each sits on (null: spread over several). */
function busyReceiveQueues(view: QueueView, opts: Options): { irq: NicIrq; column: number | null }[] {
  const totalOf = (irq: NicIrq) => irq.counts.reduce((sum, count) => sum + count, 0);
  const fair = view.receive.reduce((sum, irq) => sum + totalOf(irq), 0) / Math.max(1, view.receive.length);
  // Busy: at least half its fair share (queues a hash leaves nearly empty carry few flows).
  const floor = Math.max(opts.minInterrupts / Math.max(1, view.receive.length), fair / 2);
  return view.receive
    .filter((irq) => totalOf(irq) >= floor)
    .map((irq) => ({ irq, column: dominantColumn(irq.counts, opts.concentrationShare) }));
}

/**
 * 3b. Several busy receive queues on one CPU while a CPU the queues should use takes none of them
 * (a partial concentration: "two queues on CPU3, CPU2 idle"). Only where one queue per CPU fits.
 */
function reportQueuesShareCpu(ctx: Ctx, view: QueueView): boolean {
  const { options: opts } = ctx;
  if (!view.multiQueue || !view.haveCounts) return false;
  const busy = busyReceiveQueues(view, opts);
  if (busy.length < 2 || busy.length > view.targetCpus.length) return false;
  const perColumn = new Map<number, number>();
  for (const { column } of busy) if (column !== null) perColumn.set(column, (perColumn.get(column) ?? 0) + 1);
  const [column, stacked] = [...perColumn].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [-1, 0]);
  if (stacked < 2) return false;
  const usedCpus = new Set(
    view.receive.flatMap((irq) => irq.counts.flatMap((count, index) => (count > 0 ? [view.onlineCpus[index]!] : []))),
  );
  const unused = view.targetCpus.filter((cpu) => view.onlineCpus.includes(cpu) && !usedCpus.has(cpu));
  if (unused.length === 0) return false;
  const cpu = view.onlineCpus[column]!;
  const total = view.receive.reduce((sum, irq) => sum + irq.counts.reduce((rowSum, count) => rowSum + count, 0), 0);
  ctx.report('queues-share-cpu', {
    ...(idleOnHost(ctx, total) ? { severity: 'info' as const } : {}),
    evidence: busy.map(({ irq }) => ({
      label: `IRQ ${irq.irq}${irq.name ? ` (${irq.name})` : ''} interrupts on CPU ${cpu}`,
      observed: irq.counts[column] ?? 0,
      unit: 'interrupts',
      source: { kind: 'file', path: '/proc/interrupts' },
    })),
    data: { ...view.common, cpu, stacked, busy: busy.length, unusedCpus: formatCpuList(unused) },
  });
  return true;
}

/**
 * 3c. A NIC with one receive vector cannot be spread by affinity, but it can be given a CPU of its
 * own: its busy vector stacked on a CPU with other busy device lines while another CPU takes no
 * device interrupt at all is concentration (two router ports on one core of two).
 */
function reportStackedWithDevices(ctx: Ctx, view: QueueView): void {
  const { optional, options: opts } = ctx;
  const interrupts = optional['proc.interrupts'];
  if (!interrupts.ok || !view.haveCounts || view.onlineCpus.length < 2) return;
  const busy = busyReceiveQueues(view, opts).filter(({ column }) => column !== null);
  if (busy.length !== 1 || busy[0]!.irq.counts.reduce((sum, count) => sum + count, 0) < opts.minInterrupts) return;
  const { irq, column } = busy[0]!;
  const own = new Set(view.queues.map((queue) => queue.irq));
  const devices = deviceRows(interrupts.value).filter((row) => !own.has(row.irq!));
  const others = devices.filter((row) => row.total >= opts.minInterrupts && dominantColumn(row.counts, opts.concentrationShare) === column);
  if (others.length === 0) return;
  const perCpu = view.onlineCpus.map((_, index) =>
    [...devices, ...view.queues.map((queue) => ({ counts: queue.counts }))].reduce((sum, row) => sum + (row.counts[index] ?? 0), 0),
  );
  const busiest = Math.max(...perCpu);
  const free = view.onlineCpus.filter((_, index) => perCpu[index]! <= busiest * opts.freeCpuShare);
  if (free.length === 0) return;
  const total = irq.counts.reduce((sum, count) => sum + count, 0);
  const otherTotal = others.reduce((sum, row) => sum + row.total, 0);
  const cpu = view.onlineCpus[column!]!;
  // A port that took a sliver of the host's device interrupts is idle: where it sits is a note.
  const allDevices = devices.reduce((sum, row) => sum + row.total, total);
  // A shared legacy line counts every device on it: the NIC's own share is not known.
  const idle = total / allDevices < opts.idleShareOfHost || irq.shared;
  ctx.report('stacked-with-busy-devices', {
    ...(idle ? { severity: 'info' as const } : {}),
    evidence: [
      {
        label: `IRQ ${irq.irq}${irq.name ? ` (${irq.name})` : ''} interrupts on CPU ${cpu}`,
        observed: irq.counts[column!] ?? 0,
        unit: 'interrupts',
        source: { kind: 'file', path: '/proc/interrupts' },
      },
      ...others.slice(0, 4).map((row) => ({
        label: `IRQ ${row.irq}${row.actions[0] ? ` (${row.actions.join(', ')})` : ''} on the same CPU`,
        observed: row.total,
        unit: 'interrupts',
        source: { kind: 'file' as const, path: '/proc/interrupts' },
      })),
    ],
    data: { ...view.common, cpu, total, otherBusy: others.length, otherTotal, freeCpus: formatCpuList(free) },
  });
}

/**
 * 3d. A multi-queue NIC whose queues are spread one per CPU can still have its busiest receive
 * queue land on the CPU that takes another device's busiest line (the hot queues of two router
 * ports under the same 1:1 queue-to-CPU map): that CPU then handles several times what any other
 * does, and its softirq caps both ports. Judged on the rows the capture shows.
 */
function reportBusiestQueueStacked(ctx: Ctx, view: QueueView): void {
  const { optional, options: opts } = ctx;
  const interrupts = optional['proc.interrupts'];
  if (!interrupts.ok || !view.haveCounts) return;
  const totalOf = (counts: readonly number[]) => counts.reduce((sum, count) => sum + count, 0);
  const hottest = busyReceiveQueues(view, opts)
    .filter((queue) => queue.column !== null)
    .reduce<{ irq: NicIrq; column: number | null } | null>(
      (best, queue) => (best === null || totalOf(queue.irq.counts) > totalOf(best.irq.counts) ? queue : best),
      null,
    );
  if (hottest === null) return;
  const { irq } = hottest;
  const column = hottest.column!;
  const queueTotal = totalOf(irq.counts);
  if (queueTotal < opts.minInterrupts) return;
  const own = new Set(view.queues.map((queue) => queue.irq));
  const devices = deviceRows(interrupts.value).filter((row) => !own.has(row.irq!));
  const others = devices.filter(
    (row) => row.total >= queueTotal * opts.competingShare && dominantColumn(row.counts, opts.concentrationShare) === column,
  );
  if (others.length === 0) return;
  const perCpu = view.onlineCpus.map((_, index) => [...devices, ...view.queues].reduce((sum, row) => sum + (row.counts[index] ?? 0), 0));
  const nextBusiest = Math.max(0, ...perCpu.filter((_, index) => index !== column));
  if (perCpu[column]! < opts.outlierRatio * Math.max(1, nextBusiest)) return;
  const allDevices = devices.reduce((sum, row) => sum + row.total, totalOf(view.queues.flatMap((queue) => queue.counts)));
  const candidates = view.targetCpus.filter((cpu) => view.onlineCpus.includes(cpu));
  const quiet = (candidates.length > 0 ? candidates : view.onlineCpus).reduce((best, cpu) =>
    perCpu[view.onlineCpus.indexOf(cpu)]! < perCpu[view.onlineCpus.indexOf(best)]! ? cpu : best,
  );
  const label = (row: { irq: number | null; actions: readonly string[] }) =>
    `IRQ ${row.irq}${row.actions[0] ? ` (${row.actions.join(', ')})` : ''}`;
  ctx.report('busiest-queue-stacked', {
    // A port that took a sliver of the host's device interrupts is idle: where it sits is a note.
    ...(queueTotal / allDevices < opts.idleShareOfHost || irq.shared ? { severity: 'info' as const } : {}),
    evidence: [
      {
        label: `IRQ ${irq.irq}${irq.name ? ` (${irq.name})` : ''} interrupts on CPU ${view.onlineCpus[column]}`,
        observed: irq.counts[column] ?? 0,
        unit: 'interrupts',
        source: { kind: 'file', path: '/proc/interrupts' },
      },
      ...others.slice(0, 4).map((row) => ({
        label: `${label(row)} on the same CPU`,
        observed: row.total,
        unit: 'interrupts',
        source: { kind: 'file' as const, path: '/proc/interrupts' },
      })),
      {
        label: 'device interrupts, next busiest CPU',
        observed: nextBusiest,
        unit: 'interrupts',
        source: { kind: 'file', path: '/proc/interrupts' },
      },
    ],
    data: {
      ...view.common,
      cpu: view.onlineCpus[column]!,
      queueIrq: irq.irq,
      queueTotal,
      otherLines: others.slice(0, 4).map(label).join(', '),
      otherTotal: others.reduce((sum, row) => sum + row.total, 0),
      cpuTotal: perCpu[column]!,
      nextBusiest,
      ratio: Number((perCpu[column]! / Math.max(1, nextBusiest)).toFixed(1)),
      quietCpu: quiet,
    },
  });
}

/** Numbered device rows of /proc/interrupts (not the architecture's own timer and IPI rows). */
function deviceRows(interrupts: ProcInterrupts) {
  return interrupts.rows.filter((row) => row.irq !== null && !/^(?:timer|arch_timer|IPI\d*)$/i.test(row.actions[0] ?? ''));
}

/** 4. irqbalance against the pinning: running over hand-pinned queues, or absent on a many-queue NIC. */
function reportIrqbalance(ctx: Ctx, view: QueueView, oneCpu: number | null): void {
  const { optional, options: opts, profile, source } = ctx;
  const balancer = optional.irqbalance;
  if (!balancer.ok || !view.knownAffinity || !view.multiQueue) return;
  const { queues } = view;
  const spread = new Set(queues.flatMap((irq) => where(irq)!)).size;
  const masks = queues.map((irq) => irq.affinity);
  const handPinned =
    masks.every((mask) => mask !== null && mask.length === 1) && new Set(masks.map((mask) => mask![0])).size === queues.length;
  const banned = new Set(balancer.value.bannedIrqs);
  const unbanned = queues.map((irq) => irq.irq).filter((irq) => !banned.has(irq));
  const balancerSource = source('irqbalance', '/proc');
  if (balancer.value.running && handPinned && unbanned.length > 0) {
    const fast = view.device.speedMbps !== null && view.device.speedMbps >= opts.vendorPinningMbps;
    ctx.report('irqbalance-overrides-pinning', {
      ...(fast ? { severity: 'warning' as const } : {}),
      evidence: [
        { label: 'irqbalance running', observed: true, expected: false, ...(balancerSource ? { source: balancerSource } : {}) },
        ...queues.map((irq) => ({ label: `IRQ ${irq.irq} smp_affinity_list`, observed: formatCpuList(irq.affinity ?? []) })),
      ],
      data: {
        ...view.common,
        pid: balancer.value.pids[0] ?? null,
        unbannedIrqs: unbanned.join(','),
        configPath: balancer.value.configPath ?? '/etc/default/irqbalance',
      },
    });
  } else if (
    !balancer.value.running &&
    profile === 'throughput' &&
    queues.length >= opts.irqbalanceMinQueues &&
    spread < Math.min(queues.length, view.onlineCpus.length)
  ) {
    // Skip when irqs-on-one-cpu already said it all.
    if (oneCpu !== null) return;
    ctx.report('irqbalance-absent', {
      evidence: [{ label: 'irqbalance running', observed: false, expected: true, ...(balancerSource ? { source: balancerSource } : {}) }],
      data: { ...view.common, distinctCpus: spread },
    });
  }
}

export default check;

/** A shell loop that pins the IRQs round-robin over the CPUs. */
function pinLoop(irqs: readonly number[], cpus: readonly number[]): string {
  return `cpus=(${cpus.join(' ')}); i=0; for irq in ${irqs.join(' ')}; do echo \${cpus[i++ % ${cpus.length}]} > /proc/irq/$irq/smp_affinity_list; done`;
}
