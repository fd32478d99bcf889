import { describe, expect, it } from 'vitest';
import { statedSingleQueue } from '../../src/parsers/prose-symptoms.js';

describe('statedSingleQueue', () => {
  it.each([
    'With PPPoE on the WAN side the card puts everything on a single queue, so one core hits 100 %.',
    'All traffic goes to the same rx queue although we have thousands of clients.',
    'Only one RX queue is used, the other seven stay at zero.',
    'After the firmware update queue 0 gets all the packets.',
    'When receiving double-tagged frames the adapter places it all on one\nqueue by default.',
  ])('reads one receive queue taking all the traffic in %j', (prose) => {
    expect(statedSingleQueue(prose)).toBe(true);
  });

  it.each([
    'Traffic is not all on one queue any more since we changed the hash fields.',
    'We have 8 queues and the load is spread evenly.',
    'All interrupts are pinned to one CPU by the tuning script.',
    'I set the number of queues to 16 on each port.',
  ])('reads no single-queue report in %j', (prose) => {
    expect(statedSingleQueue(prose)).toBe(false);
  });
});
