import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseTcClass, parseTcQdisc, parseTcRate } from '../../src/parsers/tc-qdisc.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const qdiscCaptures = realCaptures('tc', /\.txt$/).filter((file) => !/class/.test(file));
const classCaptures = realCaptures('tc', /class\.txt$/);

describe('parseTcQdisc over every real capture', () => {
  it('finds the captures', () => {
    expect(qdiscCaptures).toHaveLength(7);
    expect(classCaptures).toHaveLength(2);
  });

  it.each(qdiscCaptures)('%s parses a root qdisc with counters', (file) => {
    const entries = parseTcQdisc(realCapture(file));
    expect(entries.length).toBeGreaterThan(0);
    const root = entries.find((entry) => entry.root)!;
    expect(root.type).toBe('qdisc');
    expect(root.sentPackets).not.toBeNull();
    expect(root.dropped).not.toBeNull();
  });

  it('reads the tbf rate and its zero drops (tbf-2gbit-root)', () => {
    expect(parseTcQdisc(realCapture('tc/tbf-2gbit-root.txt'))).toEqual([
      {
        type: 'qdisc',
        kind: 'tbf',
        handle: '8016:',
        root: true,
        parent: null,
        rateBitsPerSecond: 2e9,
        ceilBitsPerSecond: null,
        maxrateBitsPerSecond: null,
        bandwidthBitsPerSecond: null,
        sentBytes: 90,
        sentPackets: 1,
        dropped: 0,
        overlimits: 0,
        requeues: 0,
        backlogBytes: 0,
        backlogPackets: 0,
      },
    ]);
  });

  it('reads drops and overlimits of a saturated tbf (tbf-10mbit-drops)', () => {
    const [tbf] = parseTcQdisc(realCapture('tc/tbf-10mbit-drops.txt'));
    expect(tbf).toMatchObject({
      kind: 'tbf',
      rateBitsPerSecond: 10e6,
      sentBytes: 49028,
      sentPackets: 34,
      dropped: 2966,
      overlimits: 3045,
      requeues: 0,
    });
  });

  it('reads a default qdisc without a rate (veth noqueue, virtio pfifo_fast)', () => {
    expect(parseTcQdisc(realCapture('tc/veth-default-noqueue.txt'))).toEqual([
      expect.objectContaining({ kind: 'noqueue', handle: '0:', root: true, rateBitsPerSecond: null, dropped: 0 }),
    ]);
    const [pfifo] = parseTcQdisc(realCapture('tc/vm-eth0-default.txt'));
    expect(pfifo).toMatchObject({
      kind: 'pfifo_fast',
      root: true,
      rateBitsPerSecond: null,
      sentBytes: 1215043,
      sentPackets: 10201,
      dropped: 0,
      requeues: 2,
    });
  });

  it('reads an htb root (no rate on the qdisc line) with a backlog', () => {
    const [htb] = parseTcQdisc(realCapture('tc/htb-5mbit-traffic-qdisc.txt'));
    expect(htb).toMatchObject({
      kind: 'htb',
      handle: '1:',
      root: true,
      rateBitsPerSecond: null,
      overlimits: 13,
      backlogBytes: 124012,
      backlogPackets: 86,
    });
  });

  it('reads child qdiscs with their parent', () => {
    const text =
      'qdisc mq 0: root \n Sent 10 bytes 1 pkt (dropped 0, overlimits 0 requeues 0) \n backlog 0b 0p requeues 0\nqdisc fq 8001: parent :1 limit 10000p flow_limit 100p buckets 1024 maxrate 3Gbit quantum 3028b\n Sent 10 bytes 1 pkt (dropped 2, overlimits 0 requeues 0) \n backlog 1Kb 1p requeues 0\n';
    const [mq, fq] = parseTcQdisc(text);
    expect(mq).toMatchObject({ kind: 'mq', root: true, parent: null });
    expect(fq).toMatchObject({
      kind: 'fq',
      root: false,
      parent: ':1',
      maxrateBitsPerSecond: 3e9,
      rateBitsPerSecond: null,
      dropped: 2,
      backlogBytes: 1024,
    });
  });
});

describe('parseTcClass over every real capture', () => {
  it('reads htb class rate and ceil (htb-500mbit-class)', () => {
    const [cls] = parseTcClass(realCapture('tc/htb-500mbit-class.txt'));
    expect(cls).toMatchObject({
      type: 'class',
      kind: 'htb',
      handle: '1:10',
      root: true,
      rateBitsPerSecond: 500e6,
      ceilBitsPerSecond: 1e9,
      dropped: 0,
    });
  });

  it('reads a busy htb class (htb-5mbit-traffic-class)', () => {
    const [cls] = parseTcClass(realCapture('tc/htb-5mbit-traffic-class.txt'));
    expect(cls).toMatchObject({ rateBitsPerSecond: 5e6, ceilBitsPerSecond: 5e6, sentPackets: 16, overlimits: 14, backlogPackets: 85 });
  });

  it('is empty without classes', () => {
    expect(parseTcClass('')).toEqual([]);
  });
});

describe('tc rates', () => {
  it.each([
    ['2Gbit', 2e9],
    ['500Mbit', 500e6],
    ['10Kbit', 10e3],
    ['800bit', 800],
    ['1Gibit', 1024 ** 3],
    ['1Mbps', 8e6],
  ])('%s → %d bit/s', (token, bits) => {
    expect(parseTcRate(token)).toBe(bits);
  });

  it('reads cake bandwidth, "unlimited" as null', () => {
    expect(parseTcQdisc('qdisc cake 8002: root refcnt 2 bandwidth 800Mbit diffserv3 triple-isolate\n')[0]!.bandwidthBitsPerSecond).toBe(
      800e6,
    );
    expect(parseTcQdisc('qdisc cake 8002: root refcnt 2 bandwidth unlimited diffserv3\n')[0]!.bandwidthBitsPerSecond).toBeNull();
  });
});

describe('output it cannot understand', () => {
  it.each([
    ['empty output', ''],
    ['garbage', 'Cannot find device "eth9"\n'],
    ['a truncated header', 'qdisc tbf\n'],
    ['a class in qdisc output', 'class htb 1:10 root prio 0 rate 5Mbit\n'],
    [
      'a mangled counter line',
      'qdisc tbf 8016: root refcnt 3 rate 2Gbit burst 1048500b lat 10ms\n Sent 90 bytes 1 pkt (dropped x, overlimits 0 requeues 0)\n',
    ],
    ['a bad rate', 'qdisc tbf 8016: root refcnt 3 rate fast burst 1048500b lat 10ms\n'],
  ])('%s → ParseError', (_, text) => {
    expect(() => parseTcQdisc(text)).toThrow(ParseError);
  });
});

describe('tc -s qdisc show of every interface, split per interface', () => {
  it('gives each interface its own block, in the per-device form the parser reads', async () => {
    const { splitQdiscsByDevice } = await import('../../src/collectors/tc-qdisc.js');
    const { parseTcQdisc } = await import('../../src/parsers/tc-qdisc.js');
    const blocks = splitQdiscsByDevice(realCapture('tc/all-devices-tbf-2gbit.show'));
    expect(Object.keys(blocks)).toEqual(expect.arrayContaining(['lo', 'eth0', 'tq0']));
    const shaped = parseTcQdisc(blocks.tq0!);
    expect(shaped).toHaveLength(1);
    expect(shaped[0]).toMatchObject({ kind: 'tbf', root: true, rateBitsPerSecond: 2e9, dropped: 0 });
    expect(parseTcQdisc(blocks.eth0!)[0]).toMatchObject({ kind: 'pfifo_fast', root: true });
  });
});
