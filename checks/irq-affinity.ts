import { z } from 'zod';
import type { NicIrq } from '../src/collectors/nic-irqs.js';
import { defineCheck } from '../src/engine/check.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import { formatCpuList, parseCpuList } from '../src/parsers/cpulist.js';

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
});

export default defineCheck({
  id: 'irq-affinity',
  title: 'NIC interrupts are spread over NIC-local CPUs',
  failureTitle: 'NIC interrupts are concentrated or on the wrong NUMA node',
  description:
    'Reads the NIC\'s vectors (msi_irqs, /proc/interrupts) and /proc/irq/<n>/{smp,effective}_affinity_list. All queue IRQs on one CPU, IRQs on CPUs outside the NIC\'s NUMA node, or most interrupts handled by one CPU leave one core\'s softirq saturated while more streams do not help (CAUSES.md 4, 5). Also notes irqbalance overriding hand pinning, or missing on a many-queue NIC.',
  scope: 'interface',
  appliesTo: (iface) => (isSoftware(iface) ? `${iface.name} has no interrupts of its own (${iface.kind} interface)` : null),
  requires: ['nic.irqs', 'net.device'],
  optionalFacts: ['irqbalance', 'proc.interrupts'],
  options,
  symptoms: {
    'irqs-on-one-cpu': {
      severity: 'warning',
      message: 'All {queues} queue interrupts of {subject} go to CPU {cpu}: one core does the receive work of every queue',
      fix: { text: 'Spread them over the NIC-local CPUs {localCpus}: {commands} (or the vendor script: set_irq_affinity_bynode.sh {node} {subject}; or systemctl enable --now irqbalance)', ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }] },
    },
    'irqs-off-node': {
      severity: 'warning',
      message: '{offNode} of {queues} queue interrupts of {subject} go to CPUs outside its NUMA node {node} (local CPUs {localCpus}): every packet crosses the socket interconnect',
      fix: { text: 'Pin them to the local CPUs: {commands} (or set_irq_affinity_bynode.sh {node} {subject}); with irqbalance, it follows the NIC\'s node when numa_node is reported (irqbalance --policyscript or IRQBALANCE_BANNED_CPULIST={remoteCpus})', ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }] },
    },
    'interrupt-concentration': {
      severity: 'warning',
      message: 'CPU {cpu} handled {sharePercent}% of the {total} queue interrupts of {subject} since boot ({queues} queues): its softirq is the bottleneck',
      fix: { text: 'Spread the queue IRQs over the NIC-local CPUs {localCpus}: {commands}; counts are since boot, so compare two readings of /proc/interrupts after changing affinity', ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }] },
    },
    'irqbalance-overrides-pinning': {
      severity: 'info',
      message: 'The {queues} queue interrupts of {subject} are pinned one per CPU, but irqbalance (pid {pid}) is running and will move them',
      fix: 'Keep one owner: either stop irqbalance (systemctl disable --now irqbalance) and keep the pinning, or exclude these IRQs with IRQBALANCE_ARGS="{banArgs}" in {configPath}, or drop the pinning script and let irqbalance place them',
    },
    'irqbalance-absent': {
      severity: 'info',
      message: 'irqbalance is not running and the {queues} queue interrupts of {subject} use only {distinctCpus} CPU(s)',
      fix: { text: 'systemctl enable --now irqbalance, or pin the queues by hand: {commands}', ops: [{ kind: 'irq-affinity', irqs: '{irqs}', cpus: '{localCpus}' }] },
    },
  },
  run({ facts, optional, options: opts, profile, subject, report, notApplicable, unknown, source }) {
    const nic = facts['nic.irqs'];
    const device = facts['net.device'];
    if (nic.irqs.length === 0) return notApplicable(`${subject} has no interrupts of its own (${device.kind} interface)`);
    const queues = nic.irqs.filter((irq) => irq.role === 'queue');
    if (queues.length === 0) return notApplicable(`${subject} has no queue interrupts (only ${nic.irqs.length} control vector(s))`);

    const onlineCpus = nic.cpus;
    const localCpus = device.localCpuList ? parseCpuList(device.localCpuList) : [];
    const targetCpus = localCpus.length > 0 ? localCpus : onlineCpus;
    const where = (irq: NicIrq) => irq.effectiveAffinity ?? irq.affinity;
    const knownAffinity = queues.every((irq) => where(irq) !== null);
    const haveCounts = queues.some((irq) => irq.counts.length > 0);
    if (!knownAffinity && !haveCounts) {
      return unknown(`the affinity and counts of ${subject}'s interrupts could not be read`, 'run nicdoctor as root so that /proc/irq/<n>/smp_affinity_list can be read');
    }

    const irqList = queues.map((irq) => irq.irq);
    const common = {
      queues: queues.length,
      irqs: irqList.join(','),
      localCpus: formatCpuList(targetCpus),
      // Placeholder rather than an invented node when the firmware does not report one.
      node: device.numaNode ?? '<node>',
      pinLoop: pinLoop(irqList, targetCpus),
    };
    const affinityEvidence = (irq: NicIrq) => {
      const effective = irq.effectiveAffinity !== null;
      const file = `/proc/irq/${irq.irq}/${effective ? 'effective_affinity_list' : 'smp_affinity_list'}`;
      const fileSource = source('nic.irqs', file);
      return { label: `IRQ ${irq.irq}${irq.name ? ` (${irq.name})` : ''} CPUs`, observed: formatCpuList(where(irq) ?? []), ...(fileSource ? { source: fileSource } : {}) };
    };
    const multiQueue = queues.length >= opts.minQueues && onlineCpus.length >= 2;

    // 1. Every queue on the same single CPU.
    let oneCpu: number | null = null;
    if (multiQueue && knownAffinity) {
      const used = new Set(queues.flatMap((irq) => where(irq)!));
      if (used.size === 1) {
        oneCpu = [...used][0]!;
        report('irqs-on-one-cpu', {
          evidence: queues.map((irq) => ({ ...affinityEvidence(irq), expected: 'different CPUs' })),
          data: { ...common, cpu: oneCpu },
        });
      }
    }

    // 2. Queues on CPUs outside the NIC's node (only meaningful when the node is not the whole host).
    const local = new Set(localCpus);
    if (knownAffinity && local.size > 0 && onlineCpus.some((cpu) => !local.has(cpu))) {
      const allOnline = formatCpuList(onlineCpus);
      // The default mask (every CPU) says nothing about where an IRQ lands; effective affinity does.
      const offNode = queues.filter((irq) => {
        const cpus = where(irq)!;
        const outside = cpus.some((cpu) => !local.has(cpu));
        if (!outside) return false;
        return irq.effectiveAffinity !== null || formatCpuList(cpus) !== allOnline;
      });
      if (offNode.length > 0) {
        const remote = onlineCpus.filter((cpu) => !local.has(cpu));
        report('irqs-off-node', {
          evidence: offNode.map((irq) => ({ ...affinityEvidence(irq), expected: formatCpuList(localCpus) })),
          data: {
            ...common,
            offNode: offNode.length,
            entirelyRemote: offNode.filter((irq) => where(irq)!.every((cpu) => !local.has(cpu))).length,
            remoteCpus: formatCpuList(remote),
          },
        });
      }
    }

    // 3. Where the interrupts were actually handled (counts since boot).
    if (multiQueue && haveCounts) {
      const perCpu = onlineCpus.map((_, column) => queues.reduce((sum, irq) => sum + (irq.counts[column] ?? 0), 0));
      const total = perCpu.reduce((sum, count) => sum + count, 0);
      const top = perCpu.reduce((best, count, column) => (count > perCpu[best]! ? column : best), 0);
      const share = total > 0 ? perCpu[top]! / total : 0;
      const topCpu = onlineCpus[top]!;
      // When affinity already puts everything on this CPU, irqs-on-one-cpu said it.
      // Counts are since boot: a port that took a sliver of the host's MSI interrupts is idle, and
      // where an idle port's few interrupts landed says nothing about a bottleneck.
      const allMsi = optional['proc.interrupts'].ok
        ? optional['proc.interrupts'].value.rows.filter((row) => /MSI/i.test(row.chip ?? '')).reduce((sum, row) => sum + row.total, 0)
        : 0;
      const idle = allMsi > 0 && total / allMsi < opts.idleShareOfHost;
      if (total >= opts.minInterrupts && share > opts.concentrationShare && oneCpu !== topCpu) {
        report('interrupt-concentration', {
          ...(idle ? { severity: 'info' as const } : {}),
          evidence: [
            { label: `queue interrupts on CPU ${topCpu}`, observed: perCpu[top]!, expected: `at most ${Math.round(opts.concentrationShare * 100)}% of ${total}`, unit: 'interrupts', source: { kind: 'file', path: '/proc/interrupts' } },
            { label: 'queue interrupts, all CPUs', observed: total, unit: 'interrupts', source: { kind: 'file', path: '/proc/interrupts' } },
          ],
          data: { ...common, cpu: topCpu, total, topCount: perCpu[top]!, share: Number(share.toFixed(4)), sharePercent: Math.round(share * 100) },
        });
      }
    }

    // 4. irqbalance against the pinning.
    const balancer = optional.irqbalance;
    if (balancer.ok && knownAffinity && multiQueue) {
      const spread = new Set(queues.flatMap((irq) => where(irq)!)).size;
      const masks = queues.map((irq) => irq.affinity);
      const handPinned = masks.every((mask) => mask !== null && mask.length === 1) && new Set(masks.map((mask) => mask![0])).size === queues.length;
      const banned = new Set(balancer.value.bannedIrqs);
      const unbanned = irqList.filter((irq) => !banned.has(irq));
      const balancerSource = source('irqbalance', '/proc');
      if (balancer.value.running && handPinned && unbanned.length > 0) {
        const fast = device.speedMbps !== null && device.speedMbps >= opts.vendorPinningMbps;
        report('irqbalance-overrides-pinning', {
          ...(fast ? { severity: 'warning' as const } : {}),
          evidence: [
            { label: 'irqbalance running', observed: true, expected: false, ...(balancerSource ? { source: balancerSource } : {}) },
            ...queues.map((irq) => ({ label: `IRQ ${irq.irq} smp_affinity_list`, observed: formatCpuList(irq.affinity ?? []) })),
          ],
          data: {
            ...common,
            pid: balancer.value.pids[0] ?? null,
            banArgs: unbanned.map((irq) => `--banirq=${irq}`).join(' '),
            configPath: balancer.value.configPath ?? '/etc/default/irqbalance',
          },
        });
      } else if (!balancer.value.running && profile === 'throughput' && queues.length >= opts.irqbalanceMinQueues && spread < Math.min(queues.length, onlineCpus.length)) {
        // Skip when irqs-on-one-cpu already said it all.
        if (oneCpu === null) {
          report('irqbalance-absent', {
            evidence: [{ label: 'irqbalance running', observed: false, expected: true, ...(balancerSource ? { source: balancerSource } : {}) }],
            data: { ...common, distinctCpus: spread },
          });
        }
      }
    }
    return undefined;
  },
});

/** A shell loop that pins the IRQs round-robin over the CPUs. */
function pinLoop(irqs: readonly number[], cpus: readonly number[]): string {
  return `cpus=(${cpus.join(' ')}); i=0; for irq in ${irqs.join(' ')}; do echo \${cpus[i++ % ${cpus.length}]} > /proc/irq/$irq/smp_affinity_list; done`;
}
