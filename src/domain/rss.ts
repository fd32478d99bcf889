/** How an RSS indirection table spreads flows over the RX rings, and what a usable hash key is. */

export interface QueueShare {
  queue: number;
  entries: number;
  /** Fraction of the table (0..1) that points at this queue. */
  share: number;
}

/**
 * Share of the indirection table per RX ring, every ring listed (0 entries included), so a
 * ring that receives nothing is visible. Entries pointing beyond ringCount are counted too.
 */
export function queueShares(indirection: readonly number[], ringCount: number): QueueShare[] {
  const counts = new Map<number, number>();
  for (let queue = 0; queue < ringCount; queue += 1) counts.set(queue, 0);
  for (const queue of indirection) counts.set(queue, (counts.get(queue) ?? 0) + 1);
  const total = indirection.length;
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([queue, entries]) => ({ queue, entries, share: total > 0 ? entries / total : 0 }));
}

export function isZeroKey(key: readonly number[]): boolean {
  return key.length > 0 && key.every((byte) => byte === 0);
}

/**
 * Drivers whose NICs receive on one queue by design (e1000 and e1000e's 82571-82574 and I21x/I219
 * parts, Realtek's r8169, the old Marvell and VIA gigabit drivers): one busy vector on such a NIC
 * is how it works, not a queue left unused.
 */
const SINGLE_QUEUE_DRIVERS = new Set(['e1000', 'e1000e', 'r8169', '8139too', 'skge', 'sky2', 'via-rhine', 'atl1', 'atl1c', 'atl1e']);

export function receivesOnOneQueueByDesign(driver: string | null | undefined): boolean {
  return driver !== null && driver !== undefined && SINGLE_QUEUE_DRIVERS.has(driver);
}
