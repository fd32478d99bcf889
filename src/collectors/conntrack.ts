import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { readAttribute } from '../hostio/sysfs-read.js';
import { ParseError } from '../parsers/parse-error.js';

const COUNT = '/proc/sys/net/netfilter/nf_conntrack_count';
const MAX = '/proc/sys/net/netfilter/nf_conntrack_max';

/** The connection-tracking table: entries in use and its size. */
export interface Conntrack {
  count: number;
  max: number;
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'net.conntrack': Conntrack;
  }
}

function integer(path: string, text: string): number {
  const value = text.trim();
  if (!/^\d+$/.test(value)) throw new ParseError(`${path}: expected an integer, got ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value);
}

export const conntrackCollector = defineCollector({
  id: 'net.conntrack',
  scope: 'host',
  description:
    'Connection-tracking entries in use against the table size (/proc/sys/net/netfilter/nf_conntrack_count and nf_conntrack_max)',
  reads: {
    files: ['/proc/sys/net/netfilter/nf_conntrack_count', '/proc/sys/net/netfilter/nf_conntrack_max'],
    ask: 'sysctl net.netfilter.nf_conntrack_count net.netfilter.nf_conntrack_max',
  },
  async collect(ctx) {
    const [count, max] = await Promise.all([readAttribute(ctx, COUNT), readAttribute(ctx, MAX)]);
    // Without the nf_conntrack module loaded the files do not exist: there is no table to fill.
    if (count === undefined || max === undefined) {
      throw new FactCollectionError(
        'unsupported',
        'nf_conntrack is not loaded (no /proc/sys/net/netfilter/nf_conntrack_count): no connection tracking',
      );
    }
    return { count: integer(COUNT, count), max: integer(MAX, max) };
  },
});
