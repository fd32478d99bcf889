import { describe, expect, it } from 'vitest';
import { forEachBounded } from '../../src/util/bounded.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('forEachBounded', () => {
  it('runs every item once, never more than the limit at a time, starting them in order', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    await forEachBounded(
      Array.from({ length: 200 }, (_, index) => index),
      7,
      async (item) => {
        started.push(item);
        most = Math.max(most, ++inFlight);
        for (let wait = item % 3; wait >= 0; wait--) await tick();
        inFlight--;
      },
    );
    expect(started).toEqual(Array.from({ length: 200 }, (_, index) => index));
    expect(most).toBe(7);
  });

  it('finishes at once on no items, and rejects with the first failure', async () => {
    await expect(forEachBounded([], 4, () => Promise.reject(new Error('never called')))).resolves.toBeUndefined();
    const done: number[] = [];
    await expect(
      forEachBounded([1, 2, 3, 4], 2, async (item) => {
        await tick();
        if (item === 2) throw new Error('item 2 broke');
        done.push(item);
      }),
    ).rejects.toThrow('item 2 broke');
    expect(done).toContain(1);
  });

  it('refuses a limit below one', async () => {
    await expect(forEachBounded([1], 0, () => Promise.resolve())).rejects.toThrow(RangeError);
  });
});
