import { defineCollector } from '../engine/collector.js';
import { FactCollectionError } from '../engine/facts.js';
import { parseEthtoolSettings, type EthtoolSettings } from '../parsers/ethtool-settings.js';
import { runTool } from './run-tool.js';

declare module '../engine/facts.js' {
  interface FactTypes {
    'ethtool.settings': EthtoolSettings;
  }
}

export const ethtoolSettingsCollector = defineCollector({
  id: 'ethtool.settings',
  scope: 'interface',
  description: 'Link modes (supported, advertised, link partner), negotiated speed, duplex and link state from `ethtool <if>`',
  async collect(ctx, subject) {
    // A non-root run exits 0 and prints most settings, with "netlink error" / "Cannot get ..."
    // on stderr: the parser keeps what was printed and records those lines as warnings.
    const result = await runTool(ctx, ['ethtool', subject]).catch((error: unknown) => {
      // Exit 75 "No data available": the device has no link settings at all (ifb, some tunnels).
      if (error instanceof FactCollectionError && error.kind === 'failed' && /No data available/i.test(error.message)) {
        throw new FactCollectionError('unsupported', `\`ethtool ${subject}\`: the device reports no link settings (No data available)`);
      }
      throw error;
    });
    return parseEthtoolSettings(result.stdout);
  },
});
