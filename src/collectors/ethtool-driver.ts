import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolDriver, type EthtoolDriver } from '../parsers/ethtool-driver.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.driver': EthtoolDriver;
  }
}

export const ethtoolDriverCollector = defineCollector({
  id: 'ethtool.driver',
  scope: 'interface',
  description: 'Driver name and version, firmware version and bus address from `ethtool -i <if>`',
  reads: { commands: ['ethtool -i <if>'], ask: 'ethtool -i <if>' },
  async collect(ctx, subject) {
    return ethtoolFact(ctx, ['-i'], subject, parseEthtoolDriver);
  },
});
