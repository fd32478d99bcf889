import { defineCollector } from '../contracts/collector.js';
import { parseProcUptime } from '../parsers/proc-uptime.js';

export const PROC_UPTIME = '/proc/uptime';

/** How long the kernel has run: the span every "since boot" counter covers. */
export interface HostUptime {
  seconds: number;
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'host.uptime': HostUptime;
  }
}

export const uptimeCollector = defineCollector({
  id: 'host.uptime',
  scope: 'host',
  description: 'Seconds since boot from /proc/uptime, to turn counters since boot into rates',
  reads: {
    files: ['/proc/uptime'],
    ask: 'cat /proc/uptime',
    never: { text: 'no pasted format reads /proc/uptime; the kernel log times stand in' },
  },
  async collect(ctx) {
    return { seconds: parseProcUptime(await ctx.readFile(PROC_UPTIME)) };
  },
});
