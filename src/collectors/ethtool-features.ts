import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { parseEthtoolFeatures, type EthtoolFeatures } from '../parsers/ethtool-features.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.features': EthtoolFeatures;
  }
}

export const ethtoolFeaturesCollector = defineCollector({
  id: 'ethtool.features',
  scope: 'interface',
  description: 'Offload features from ethtool --json -k <if> (ethtool -k <if> where --json is not supported): active, fixed, requested',
  reads: { commands: ['ethtool --json -k <if>', 'ethtool -k <if>'], ask: 'ethtool -k <if>' },
  async collect(ctx, name) {
    // JSON says fixed/requested without text markers; ethtool before 6.x rejects --json -k.
    try {
      const json = await ctx.exec(['ethtool', '--json', '-k', name]);
      if (json.exitCode === 0 && json.stdout.trim()) return parseEthtoolFeatures(json.stdout);
    } catch (error) {
      // A snapshot recorded without the JSON form still has the text form; anything else
      // (ethtool not installed) would fail the text form in the same way.
      if (!(error instanceof FactCollectionError && error.kind === 'not-captured')) throw error;
    }
    // Whatever made --json fail (old ethtool: "bad command line argument(s)"), the text form
    // either works or fails with the error the user should see.
    return ethtoolFact(ctx, ['-k'], name, parseEthtoolFeatures);
  },
});
