import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolRxfh, type EthtoolRxfh } from '../parsers/ethtool-rxfh.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.rxfh': EthtoolRxfh;
  }
}

export const ethtoolRxfhCollector = defineCollector({
  id: 'ethtool.rxfh',
  scope: 'interface',
  description: 'RSS indirection table, hash key and hash function from ethtool -x <if>',
  reads: { commands: ['ethtool -x <if>'], ask: 'ethtool -x <if>' },
  async collect(ctx, name) {
    // A driver without a table may still exit 0 and print "Operation not supported" in place
    // of the table (virtio_net): the parser keeps that as a null table. Older ethtool exits
    // non-zero ("Cannot get RX ring count"), which runTool turns into 'unsupported'.
    return ethtoolFact(ctx, ['-x'], name, parseEthtoolRxfh);
  },
});
