import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseEthtoolRxfh } from '../../src/parsers/ethtool-rxfh.js';
import { isZeroKey, queueShares } from '../../src/domain/rss.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [...realCaptures('ethtool', /-x-/), ...realCaptures('local-vm', /^ethtool_-x-/)];

describe('parseEthtoolRxfh over every real capture', () => {
  it('finds all the ethtool -x captures', () => {
    expect(captures).toEqual([
      'ethtool/sfc-x-allzero-1.txt',
      'ethtool/unknown-x-14rings-partial-1.txt',
      'local-vm/ethtool_-x-virtio_net-eth0.txt',
    ]);
  });

  it.each(captures)('%s parses without throwing', (name) => {
    expect(() => parseEthtoolRxfh(realCapture(name))).not.toThrow();
  });

  it('sfc-x-allzero-1: every visible entry on ring 0 of 4, zero key, elided rows', () => {
    const parsed = parseEthtoolRxfh(realCapture('ethtool/sfc-x-allzero-1.txt'));
    expect(parsed.interface).toBe('enp2s0f0');
    expect(parsed.ringCount).toBe(4);
    // Rows 0, 8, 16 and 120 are shown; the poster elided 24..112 with "...".
    expect(parsed.indirection).toHaveLength(32);
    expect(new Set(parsed.indirection)).toEqual(new Set([0]));
    expect(parsed.indirectionComplete).toBe(false);
    expect(parsed.hashKey).toHaveLength(40);
    expect(isZeroKey(parsed.hashKey!)).toBe(true);
    expect(parsed.hashFunctions).toEqual({ toeplitz: true, xor: false, crc32: false });
    expect(queueShares(parsed.indirection!, parsed.ringCount)).toEqual([
      { queue: 0, entries: 32, share: 1 },
      { queue: 1, entries: 0, share: 0 },
      { queue: 2, entries: 0, share: 0 },
      { queue: 3, entries: 0, share: 0 },
    ]);
  });

  it('unknown-x-14rings-partial-1: round robin over 14 rings, cut after 19 rows, no key', () => {
    const parsed = parseEthtoolRxfh(realCapture('ethtool/unknown-x-14rings-partial-1.txt'));
    expect(parsed.interface).toBe('ens2f1');
    expect(parsed.ringCount).toBe(14);
    expect(parsed.indirection).toHaveLength(152);
    expect(parsed.indirection!.slice(0, 16)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1]);
    // Rows are contiguous; the truncation after them cannot be seen in the text itself.
    expect(parsed.indirectionComplete).toBe(true);
    expect(parsed.hashKey).toBeNull();
    expect(parsed.hashFunctions).toBeNull();
    const shares = queueShares(parsed.indirection!, parsed.ringCount);
    expect(shares).toHaveLength(14);
    expect(shares.map((share) => share.entries)).toEqual([11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 10, 10]);
  });

  it('ethtool_-x-virtio_net-eth0: no table and no key ("Operation not supported"), hash functions still listed', () => {
    const parsed = parseEthtoolRxfh(realCapture('local-vm/ethtool_-x-virtio_net-eth0.txt'));
    expect(parsed).toEqual({
      interface: 'eth0',
      ringCount: 1,
      indirection: null,
      indirectionComplete: false,
      hashKey: null,
      hashFunctions: { toeplitz: true, xor: false, crc32: false },
    });
  });
});

describe('parseEthtoolRxfh details', () => {
  const header = 'RX flow hash indirection table for eth0 with 2 RX ring(s):\n';

  it('flags a gap between rows as a partial table', () => {
    const parsed = parseEthtoolRxfh(
      `${header}    0:      0     1     0     1     0     1     0     1\n   16:      0     1     0     1     0     1     0     1\n`,
    );
    expect(parsed.indirection).toHaveLength(16);
    expect(parsed.indirectionComplete).toBe(false);
  });

  it('reads a complete table with key and ethtool 6.8+ input transformation', () => {
    const parsed = parseEthtoolRxfh(
      `${header}    0:      0     1     0     1     0     1     0     1\n    8:      1     0\nRSS hash key:\n6d:5a:56:da\nRSS hash function:\n    toeplitz: on\n    xor: off\n    crc32: off\nRSS input transformation:\n    symmetric-xor: off\n`,
    );
    expect(parsed.indirection).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 1, 0]);
    expect(parsed.indirectionComplete).toBe(true);
    expect(parsed.hashKey).toEqual([0x6d, 0x5a, 0x56, 0xda]);
    expect(isZeroKey(parsed.hashKey!)).toBe(false);
    expect(queueShares(parsed.indirection!, 2)).toEqual([
      { queue: 0, entries: 5, share: 0.5 },
      { queue: 1, entries: 5, share: 0.5 },
    ]);
  });

  it('marks a header without rows as an incomplete, empty table', () => {
    const parsed = parseEthtoolRxfh(header);
    expect(parsed.indirection).toEqual([]);
    expect(parsed.indirectionComplete).toBe(false);
  });

  it.each([
    ['empty output', ''],
    ['an ethtool error', 'Cannot get RX ring count: Operation not supported\n'],
    ['garbage', 'lorem ipsum\n'],
    ['a table without its header', '    0:      0     1     2     3\n'],
    ['an unreadable row', `${header}    0:      0     one\n`],
    ['an unreadable key', `${header}    0:      0     1\nRSS hash key:\nzz:zz\n`],
    ['two tables (RSS contexts)', `${header}    0:      0     1\n${header}    0:      0     1\n`],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolRxfh(text)).toThrow(ParseError);
  });
});
