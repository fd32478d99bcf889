import { defineCollector } from '../engine/collector.js';
import { parseIpLink, type IpLink } from '../parsers/ip-link.js';
import { runTool } from './run-tool.js';

declare module '../engine/facts.js' {
  interface FactTypes {
    /** `ip -d -s link show`: every interface's kind, lower device, master and counters, in one command. */
    'ip.links': IpLink[];
  }
}

export const ipLinksCollector = defineCollector({
  id: 'ip.links',
  scope: 'host',
  description: "Every interface's kind (veth, vxlan, bridge, ...), master and RX/TX counters from one `ip -d -s link show`",
  async collect(ctx) {
    return parseIpLink((await runTool(ctx, ['ip', '-d', '-s', 'link', 'show'])).stdout);
  },
});
