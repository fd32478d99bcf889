/**
 * Runs `work` on every item with at most `limit` calls in flight, in the items' order. A check
 * over 10,000 interfaces started all of them at once: every subject's facts, file reads and
 * closures were alive together, and memory and garbage collection, not the work, set the time.
 * Resolves when all are done; the first rejection rejects it (after the calls in flight settle).
 */
export async function forEachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  if (!(limit >= 1)) throw new RangeError(`forEachBounded: limit must be at least 1, got ${limit}`);
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
