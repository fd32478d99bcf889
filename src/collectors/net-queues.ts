import path from 'node:path';
import { defineCollector } from '../contracts/collector.js';
import { parseCpusOrNull } from '../parsers/cpulist.js';
import { SYS_CLASS_NET } from './net-device.js';
import { readAttribute } from '../hostio/sysfs-read.js';

export interface RxQueue {
  index: number;
  /** rps_cpus as the kernel prints it (comma-separated 32-bit hex words); null without CONFIG_RPS. */
  rpsCpus: string | null;
  /** CPUs set in rps_cpus: 0 means RPS is off for this queue. */
  rpsCpuCount: number | null;
}

export interface NetQueues {
  rx: RxQueue[];
  /** Indexes of tx-N directories. */
  tx: number[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'net.queues': NetQueues;
  }
}

function queueIndex(entry: string, prefix: 'rx-' | 'tx-'): number | null {
  if (!entry.startsWith(prefix)) return null;
  const index = entry.slice(prefix.length);
  return /^\d+$/.test(index) ? Number.parseInt(index, 10) : null;
}

export const netQueuesCollector = defineCollector({
  id: 'net.queues',
  scope: 'interface',
  description: "Kernel queues of an interface (/sys/class/net/<if>/queues/rx-N, tx-N) and each rx queue's RPS CPU mask",
  reads: {
    files: ['/sys/class/net/<if>/queues', '/sys/class/net/<if>/queues/*/*'],
    ask: 'ls /sys/class/net/<if>/queues',
    never: { text: 'no pasted format lists the queue directories (FreeBSD sysctl dev.* excepted); ethtool -l gives the channel counts' },
  },
  async collect(ctx, name) {
    const queuesPath = path.join(SYS_CLASS_NET, name, 'queues');
    const entries = await ctx.readDir(queuesPath);
    const byIndex = (a: number, b: number) => a - b;
    const rxIndexes = entries
      .map((entry) => queueIndex(entry, 'rx-'))
      .filter((index): index is number => index !== null)
      .sort(byIndex);
    const tx = entries
      .map((entry) => queueIndex(entry, 'tx-'))
      .filter((index): index is number => index !== null)
      .sort(byIndex);
    const rx = await Promise.all(
      rxIndexes.map(async (index): Promise<RxQueue> => {
        const mask = await readAttribute(ctx, path.join(queuesPath, `rx-${index}`, 'rps_cpus'));
        return { index, rpsCpus: mask ?? null, rpsCpuCount: mask === undefined ? null : (parseCpusOrNull(mask, 'mask')?.length ?? null) };
      }),
    );
    return { rx, tx };
  },
});
