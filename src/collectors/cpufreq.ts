import path from 'node:path';
import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { SYS_CPU } from './cpu-topology.js';
import { parseIntOrNull, readAttribute } from '../hostio/sysfs-read.js';

export interface CpuFreqPolicy {
  cpu: number;
  governor: string | null;
  curKHz: number | null;
  /** scaling_max_freq: the ceiling the governor may use (lowered by power capping or tuning). */
  scalingMaxKHz: number | null;
  /** cpuinfo_max_freq: what the hardware can do. */
  hwMaxKHz: number | null;
}

export interface CpuFreq {
  /** False when the kernel exposes no cpufreq (most VMs): no data, not an error. */
  present: boolean;
  /** scaling_driver: intel_pstate, amd-pstate-epp, acpi-cpufreq, cppc_cpufreq, ... */
  driver: string | null;
  cpus: CpuFreqPolicy[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    cpufreq: CpuFreq;
  }
}

export const cpufreqCollector = defineCollector({
  id: 'cpufreq',
  scope: 'host',
  description: 'CPU frequency governor, current and maximum frequency per CPU from /sys/devices/system/cpu/cpuN/cpufreq',
  reads: {
    files: ['/sys/devices/system/cpu/online', '/sys/devices/system/cpu/cpu<n>/cpufreq/*'],
    ask: 'cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor | sort | uniq -c',
    never: { text: 'no pasted format reads the governor files; what a ticket says of the governor is read as what it reports' },
  },
  async collect(ctx) {
    const online = await readAttribute(ctx, path.join(SYS_CPU, 'online'));
    if (online === undefined) throw new FactCollectionError('not-found', `${SYS_CPU}/online could not be read`);
    const list = parseCpuList(online);
    const [cpus, driver] = await Promise.all([
      Promise.all(
        list.map(async (cpu): Promise<CpuFreqPolicy> => {
          const dir = path.join(SYS_CPU, `cpu${cpu}`, 'cpufreq');
          const [governor, cur, scalingMax, hwMax] = await Promise.all(
            ['scaling_governor', 'scaling_cur_freq', 'scaling_max_freq', 'cpuinfo_max_freq'].map((file) =>
              readAttribute(ctx, path.join(dir, file)),
            ),
          );
          return {
            cpu,
            governor: governor || null,
            curKHz: parseIntOrNull(cur),
            scalingMaxKHz: parseIntOrNull(scalingMax),
            hwMaxKHz: parseIntOrNull(hwMax),
          };
        }),
      ),
      // One driver drives every policy.
      list.length > 0 ? readAttribute(ctx, path.join(SYS_CPU, `cpu${list[0]}`, 'cpufreq', 'scaling_driver')) : undefined,
    ]);
    const present = cpus.some((entry) => entry.governor !== null || entry.hwMaxKHz !== null);
    return { present, driver: driver || null, cpus: present ? cpus : [] };
  },
});
