import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseSoftnetStat } from '../../src/parsers/softnet-stat.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [...realCaptures('softnet'), ...realCaptures('local-vm', /^softnet_stat/)];

describe('parseSoftnetStat over every real capture', () => {
  it('finds the captures', () => {
    expect(captures).toHaveLength(6);
  });

  it.each(captures)('%s parses one row per line', (file) => {
    const text = realCapture(file);
    const rows = parseSoftnetStat(text);
    expect(rows).toHaveLength(text.trim().split('\n').length);
    rows.forEach((row, index) => {
      expect(row.row).toBe(index);
      expect(row.columns).toBeGreaterThanOrEqual(9);
    });
  });

  // file: [processed, dropped, timeSqueeze, cpu, columns] per row
  const table: Array<[string, Array<[number, number, number, number | null, number]>]> = [
    [
      'softnet/nodeexporter-1.txt',
      [
        [0x49279, 0, 1, null, 11],
        [0xdfb82, 0x29, 0x0a, null, 11],
        [0x551c3f, 0, 0x55, null, 11],
        [0x2f8339, 0, 0x32, null, 11],
      ],
    ],
    ['softnet/rhel5-9col-insights-1.txt', [[0x6dcad223, 0, 1, null, 9]]],
    ['softnet/rhel8-11col-insights-1.txt', [[0x22be3, 0xfe, 0x12, null, 11]]],
    [
      'softnet/rhel9-13col-insights-1.txt',
      [
        [0x358fe3, 0x6283, 0, 0, 13],
        [0x953d1a, 0x446, 0xb1, 1, 13],
        [0x2600138, 0x4bc7, 0, 2, 13],
        [0x2883c47, 0x7e2e, 0x7b, 3, 13],
        [0x1a35c9d, 0x2db94, 1, 0, 13],
      ],
    ],
    [
      'softnet/procfs-mixed-columns-1.txt',
      [
        [0x358fe3, 0x6283, 0, 0, 13],
        [0x953d1a, 0x446, 0xb1, 1, 13],
        [0x15c73, 0x20e76, 0xf0000769, null, 11],
        [0x1663fb2, 0, 0x109a4, null, 9],
        [0x8e78, 1, 0x11, null, 10],
      ],
    ],
    [
      'local-vm/softnet_stat-2cpu.txt',
      [
        [0x30b54a, 0, 3, 0, 15],
        [0x37ef59, 0, 3, 1, 15],
      ],
    ],
  ];

  it.each(table)('%s has the expected counters', (file, expected) => {
    const rows = parseSoftnetStat(realCapture(file));
    expect(rows.map((row) => [row.processed, row.dropped, row.timeSqueeze, row.cpu, row.columns])).toEqual(expected);
  });

  it('reads the columns later kernels added, and null where the kernel did not print them', () => {
    const [mixed13, , mixed11, mixed9, mixed10] = parseSoftnetStat(realCapture('softnet/procfs-mixed-columns-1.txt'));
    expect(mixed13).toMatchObject({ receivedRps: 0x855fc, flowLimitCount: 0x76, backlogLength: 0, inputQueueLength: null });
    expect(mixed11).toMatchObject({ cpuCollision: 4, receivedRps: 3, flowLimitCount: 2, backlogLength: null });
    expect(mixed10).toMatchObject({ cpuCollision: 0x20, receivedRps: 0x10, flowLimitCount: null });
    expect(mixed9).toMatchObject({ cpuCollision: 0x20e76, receivedRps: null, flowLimitCount: null, cpu: null });
    const [vm] = parseSoftnetStat(realCapture('local-vm/softnet_stat-2cpu.txt'));
    expect(vm).toMatchObject({ backlogLength: 0, inputQueueLength: 0, processQueueLength: 0 });
  });
});

describe('parseSoftnetStat on bad input', () => {
  it.each([
    ['empty output', ''],
    ['blank lines only', '\n\n'],
    ['a truncated row', '0030b54a 00000000 00000003\n'],
    ['a row that is not hex', '0030b54a 00000000 00000003 zz 00000000 00000000 00000000 00000000 00000000\n'],
    [
      'another file',
      'Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes\n',
    ],
  ])('throws ParseError on %s', (_label, text) => {
    expect(() => parseSoftnetStat(text)).toThrow(ParseError);
  });

  it('names the bad line', () => {
    const good = '0030b54a 00000000 00000003 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000';
    expect(() => parseSoftnetStat(`${good}\n0030b54a 0000\n`)).toThrow(/line 2/);
  });
});
