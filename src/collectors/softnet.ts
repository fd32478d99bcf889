import { defineCollector } from '../contracts/collector.js';
import { parseSoftnetStat, type SoftnetCpu } from '../parsers/softnet-stat.js';

export const SOFTNET_STAT = '/proc/net/softnet_stat';

export interface Softnet {
  /** One entry per online CPU, totals since boot. */
  cpus: SoftnetCpu[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    softnet: Softnet;
  }
}

export const softnetCollector = defineCollector({
  id: 'softnet',
  scope: 'host',
  description: 'Per-CPU packet processing counters from /proc/net/softnet_stat: processed, backlog drops, time squeeze',
  reads: { files: ['/proc/net/softnet_stat'], ask: 'cat /proc/net/softnet_stat' },
  async collect(ctx) {
    return { cpus: parseSoftnetStat(await ctx.readFile(SOFTNET_STAT)) };
  },
});
