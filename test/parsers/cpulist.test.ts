import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import {
  formatCpuList,
  formatCpuMask,
  formatShortCpuMask,
  parseCpuList,
  parseCpuMask,
  parseCpusOrNull,
} from '../../src/parsers/cpulist.js';
import { realCapture } from '../helpers/fixtures.js';

describe('parseCpuList', () => {
  it.each([
    ['0-3,8-11', [0, 1, 2, 3, 8, 9, 10, 11]],
    ['0', [0]],
    ['', []],
    ['\n', []],
    ['5,3,3-4', [3, 4, 5]],
    ['0-63,128-191', [...Array.from({ length: 64 }, (_, i) => i), ...Array.from({ length: 64 }, (_, i) => 128 + i)]],
    // bitmap_parselist groups: 2 used of every 4.
    ['0-11:2/4', [0, 1, 4, 5, 8, 9]],
  ])('"%s"', (text, cpus) => {
    expect(parseCpuList(text)).toEqual(cpus);
  });

  it('reads the local_cpulist of real sysfs captures', () => {
    expect(parseCpuList(realCapture('sysfs/intel-e810-ice-1/devices/pci0000:a2/0000:a2:00.0/local_cpulist'))).toEqual(
      Array.from({ length: 64 }, (_, i) => 64 + i),
    );
    expect(parseCpuList(realCapture('sysfs/intel-x722-lewisburg-hwloc-1/devices/system/node/node1/cpulist'))).toHaveLength(16);
  });

  it.each(['a-b', '3-1', '0,,1', '1-', 'ff', '0-3:3/2'])('rejects "%s"', (text) => {
    expect(() => parseCpuList(text)).toThrow(ParseError);
  });
});

describe('formatCpuList', () => {
  it.each([
    [[0, 1, 2, 3, 8, 9, 10, 11], '0-3,8-11'],
    [[0], '0'],
    [[], ''],
    [[7, 1, 0, 5, 6], '0-1,5-7'],
  ])('%j → "%s"', (cpus, text) => {
    expect(formatCpuList(cpus)).toBe(text);
    expect(parseCpuList(text)).toEqual([...new Set(cpus)].sort((a, b) => a - b));
  });
});

describe('cpumasks', () => {
  it.each([
    ['00000000,0000ffff', Array.from({ length: 16 }, (_, i) => i)],
    ['ff', [0, 1, 2, 3, 4, 5, 6, 7]],
    ['0x3', [0, 1]],
    ['00000001,00000000', [32]],
    ['80000000,00000000,00000001', [0, 95]],
    ['0', []],
  ])('"%s"', (mask, cpus) => {
    expect(parseCpuMask(mask)).toEqual(cpus);
  });

  it('formats masks the way the kernel prints them and round-trips', () => {
    expect(formatCpuMask([0, 1, 2, 3], 4)).toBe('0000000f');
    expect(formatCpuMask([32], 64)).toBe('00000001,00000000');
    expect(formatCpuMask([], 64)).toBe('00000000,00000000');
    expect(parseCpuMask(formatCpuMask([0, 5, 40, 95]))).toEqual([0, 5, 40, 95]);
  });

  it.each(['xyz', '', 'ff,,ff', '0-3'])('rejects "%s"', (mask) => {
    expect(() => parseCpuMask(mask)).toThrow(ParseError);
  });

  it('formats the short mask users type (no leading zeros)', () => {
    expect(formatShortCpuMask(parseCpuList('0-39'))).toBe('ff,ffffffff');
    expect(formatShortCpuMask([0, 1])).toBe('3');
    expect(formatShortCpuMask([32])).toBe('1,00000000');
    expect(formatShortCpuMask([])).toBe('0');
  });

  it('returns null instead of throwing where a value is only reported', () => {
    expect(parseCpusOrNull('0-3,8', 'list')).toEqual([0, 1, 2, 3, 8]);
    expect(parseCpusOrNull('00000000,0000000f', 'mask')).toEqual([0, 1, 2, 3]);
    expect(parseCpusOrNull('zz', 'mask')).toBeNull();
    expect(parseCpusOrNull('3-1', 'list')).toBeNull();
  });
});
