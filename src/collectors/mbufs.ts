import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { parseNetstatM, type NetstatMbufs } from '../parsers/freebsd-netstat-m.js';
import { runTool } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** FreeBSD's network buffer pools (`netstat -m`): clusters in use against the limit, and the denied requests. */
    'net.mbufs': NetstatMbufs;
  }
}

/**
 * FreeBSD keeps packets in mbufs and mbuf clusters from pools capped by kern.ipc.nmbclusters;
 * Linux has no such pools (its packet memory is judged by socket-memory), and its `netstat -m`
 * means something else, so the command is run only where the host says it is FreeBSD.
 */
export const mbufsCollector = defineCollector({
  id: 'net.mbufs',
  scope: 'host',
  description: 'FreeBSD network buffer (mbuf, cluster) use against kern.ipc.nmbclusters and the requests denied (netstat -m)',
  reads: {
    commands: ['netstat -m'],
    ask: 'netstat -m',
    never: { sosreport: "sos reports come from Linux hosts, and mbuf pools are FreeBSD's" },
  },
  async collect(ctx) {
    const os = (await ctx.io.inventory().catch(() => undefined))?.os ?? '';
    if (!/^FreeBSD\b/.test(os))
      throw new FactCollectionError('unsupported', "mbuf pools are FreeBSD's (netstat -m): Linux packet memory is judged by socket-memory");
    return parseNetstatM((await runTool(ctx, ['netstat', '-m'])).stdout);
  },
});
