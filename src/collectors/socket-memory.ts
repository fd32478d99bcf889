import { defineCollector } from '../contracts/collector.js';
import { readAttribute } from '../hostio/sysfs-read.js';
import { parseMemLimits, parseSockstat, type MemLimits } from '../parsers/sockstat.js';

export const PROC_NET_SOCKSTAT = '/proc/net/sockstat';

/** Socket memory in use against the kernel's limits, per protocol, in pages. */
export interface SocketMemory {
  tcp: { pages: number | null; limits: MemLimits | null };
  udp: { pages: number | null; limits: MemLimits | null };
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'net.socket-memory': SocketMemory;
  }
}

export const socketMemoryCollector = defineCollector({
  id: 'net.socket-memory',
  scope: 'host',
  description: 'Socket memory in use (/proc/net/sockstat "mem", pages) and its limits net.ipv4.tcp_mem and udp_mem (low, pressure, high)',
  reads: {
    files: ['/proc/net/sockstat', '/proc/sys/net/ipv4/tcp_mem', '/proc/sys/net/ipv4/udp_mem'],
    ask: 'cat /proc/net/sockstat',
    never: { text: 'no pasted format reads /proc/net/sockstat yet' },
  },
  async collect(ctx) {
    const sockstat = parseSockstat(await ctx.readFile(PROC_NET_SOCKSTAT));
    const limits = async (key: string) => {
      const text = await readAttribute(ctx, `/proc/sys/net/ipv4/${key}`);
      return text === undefined ? null : parseMemLimits(`net.ipv4.${key}`, text);
    };
    const [tcpLimits, udpLimits] = await Promise.all([limits('tcp_mem'), limits('udp_mem')]);
    return {
      tcp: { pages: sockstat.TCP?.mem ?? null, limits: tcpLimits },
      udp: { pages: sockstat.UDP?.mem ?? null, limits: udpLimits },
    };
  },
});
