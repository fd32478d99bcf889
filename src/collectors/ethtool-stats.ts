import { defineCollector } from '../engine/collector.js';
import { FactCollectionError } from '../engine/facts.js';
import { parseEthtoolStats, type EthtoolStats } from '../parsers/ethtool-stats.js';
import { runTool } from './run-tool.js';

declare module '../engine/facts.js' {
  interface FactTypes {
    /** `ethtool -S <if>`: the driver's own counters, totals since the driver loaded. */
    'ethtool.stats': EthtoolStats;
  }
}

export const ethtoolStatsCollector = defineCollector({
  id: 'ethtool.stats',
  scope: 'interface',
  description: 'Driver statistics from ethtool -S <if>: drop, error and per-queue counters',
  async collect(ctx, name) {
    try {
      const result = await runTool(ctx, ['ethtool', '-S', name]);
      return parseEthtoolStats(result.stdout);
    } catch (error) {
      // Devices without driver statistics (loopback, some tunnels) answer "no stats available".
      if (error instanceof FactCollectionError && error.kind === 'failed' && /no stats available/i.test(error.message)) {
        throw new FactCollectionError('unsupported', `\`ethtool -S ${name}\`: the driver has no statistics`);
      }
      throw error;
    }
  },
});
