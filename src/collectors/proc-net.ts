import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError, isFactFailure } from '../contracts/facts.js';
import { HostIOError } from '../hostio/types.js';
import { parseProcNetCounters, parseProcNetDev, type ProcNetDevEntry } from '../parsers/proc-net.js';

export const PROC_NET_DEV = '/proc/net/dev';
export const PROC_NET_SNMP = '/proc/net/snmp';
export const PROC_NET_NETSTAT = '/proc/net/netstat';

/** Kernel protocol counters since boot ("Tcp.RetransSegs", "Udp.RcvbufErrors", "TcpExt.ListenDrops"). */
export interface ProtocolCounters {
  counters: Record<string, number>;
  /** Which of the two files were read: a capture may hold only one of them. */
  files: string[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'proc.net.dev': ProcNetDevEntry[];
    'net.protocol': ProtocolCounters;
  }
}

export const procNetDevCollector = defineCollector({
  id: 'proc.net.dev',
  scope: 'host',
  description: 'Per-interface packet, error and drop counters from /proc/net/dev (every interface in one file)',
  reads: {
    files: ['/proc/net/dev'],
    ask: 'cat /proc/net/dev',
  },
  async collect(ctx) {
    return parseProcNetDev(await ctx.readFile(PROC_NET_DEV));
  },
});

export const protocolCountersCollector = defineCollector({
  id: 'net.protocol',
  scope: 'host',
  description:
    'TCP/UDP/IP counters since boot from /proc/net/snmp and /proc/net/netstat (retransmits, UDP buffer errors, listen and backlog drops)',
  reads: {
    files: ['/proc/net/snmp', '/proc/net/netstat'],
    ask: 'cat /proc/net/snmp /proc/net/netstat',
    never: { text: 'no pasted format reads the protocol counters yet (netstat -s prose differs by version)' },
  },
  async collect(ctx) {
    const counters: Record<string, number> = {};
    const files: string[] = [];
    let firstError: unknown;
    for (const file of [PROC_NET_SNMP, PROC_NET_NETSTAT]) {
      try {
        Object.assign(counters, parseProcNetCounters(await ctx.readFile(file), file));
        files.push(file);
      } catch (error) {
        // One file is enough to judge what it holds; the other's absence only narrows the fact.
        firstError ??= error;
      }
    }
    if (files.length === 0) {
      if (firstError instanceof HostIOError || isFactFailure(firstError)) throw firstError;
      throw new FactCollectionError('failed', String(firstError));
    }
    return { counters, files };
  },
});
