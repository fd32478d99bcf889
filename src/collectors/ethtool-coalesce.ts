import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolCoalesce, type EthtoolCoalesce } from '../parsers/ethtool-coalesce.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.coalesce': EthtoolCoalesce;
  }
}

export const ethtoolCoalesceCollector = defineCollector({
  id: 'ethtool.coalesce',
  scope: 'interface',
  description: 'Interrupt coalescing from ethtool -c <if>: adaptive rx/tx, rx-usecs, rx-frames, tx-usecs, ...',
  reads: { commands: ['ethtool -c <if>'], ask: 'ethtool -c <if>' },
  async collect(ctx, name) {
    return ethtoolFact(ctx, ['-c'], name, parseEthtoolCoalesce);
  },
});
