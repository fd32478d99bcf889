import { defineCollector } from '../contracts/collector.js';
import { parseEthtoolSettings, type EthtoolSettings } from '../parsers/ethtool-settings.js';
import { ethtoolFact } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ethtool.settings': EthtoolSettings;
  }
}

export const ethtoolSettingsCollector = defineCollector({
  id: 'ethtool.settings',
  scope: 'interface',
  description: 'Link modes (supported, advertised, link partner), negotiated speed, duplex and link state from `ethtool <if>`',
  reads: { commands: ['ethtool <if>'], ask: 'ethtool <if>' },
  async collect(ctx, subject) {
    // A non-root run exits 0 and prints most settings, with "netlink error" / "Cannot get ..."
    // on stderr: the parser keeps what was printed and records those lines as warnings.
    // Exit 75 "No data available": the device has no link settings at all (ifb, some tunnels).
    return ethtoolFact(ctx, [], subject, parseEthtoolSettings, {
      unsupportedWhen: { output: /No data available/i, reason: 'the device reports no link settings (No data available)' },
    });
  },
});
