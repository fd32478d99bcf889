import { defineCollector } from '../engine/collector.js';
import { parseEthtoolRings, type EthtoolRings } from '../parsers/ethtool-rings.js';
import { runTool } from './run-tool.js';

declare module '../engine/facts.js' {
  interface FactTypes {
    'ethtool.rings': EthtoolRings;
  }
}

export const ethtoolRingsCollector = defineCollector({
  id: 'ethtool.rings',
  scope: 'interface',
  description: 'RX/TX ring sizes from ethtool -g <if>: driver maximum and current',
  async collect(ctx, name) {
    const result = await runTool(ctx, ['ethtool', '-g', name]);
    return parseEthtoolRings(result.stdout, name);
  },
});
