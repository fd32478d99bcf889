import path from 'node:path';
import { defineCollector } from '../contracts/collector.js';
import { SYS_CLASS_NET } from './net-device.js';
import { parseIntOrNull, readAttribute } from '../hostio/sysfs-read.js';

/** /sys/class/net/<if>/statistics: the kernel's generic counters, totals since the device appeared. */
export interface NetStatistics {
  /** File name → value: rx_packets, rx_dropped, rx_missed_errors, rx_crc_errors, tx_dropped, ... */
  counters: Record<string, number>;
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'net.statistics': NetStatistics;
  }
}

export const netStatisticsCollector = defineCollector({
  id: 'net.statistics',
  scope: 'interface',
  description: 'Generic interface counters from /sys/class/net/<if>/statistics (drops, missed, FIFO and CRC errors)',
  reads: { files: ['/sys/class/net/<if>/statistics', '/sys/class/net/<if>/statistics/*'], ask: 'ip -s -s link show dev <if>' },
  async collect(ctx, name) {
    const dir = path.join(SYS_CLASS_NET, name, 'statistics');
    const files = (await ctx.readDir(dir)).filter((file) => !file.startsWith('.'));
    const values = await Promise.all(
      files.map(async (file) => [file, parseIntOrNull(await readAttribute(ctx, path.join(dir, file)))] as const),
    );
    const counters: Record<string, number> = {};
    // A counter the driver refuses to report reads as an error: leave it out rather than invent 0.
    for (const [file, value] of values) if (value !== null) counters[file] = value;
    return { counters };
  },
});
