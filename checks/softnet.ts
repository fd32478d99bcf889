import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence, Source } from '../src/report/schema.js';
import type { SoftnetCpu } from '../src/parsers/softnet-stat.js';
import { crosses, rateText, sinceBoot } from '../src/domain/since-boot.js';

// Kernel defaults (net/core/net-sysfs.c, net/core/dev.c), used when the sysctls could not be read.
const DEFAULT_BACKLOG = 1000;
const DEFAULT_BUDGET = 300;
const DEFAULT_BUDGET_USECS = 2000;

const options = z.object({
  /** Backlog drops at or below this, per CPU, are ignored. */
  minDrops: z.number().int().nonnegative().default(0),
  /**
   * time_squeeze per processed packet from which budget exhaustion is a warning: with the default
   * budget of 300 packets, 0.001 means roughly a third of the softirq rounds stopped with work left.
   */
  squeezeWarningRatio: z.number().positive().default(0.001),
  /**
   * time_squeeze delays packets, it loses none (the softirq resumes on its next round): without a
   * single backlog drop it is a warning only when one CPU's count is sustained, as loss counters are
   * judged: this many since boot, or this many per hour of uptime (ten a second, around the clock).
   * Below both it is a note, however high its share of the packets: tens of thousands over a
   * hypervisor's uptime are bursts, not a limit.
   */
  squeezeWithoutDropsCount: z.number().int().positive().default(1_000_000),
  squeezeWithoutDropsPerHour: z.number().positive().default(36_000),
  /** Backlog drops below this fraction of processed packets are negligible: a note with the rate. */
  negligibleDropRate: z.number().nonnegative().default(1e-6),
  /** ... unless there are at least this many since boot: a count that large is loss, whatever the rate. */
  significantDropCount: z.number().int().positive().default(1_000_000),
  /** Suggested new limits are the current ones times this. */
  raiseFactor: z.number().gt(1).default(2),
});

const count = z.number().int().nonnegative();

/**
 * Which CPUs a finding is about: CPU ids, or, on kernels before 5.10 (no CPU id column, and rows
 * skip offline CPUs), the softnet rows; only the row is certain there.
 */
const cpuRefs = {
  /** Comma-separated CPU ids or row numbers. */
  cpus: z.string().regex(/^\d+(,\d+)*$/),
  cpuIds: z.enum(['cpu', 'row']),
};

function cpuLabels(list: string, ids: 'cpu' | 'row'): string {
  return list
    .split(',')
    .map((n) => (ids === 'cpu' ? `CPU ${n}` : `softnet row ${n}`))
    .join(', ');
}

export default defineCheck({
  id: 'softnet',
  title: 'Kernel receive backlog and softirq budget',
  description:
    'Reads /proc/net/softnet_stat (one row per CPU, hex). Column 2 counts packets dropped because the per-CPU backlog exceeded net.core.netdev_max_backlog: drops that no NIC counter shows. Column 3 (time_squeeze) counts softirq rounds that stopped with packets left because net.core.netdev_budget or netdev_budget_usecs ran out. Both are totals since boot.',
  scope: 'host',
  requires: ['softnet'],
  optionalFacts: ['sysctl.net', 'host.uptime'],
  options,
  symptoms: {
    'backlog-drops': symptom({
      severity: 'warning',
      data: z.object({
        totalDropped: count,
        /** Dropped per processed packet; null when nothing was processed. */
        dropRate: z.number().nonnegative().nullable(),
        cpuCount: z.number().int().positive(),
        ...cpuRefs,
        /** net.core.netdev_max_backlog; null when it could not be read. */
        backlog: count.nullable(),
        suggestedBacklog: z.number().int().positive(),
      }),
      phrases: {
        dropShare: (d) => (d.dropRate === null ? 'unknown' : d.dropRate.toPrecision(2)),
        cpuList: (d) => cpuLabels(d.cpus, d.cpuIds),
        backlogSetting: (d) => (d.backlog === null ? `not read, kernel default ${DEFAULT_BACKLOG}` : String(d.backlog)),
      },
      message:
        '{totalDropped} packets dropped since boot ({dropShare} per processed packet) because a per-CPU backlog was full (net.core.netdev_max_backlog = {backlogSetting}), on {cpuList}: drops the NIC counters do not show',
      fix: 'Raise net.core.netdev_max_backlog (sysctl -w net.core.netdev_max_backlog={suggestedBacklog}, kept in a /etc/sysctl.d drop-in) and spread receive processing over more CPUs with RSS queues or RPS (/sys/class/net/<if>/queues/rx-N/rps_cpus). The counters are totals since boot: nicdoctor bench measures the increase during a test.',
    }),
    'budget-exhausted': symptom({
      severity: 'info',
      data: z.object({
        totalSqueeze: count,
        cpuCount: z.number().int().positive(),
        /** The CPU (or softnet row, see cpuIds) with the most time_squeeze per processed packet. */
        worstCpu: z.number().int().nonnegative(),
        cpuIds: cpuRefs.cpuIds,
        worstRatio: z.number().nonnegative(),
        /** The most squeezed CPU's count per hour of uptime; null when the uptime is unknown. */
        perHour: z.number().nonnegative().nullable(),
        /** net.core.netdev_budget and netdev_budget_usecs; null when they could not be read. */
        budget: count.nullable(),
        budgetUsecs: count.nullable(),
        suggestedBudget: z.number().int().positive(),
        suggestedBudgetUsecs: z.number().int().positive(),
      }),
      phrases: {
        worstCpuLabel: (d) => cpuLabels(String(d.worstCpu), d.cpuIds),
        worstShare: (d) => d.worstRatio.toPrecision(2),
        rate: (d) => rateText(d.perHour),
        budgetSetting: (d) => (d.budget === null ? `not read, kernel default ${DEFAULT_BUDGET}` : String(d.budget)),
        budgetUsecsSetting: (d) => (d.budgetUsecs === null ? `not read, kernel default ${DEFAULT_BUDGET_USECS}` : String(d.budgetUsecs)),
      },
      message:
        'time_squeeze {totalSqueeze} since boot on {cpuCount} CPU(s){rate}, worst {worstShare} per packet on {worstCpuLabel}: the receive softirq ran out of net.core.netdev_budget ({budgetSetting} packets) or netdev_budget_usecs ({budgetUsecsSetting} µs) with packets still waiting',
      fix: "Raise net.core.netdev_budget (sysctl -w net.core.netdev_budget={suggestedBudget}) and net.core.netdev_budget_usecs (sysctl -w net.core.netdev_budget_usecs={suggestedBudgetUsecs}); if one CPU does all the work, spread the NIC's queues over more CPUs (RSS/RPS).",
    }),
  },
  run({ facts, optional, options: opts, report, source }) {
    const cpus = facts.softnet.cpus;
    const uptime = optional['host.uptime'].ok ? optional['host.uptime'].value.seconds : null;
    const sysctl = optional['sysctl.net'].ok ? optional['sysctl.net'].value : null;
    const ids = idKind(cpus);
    const cpuRef = (cpu: SoftnetCpu) => (ids === 'cpu' ? cpu.cpu! : cpu.row);
    const where = source('softnet');
    const withSource = where ? { source: where } : {};

    const dropping = cpus.filter((cpu) => cpu.dropped > opts.minDrops);
    if (dropping.length > 0) {
      const backlog = sysctl?.netdevMaxBacklog ?? null;
      const totalDropped = sum(dropping.map((cpu) => cpu.dropped));
      const processed = sum(cpus.map((cpu) => cpu.processed));
      const rate = processed > 0 ? totalDropped / processed : null;
      report('backlog-drops', {
        ...(rate !== null && rate < opts.negligibleDropRate && totalDropped < opts.significantDropCount
          ? { severity: 'info' as const }
          : {}),
        evidence: [
          ...dropping.map((cpu): Evidence => ({
            label: `${cpuLabel(cpu)} backlog drops`,
            observed: cpu.dropped,
            expected: opts.minDrops,
            unit: 'packets',
            ...withSource,
          })),
          ...(backlog !== null ? [sysctlEvidence('net.core.netdev_max_backlog', backlog, source('sysctl.net', 'netdev_max_backlog'))] : []),
        ],
        data: {
          totalDropped,
          dropRate: rate,
          cpuCount: dropping.length,
          cpus: dropping.map(cpuRef).join(','),
          cpuIds: ids,
          backlog,
          suggestedBacklog: Math.round((backlog ?? DEFAULT_BACKLOG) * opts.raiseFactor),
        },
      });
    }

    const squeezed = cpus.filter((cpu) => cpu.timeSqueeze > 0);
    if (squeezed.length > 0) {
      // The columns are 32-bit and wrap, so a busy CPU's ratio can be off; it is a hint, not a measure.
      const ratioOf = (cpu: SoftnetCpu) => cpu.timeSqueeze / Math.max(cpu.processed, 1);
      const worst = squeezed.reduce((a, b) => (ratioOf(b) > ratioOf(a) ? b : a));
      const worstRatio = ratioOf(worst);
      const anyDrops = cpus.some((cpu) => cpu.dropped > opts.minDrops);
      const mostSqueezed = sinceBoot(Math.max(...squeezed.map((cpu) => cpu.timeSqueeze)), uptime);
      const sustained = crosses(mostSqueezed, { count: opts.squeezeWithoutDropsCount, perHour: opts.squeezeWithoutDropsPerHour });
      const budget = sysctl?.netdevBudget ?? null;
      const budgetUsecs = sysctl?.netdevBudgetUsecs ?? null;
      report('budget-exhausted', {
        ...(worstRatio >= opts.squeezeWarningRatio && (anyDrops || sustained) ? { severity: 'warning' as const } : {}),
        evidence: [
          ...squeezed.map((cpu): Evidence => ({
            label: `${cpuLabel(cpu)} time_squeeze`,
            observed: cpu.timeSqueeze,
            expected: 0,
            ...withSource,
          })),
          ...(budget !== null ? [sysctlEvidence('net.core.netdev_budget', budget, source('sysctl.net', 'netdev_budget'))] : []),
          ...(budgetUsecs !== null
            ? [sysctlEvidence('net.core.netdev_budget_usecs', budgetUsecs, source('sysctl.net', 'netdev_budget_usecs'))]
            : []),
        ],
        data: {
          totalSqueeze: sum(squeezed.map((cpu) => cpu.timeSqueeze)),
          cpuCount: squeezed.length,
          worstCpu: cpuRef(worst),
          cpuIds: ids,
          worstRatio,
          perHour: mostSqueezed.perHour,
          budget,
          budgetUsecs,
          suggestedBudget: Math.round((budget ?? DEFAULT_BUDGET) * opts.raiseFactor),
          suggestedBudgetUsecs: Math.round((budgetUsecs ?? DEFAULT_BUDGET_USECS) * opts.raiseFactor),
        },
      });
    }
    return undefined;
  },
});

/** Kernels before 5.10 print no CPU id, and rows skip offline CPUs: then only the row is certain. */
function cpuLabel(cpu: SoftnetCpu): string {
  return cpu.cpu !== null ? `CPU ${cpu.cpu}` : `softnet row ${cpu.row}`;
}

/** CPU ids when every row has one (the column appeared in 5.10), else row numbers. */
function idKind(cpus: readonly SoftnetCpu[]): 'cpu' | 'row' {
  return cpus.every((cpu) => cpu.cpu !== null) ? 'cpu' : 'row';
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function sysctlEvidence(label: string, observed: number, where: Source | undefined): Evidence {
  return { label, observed, ...(where ? { source: where } : {}) };
}
