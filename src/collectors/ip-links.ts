import { defineCollector } from '../contracts/collector.js';
import { parseIpLink, type IpLink } from '../parsers/ip-link.js';
import { runTool } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** `ip -d -s link show`: every interface's kind, lower device, master and counters, in one command. */
    'ip.links': IpLink[];
  }
}

export const ipLinksCollector = defineCollector({
  id: 'ip.links',
  scope: 'host',
  description: "Every interface's kind (veth, vxlan, bridge, ...), master and RX/TX counters from one `ip -d -s link show`",
  reads: {
    commands: ['ip -d -s link show'],
    ask: 'ip -d -s link show',
    never: { text: 'a pasted `ip link` is read per interface (its MTU, state and counters), not as the whole host' },
  },
  async collect(ctx) {
    return parseIpLink((await runTool(ctx, ['ip', '-d', '-s', 'link', 'show'])).stdout);
  },
});
