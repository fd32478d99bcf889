import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolStats, type EthtoolStats } from '../parsers/ethtool-stats.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** `ethtool -S <if>`: the driver's own counters, totals since the driver loaded. */
    'ethtool.stats': EthtoolStats;
  }
}

export const ethtoolStatsCollector = defineCollector({
  id: 'ethtool.stats',
  scope: 'interface',
  description: 'Driver statistics from ethtool -S <if>: drop, error and per-queue counters',
  reads: { commands: ['ethtool -S <if>'], ask: 'ethtool -S <if>' },
  async collect(ctx, name) {
    // Devices without driver statistics (loopback, some tunnels) answer "no stats available".
    return ethtoolFact(ctx, ['-S'], name, parseEthtoolStats, {
      unsupportedWhen: { output: /no stats available/i, reason: 'the driver has no statistics' },
    });
  },
});
