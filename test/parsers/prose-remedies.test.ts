import { describe, expect, it } from 'vitest';
import { statedFlowControlCure } from '../../src/parsers/prose-remedies.js';

describe('statedFlowControlCure', () => {
  it.each([
    'Our Netgear had 802.3x disabled. After enabling flow control on that port, it works: 940 Mbit/s.',
    'I turned pause frames on at both ends and the stalls are gone, everything is fine now',
    'With FC on at the switch the problem disappeared.',
    'Switched flow control on in the UniFi controller. That fixed it!',
  ])('reads a cure in %j', (prose) => {
    expect(statedFlowControlCure(prose)).toBe(true);
  });

  it.each([
    'Flow control is off on the switch. Copies still crawl at 30 Mbit/s.',
    'I enabled flow control but it did not help; still slow.',
    'Disabling flow control fixed it for us (pause storms from a broken host).',
    'I enabled flow control, it is not good again yet.',
    'No mention of pause here, but after the driver update it works.',
  ])('reads no flow-control cure in %j', (prose) => {
    expect(statedFlowControlCure(prose)).toBe(false);
  });
});
