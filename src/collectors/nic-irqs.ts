import path from 'node:path';
import { defineCollector, type CollectContext } from '../contracts/collector.js';
import { HostIOError } from '../hostio/types.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { nicInterruptRows, type NicIrqRole } from '../parsers/proc-interrupts.js';
import { readAttribute } from '../hostio/sysfs-read.js';

/** One interrupt vector of a NIC. */
export interface NicIrq {
  irq: number;
  /** The action name that ties it to the NIC ("eth0-TxRx-3"); null when found only through msi_irqs. */
  name: string | null;
  /** 'queue' carries traffic; 'other' is a mailbox / link / control vector. */
  role: NicIrqRole;
  /** Per-CPU counts since boot, in the order of NicIrqs.cpus; empty when /proc/interrupts has no row. */
  counts: number[];
  /** /proc/irq/<n>/smp_affinity_list: where the IRQ may go; null when unreadable. */
  affinity: number[] | null;
  /** /proc/irq/<n>/effective_affinity_list (4.13+): where it actually goes; null when absent. */
  effectiveAffinity: number[] | null;
  /** Other devices share the line (legacy INTx). */
  shared: boolean;
}

export interface NicIrqs {
  /** CPU numbers of the /proc/interrupts columns (online CPUs). */
  cpus: number[];
  /** IRQ numbers listed in <pci function>/msi_irqs; empty for INTx-only and non-PCI devices. */
  msiIrqs: number[];
  irqs: NicIrq[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'nic.irqs': NicIrqs;
  }
}

export const nicIrqsCollector = defineCollector({
  id: 'nic.irqs',
  scope: 'interface',
  description: "The interface's interrupt vectors (msi_irqs and /proc/interrupts names), their counts and CPU affinity from /proc/irq/<n>",
  reads: {
    files: [
      '/sys/devices/**/<pci>/msi_irqs',
      '/sys/bus/pci/devices/<pci>/msi_irqs',
      '/sys/class/net/<if>/device/msi_irqs',
      '/proc/irq/<n>/*',
      '/proc/interrupts',
    ],
    ask: 'cat /proc/interrupts',
  },
  async collect(ctx, name) {
    const device = await ctx.get('net.device', name);
    const interrupts = await ctx.get('proc.interrupts');
    const msiIrqs = device.pciPath ? await listMsiIrqs(ctx, path.join(device.pciPath, 'msi_irqs')) : [];
    // A virtio NIC's queues are named after the virtio device under the PCI function.
    const virtioDevice = /\/(virtio\d+)\//.exec(device.netPath)?.[1] ?? null;
    const rows = nicInterruptRows(interrupts, { name, driver: device.driver, pciAddress: device.pciAddress, virtioDevice }, msiIrqs);
    const irqs = await Promise.all(
      rows.map(async ({ row, name: action, role }): Promise<NicIrq> => {
        const irq = row.irq!;
        // A capture without /proc/irq still has the counts: concentration is judged from them alone.
        const [affinity, effective] = await Promise.all([
          capturedAttribute(ctx, `/proc/irq/${irq}/smp_affinity_list`),
          capturedAttribute(ctx, `/proc/irq/${irq}/effective_affinity_list`),
        ]);
        return {
          irq,
          name: action,
          role,
          counts: row.counts,
          affinity: affinity === undefined ? null : parseCpuList(affinity),
          effectiveAffinity: effective === undefined ? null : parseCpuList(effective),
          shared: row.actions.length > 1,
        };
      }),
    );
    return { cpus: interrupts.cpus, msiIrqs, irqs };
  },
});

/** readAttribute, with "the capture holds no such file" read as absent rather than as a failed fact. */
async function capturedAttribute(ctx: CollectContext, file: string): Promise<string | undefined> {
  try {
    return await readAttribute(ctx, file);
  } catch (error) {
    if (error instanceof HostIOError && error.kind === 'not-captured') return undefined;
    throw error;
  }
}

async function listMsiIrqs(ctx: CollectContext, dir: string): Promise<number[]> {
  try {
    return (await ctx.readDir(dir))
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number)
      .sort((a, b) => a - b);
  } catch (error) {
    // No MSI: legacy INTx devices and functions without a driver have no msi_irqs directory.
    if (error instanceof HostIOError && (error.kind === 'not-found' || error.kind === 'not-captured')) return [];
    throw error;
  }
}
