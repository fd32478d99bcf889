import { defineCollector } from '../engine/collector.js';
import { isValidInterfaceName } from '../util/validate.js';
import { SYS_CLASS_NET, type NetDevice } from './net-device.js';

declare module '../engine/facts.js' {
  interface FactTypes {
    /** Every network interface on the host except loopback. */
    interfaces: NetDevice[];
  }
}

export const interfacesCollector = defineCollector({
  id: 'interfaces',
  scope: 'host',
  description: "The host's network interfaces (/sys/class/net), loopback excluded",
  async collect(ctx) {
    const entries = (await ctx.readDir(SYS_CLASS_NET)).filter(
      (name) => name !== 'lo' && !name.startsWith('.') && name !== 'bonding_masters',
    );
    // A snapshot or sosreport can list names no kernel allows ("../x", "a b"): left out, and said.
    const names = entries.filter(isValidInterfaceName);
    for (const name of entries.filter((entry) => !isValidInterfaceName(entry)))
      ctx.log.warn({ name: JSON.stringify(name) }, 'not a valid interface name (dev_valid_name); left out');
    const devices = await Promise.all(names.map((name) => ctx.get('net.device', name)));
    return devices.filter((device) => device.linkType !== 772);
  },
});
