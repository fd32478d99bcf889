import path from 'node:path';
import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { parseIntOrNull, readAttribute } from '../hostio/sysfs-read.js';

export interface CpuThread {
  cpu: number;
  /** thread_siblings_list: the hardware threads of this CPU's core, itself included. */
  siblings: number[] | null;
  packageId: number | null;
  coreId: number | null;
}

export interface CpuTopology {
  online: number[];
  /** smt/active: 1 when sibling threads are online; null on kernels without the attribute (< 4.19). */
  smtActive: boolean | null;
  /** smt/control: on, off, forceoff, notsupported, notimplemented. */
  smtControl: string | null;
  cpus: CpuThread[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'cpu.topology': CpuTopology;
  }
}

export const SYS_CPU = '/sys/devices/system/cpu';

export const cpuTopologyCollector = defineCollector({
  id: 'cpu.topology',
  scope: 'host',
  description: 'Online CPUs, SMT state and thread siblings from /sys/devices/system/cpu',
  reads: {
    files: ['/sys/devices/system/cpu/online', '/sys/devices/system/cpu/smt/*', '/sys/devices/system/cpu/cpu<n>/topology/*'],
    ask: 'lscpu',
  },
  async collect(ctx) {
    const [online, smtActive, smtControl] = await Promise.all([
      readAttribute(ctx, path.join(SYS_CPU, 'online')),
      readAttribute(ctx, path.join(SYS_CPU, 'smt', 'active')),
      readAttribute(ctx, path.join(SYS_CPU, 'smt', 'control')),
    ]);
    if (online === undefined) throw new FactCollectionError('not-found', `${SYS_CPU}/online could not be read`);
    const cpus = parseCpuList(online);
    const threads = await Promise.all(
      cpus.map(async (cpu): Promise<CpuThread> => {
        const dir = path.join(SYS_CPU, `cpu${cpu}`, 'topology');
        const [siblings, packageId, coreId] = await Promise.all([
          readAttribute(ctx, path.join(dir, 'thread_siblings_list')),
          readAttribute(ctx, path.join(dir, 'physical_package_id')),
          readAttribute(ctx, path.join(dir, 'core_id')),
        ]);
        return {
          cpu,
          siblings: siblings === undefined ? null : parseCpuList(siblings),
          packageId: parseIntOrNull(packageId),
          coreId: parseIntOrNull(coreId),
        };
      }),
    );
    return { online: cpus, smtActive: smtActive === undefined ? null : smtActive === '1', smtControl: smtControl ?? null, cpus: threads };
  },
});
