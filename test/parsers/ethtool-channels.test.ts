import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { channelMode, currentRxQueues, parseEthtoolChannels, type ChannelCounts } from '../../src/parsers/ethtool-channels.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [...realCaptures('ethtool', /-l-/), ...realCaptures('local-vm', /^ethtool_-l-/)];

const counts = (rx: number | null, tx: number | null, other: number | null, combined: number | null): ChannelCounts => ({
  rx,
  tx,
  other,
  combined,
});

// Expected values for every capture: [interface, max, current, mode].
const expected: Record<string, [string, ChannelCounts, ChannelCounts, ReturnType<typeof channelMode>]> = {
  'ethtool/ena-l-1.txt': ['eth0', counts(0, 0, 0, 2), counts(0, 0, 0, 2), 'combined'],
  'ethtool/ena-l-combined1-2.txt': ['eth0', counts(0, 0, 0, 2), counts(0, 0, 0, 1), 'combined'],
  'ethtool/hv_netvsc-l-1.txt': ['eth0', counts(0, 0, 0, 64), counts(0, 0, 0, 8), 'combined'],
  'ethtool/sfc-l-1.txt': ['enp2s0f0', counts(null, null, 1, 31), counts(null, null, 1, 4), 'combined'],
  'ethtool/unknown-l-14of16-1.txt': ['ens2f1', counts(0, 0, 0, 16), counts(0, 0, 0, 14), 'combined'],
  'ethtool/unknown-l-64-1.txt': ['ens10f0', counts(64, 64, null, 64), counts(0, 0, null, 64), 'combined'],
  'ethtool/unknown-l-combined1-1.txt': ['ens3f0', counts(null, null, 1, 64), counts(null, null, 1, 1), 'combined'],
  'ethtool/unknown-l-combined1-pbench-1.txt': ['p2p1', counts(0, 0, 1, 63), counts(0, 0, 1, 1), 'combined'],
  'ethtool/unknown-l-ohai-1.txt': ['eth0', counts(16, 16, 0, 32), counts(0, 0, 0, 16), 'combined'],
  'ethtool/unknown-l-separate-rxtx-1.txt': ['eno1', counts(4, 4, null, null), counts(4, 1, null, null), 'separate'],
  'local-vm/ethtool_-l-veth.txt': ['nd-va', counts(2, 2, null, null), counts(2, 2, null, null), 'separate'],
  'local-vm/ethtool_-l-virtio_net-eth0.txt': ['eth0', counts(null, null, null, 1), counts(null, null, null, 1), 'combined'],
};

describe('parseEthtoolChannels over every real capture', () => {
  it('has an expectation for every ethtool -l capture', () => {
    expect(captures.length).toBeGreaterThanOrEqual(12);
    expect(captures.filter((name) => !(name in expected))).toEqual([]);
  });

  it.each(captures)('%s', (name) => {
    const [iface, max, current, mode] = expected[name]!;
    const parsed = parseEthtoolChannels(realCapture(name));
    expect(parsed).toEqual({ interface: iface, max, current });
    expect(channelMode(parsed)).toBe(mode);
  });
});

describe('parseEthtoolChannels details', () => {
  it('counts combined plus dedicated rx channels as receive queues', () => {
    expect(currentRxQueues(parseEthtoolChannels(realCapture('ethtool/unknown-l-combined1-1.txt')))).toBe(1);
    expect(currentRxQueues(parseEthtoolChannels(realCapture('ethtool/hv_netvsc-l-1.txt')))).toBe(8);
    expect(currentRxQueues(parseEthtoolChannels(realCapture('ethtool/unknown-l-separate-rxtx-1.txt')))).toBe(4);
  });

  it('reads a block without the "Channel parameters" header', () => {
    const parsed = parseEthtoolChannels('Pre-set maximums:\nCombined:\t8\nCurrent hardware settings:\nCombined:\t2\n');
    expect(parsed).toEqual({ interface: null, max: counts(null, null, null, 8), current: counts(null, null, null, 2) });
  });

  it.each([
    ['empty output', ''],
    ['an ethtool error', 'netlink error: Operation not supported\n'],
    ['garbage', 'hello world\nfoo bar\n'],
    ['output truncated before the current settings', 'Channel parameters for eth0:\nPre-set maximums:\nRX:\t\t0\nTX:\t\t0\n'],
    ['a value before any section', 'Channel parameters for eth0:\nCombined:\t4\n'],
    ['a non-numeric value', 'Pre-set maximums:\nCombined:\tmany\nCurrent hardware settings:\nCombined:\t1\n'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolChannels(text)).toThrow(ParseError);
  });
});
