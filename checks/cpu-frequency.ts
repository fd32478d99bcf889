import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { formatCpuList } from '../src/parsers/cpulist.js';

const options = z.object({
  /** From this physical port speed a governor other than performance is a warning (one flow needs ~3 GHz per 30 Gb/s). */
  governorWarningMbps: z.number().positive().default(40_000),
  /** ESnet and the vendors' tuning guides: the `performance` governor (CAUSES.md 12). */
  governor: z.string().default('performance'),
  /** Median current frequency below this share of the hardware maximum is "far below". */
  belowMaxShare: z.number().gt(0).max(1).default(0.6),
  /** scaling_max_freq below this share of cpuinfo_max_freq means the maximum was lowered. */
  cappedShare: z.number().gt(0).max(1).default(0.98),
});

/** "powersave=16,performance=2" → "powersave x16, performance x2". */
export function describeGovernorCounts(counts: string): string {
  return counts
    .split(',')
    .map((entry) => entry.split('='))
    .map(([governor, count]) => `${governor} x${count}`)
    .join(', ');
}

export default defineCheck({
  id: 'cpu-frequency',
  title: 'CPU frequency governor and SMT',
  description:
    'Reads /sys/devices/system/cpu/cpuN/cpufreq (governor, current and maximum frequency) and SMT state. A power-saving governor lowers the per-stream rate and makes results vary from run to run; with SMT on, processes beyond the physical cores lose ~15 %.',
  scope: 'host',
  requires: ['cpufreq'],
  optionalFacts: ['cpu.topology'],
  options,
  symptoms: {
    'governor-not-performance': symptom({
      severity: 'warning',
      data: z.object({
        wanted: z.string(),
        notWanted: z.number().int(),
        cpus: z.number().int(),
        /** CPUs per governor, "powersave=16,performance=2" (sysfs governor names; "unknown" when unreadable). */
        governorCounts: z.string().regex(/^[\w-]+=\d+(,[\w-]+=\d+)*$/),
        driver: z.string().nullable(),
      }),
      phrases: { governors: (d) => describeGovernorCounts(d.governorCounts) },
      message: '{notWanted} of {cpus} CPUs use a governor other than {wanted} ({governors}): lower per-stream rate and run-to-run variance',
      fix: 'cpupower frequency-set -g {wanted} (or: echo {wanted} | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; tuned-adm profile network-throughput), and a performance power profile in the BIOS',
    }),
    'frequency-below-max': symptom({
      severity: 'info',
      data: z.object({ medianMHz: z.number().int(), maxMHz: z.number().int(), percent: z.number().int(), wanted: z.string() }),
      message: 'CPUs run at a median {medianMHz} MHz, {percent}% of their {maxMHz} MHz maximum (idle cores clock down; measure under load)',
      fix: 'cpupower frequency-set -g {wanted}; check BIOS power settings (C-states, energy/performance bias) and cooling; "at least 3 GHz per 30 Gb/s flow"',
    }),
    'max-frequency-capped': symptom({
      severity: 'info',
      data: z.object({ capped: z.number().int(), scalingMaxMHz: z.number().int(), maxMHz: z.number().int(), maxKHz: z.number().int() }),
      message: '{capped} CPUs have scaling_max_freq {scalingMaxMHz} MHz below their {maxMHz} MHz hardware maximum',
      fix: 'cpupower frequency-set -u {maxMHz}MHz (or write {maxKHz} to /sys/devices/system/cpu/cpu*/cpufreq/scaling_max_freq); check power capping in the BIOS/BMC',
    }),
    'smt-active': symptom({
      severity: 'info',
      data: z.object({
        threads: z.number().int(),
        cores: z.number().int(),
        /** The first hardware thread of each core, a cpulist ("0-7"). */
        firstThreads: z.string(),
        /** /sys/devices/system/cpu/smt/control: on, off, forceoff, notsupported, notimplemented. */
        smtControl: z.string().nullable(),
      }),
      message:
        'SMT is on: {threads} hardware threads on {cores} physical cores; test processes beyond {cores} share cores and lose ~15 %, and results vary',
      fix: 'Run at most one test process per physical core (taskset -c {firstThreads}); on a measurement host turn SMT off: echo off > /sys/devices/system/cpu/smt/control',
    }),
  },
  run({ facts, optional, interfaces, options: opts, profile, report, notApplicable, source }) {
    const freq = facts.cpufreq;
    let reported = false;

    // SMT is judged whether or not cpufreq exists (VMs may expose sibling threads).
    const topology = optional['cpu.topology'];
    if (topology.ok && topology.value.smtActive !== false) {
      // smt/active is missing before 4.19: then sibling lists alone tell.
      const siblingSets = new Map<string, number[]>();
      for (const thread of topology.value.cpus) if (thread.siblings) siblingSets.set(thread.siblings.join(','), thread.siblings);
      const threads = topology.value.online.length;
      const cores = siblingSets.size;
      if (cores > 0 && threads > cores) {
        const smtSource = source('cpu.topology', 'smt/active');
        report('smt-active', {
          evidence: [
            {
              label: 'smt/active',
              observed: topology.value.smtActive === null ? 'n/a' : 1,
              expected: 0,
              ...(smtSource ? { source: smtSource } : {}),
            },
            { label: 'hardware threads per physical core', observed: Number((threads / cores).toFixed(2)), expected: 1 },
          ],
          data: {
            threads,
            cores,
            firstThreads: formatCpuList([...siblingSets.values()].map((set) => set[0]!)),
            smtControl: topology.value.smtControl,
          },
        });
        reported = true;
      }
    }

    if (!freq.present) {
      if (reported) return undefined;
      return notApplicable('no cpufreq in sysfs: the hypervisor or firmware controls CPU frequency (typical in VMs)');
    }
    const driverSource = source('cpufreq', 'scaling_governor');

    const byGovernor = new Map<string, number[]>();
    for (const cpu of freq.cpus) {
      const governor = cpu.governor ?? 'unknown';
      byGovernor.set(governor, [...(byGovernor.get(governor) ?? []), cpu.cpu]);
    }
    const notWanted = freq.cpus.filter((cpu) => cpu.governor !== null && cpu.governor !== opts.governor);
    if (notWanted.length > 0) {
      // A measurement host needs a fixed clock even more; only a latency profile may trade it for
      // power. Below 40G one flow does not need the top clock (CAUSES.md: 3 GHz per 30 Gb/s flow):
      // there a power-saving governor is a note, not a cause.
      const fastestMbps = Math.max(0, ...interfaces.map((iface) => iface.speedMbps ?? 0));
      report('governor-not-performance', {
        ...(profile === 'latency' || fastestMbps < opts.governorWarningMbps ? { severity: 'info' as const } : {}),
        evidence: [...byGovernor].map(([governor, cpus]) => ({
          label: `scaling_governor (CPUs ${formatCpuList(cpus)})`,
          observed: governor,
          expected: opts.governor,
          ...(driverSource ? { source: driverSource } : {}),
        })),
        data: {
          wanted: opts.governor,
          notWanted: notWanted.length,
          cpus: freq.cpus.length,
          governorCounts: [...byGovernor].map(([governor, cpus]) => `${governor}=${cpus.length}`).join(','),
          driver: freq.driver,
        },
      });
    }

    const withMax = freq.cpus.filter((cpu) => cpu.hwMaxKHz !== null && cpu.hwMaxKHz > 0);
    const hwMaxKHz = Math.max(0, ...withMax.map((cpu) => cpu.hwMaxKHz!));
    const capped = withMax.filter((cpu) => cpu.scalingMaxKHz !== null && cpu.scalingMaxKHz < cpu.hwMaxKHz! * opts.cappedShare);
    if (capped.length > 0) {
      report('max-frequency-capped', {
        evidence: [
          {
            label: `scaling_max_freq (CPUs ${formatCpuList(capped.map((cpu) => cpu.cpu))})`,
            observed: Math.round(capped[0]!.scalingMaxKHz! / 1000),
            expected: Math.round(capped[0]!.hwMaxKHz! / 1000),
            unit: 'MHz',
          },
        ],
        data: {
          capped: capped.length,
          scalingMaxMHz: Math.round(capped[0]!.scalingMaxKHz! / 1000),
          maxMHz: Math.round(capped[0]!.hwMaxKHz! / 1000),
          maxKHz: capped[0]!.hwMaxKHz!,
        },
      });
    }

    const current = freq.cpus
      .map((cpu) => cpu.curKHz)
      .filter((khz): khz is number => khz !== null)
      .sort((a, b) => a - b);
    if (current.length > 0 && hwMaxKHz > 0) {
      const median = current[Math.floor(current.length / 2)]!;
      const share = median / hwMaxKHz;
      if (share < opts.belowMaxShare) {
        report('frequency-below-max', {
          evidence: [
            {
              label: 'median scaling_cur_freq',
              observed: Math.round(median / 1000),
              expected: `>= ${Math.round((hwMaxKHz * opts.belowMaxShare) / 1000)}`,
              unit: 'MHz',
            },
          ],
          data: {
            medianMHz: Math.round(median / 1000),
            maxMHz: Math.round(hwMaxKHz / 1000),
            percent: Math.round(share * 100),
            wanted: opts.governor,
          },
        });
      }
    }
    return undefined;
  },
});
