import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolModule, type EthtoolModule } from '../parsers/ethtool-module.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.module': EthtoolModule;
  }
}

export const ethtoolModuleCollector = defineCollector({
  id: 'ethtool.module',
  scope: 'interface',
  description:
    'The pluggable module (SFP/QSFP) from ethtool -m <if>: type, vendor, part, nominal rate, and its diagnostics (light levels, bias, temperature, voltage) with its own alarm and warning thresholds',
  reads: { commands: ['ethtool -m <if>'], ask: 'ethtool -m <if>' },
  async collect(ctx, name) {
    // Reading the EEPROM goes over the module's I2C bus: slower than other ethtool queries.
    return ethtoolFact(ctx, ['-m'], name, parseEthtoolModule, { timeoutMs: 10_000 });
  },
});
