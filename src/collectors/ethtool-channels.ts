import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolChannels, type EthtoolChannels } from '../parsers/ethtool-channels.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.channels': EthtoolChannels;
  }
}

export const ethtoolChannelsCollector = defineCollector({
  id: 'ethtool.channels',
  scope: 'interface',
  description: 'Queue (channel) counts from ethtool -l <if>: driver maximum and current rx/tx/other/combined',
  reads: { commands: ['ethtool -l <if>'], ask: 'ethtool -l <if>' },
  async collect(ctx, name) {
    return ethtoolFact(ctx, ['-l'], name, parseEthtoolChannels);
  },
});
