import { defineCollector } from '../contracts/collector.js';
import { HostIOError } from '../hostio/types.js';
import { parseProcBonding, type BondStatus } from '../parsers/proc-bonding.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** Every bond's mode, hash policy and members, from /proc/net/bonding/* (empty: no bond). */
    'bond.status': BondStatus[];
  }
}

const BONDING_DIR = '/proc/net/bonding';
/** Bonds read at most (a host has a handful). */
const MAX_BONDS = 64;

export const bondStatusCollector = defineCollector({
  id: 'bond.status',
  scope: 'host',
  description:
    "Each bond's mode, transmit hash policy, LACP aggregator and members (MII status, speed, link failures, churn) from /proc/net/bonding/*",
  reads: { files: ['/proc/net/bonding', '/proc/net/bonding/*'], ask: 'cat /proc/net/bonding/*' },
  async collect(ctx) {
    let names: string[];
    try {
      names = await ctx.readDir(BONDING_DIR);
    } catch (error) {
      // No bonding module loaded (a VM, a container, most hosts): no bond, not a failure.
      if (error instanceof HostIOError && error.kind === 'not-found') return [];
      throw error;
    }
    const bonds: BondStatus[] = [];
    for (const name of names.sort().slice(0, MAX_BONDS)) {
      if (!/^[^\s/:]{1,15}$/.test(name)) continue;
      bonds.push(parseProcBonding(name, await ctx.readFile(`${BONDING_DIR}/${name}`)));
    }
    return bonds;
  },
});
