import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolPause, type EthtoolPause } from '../parsers/ethtool-pause.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.pause': EthtoolPause;
  }
}

export const ethtoolPauseCollector = defineCollector({
  id: 'ethtool.pause',
  scope: 'interface',
  description: 'Ethernet flow control (pause frames) from ethtool -a <if>: autonegotiate, rx, tx, negotiated state',
  reads: { commands: ['ethtool -a <if>'], ask: 'ethtool -a <if>' },
  async collect(ctx, name) {
    return ethtoolFact(ctx, ['-a'], name, parseEthtoolPause);
  },
});
