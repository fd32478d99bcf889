import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolRings, type EthtoolRings } from '../parsers/ethtool-rings.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.rings': EthtoolRings;
  }
}

export const ethtoolRingsCollector = defineCollector({
  id: 'ethtool.rings',
  scope: 'interface',
  description: 'RX/TX ring sizes from ethtool -g <if>: driver maximum and current',
  reads: { commands: ['ethtool -g <if>'], ask: 'ethtool -g <if>' },
  async collect(ctx, name) {
    return ethtoolFact(ctx, ['-g'], name, (stdout) => parseEthtoolRings(stdout, name));
  },
});
