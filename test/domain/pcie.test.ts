import { describe, expect, it } from 'vitest';
import {
  PCIE_SPEED2MBS_ENC,
  describeMinimumLink,
  encodedGbps,
  generationName,
  integratedFunction,
  linkLabel,
  minimumLinks,
  usableGbps,
} from '../../src/domain/pcie.js';
import { parseLinkSpeed, parseLinkWidth } from '../../src/parsers/pcie-text.js';
import { realCapture } from '../helpers/fixtures.js';

describe('PCIe bandwidth table (kernel PCIE_SPEED2MBS_ENC)', () => {
  it.each([
    [2.5, 2000],
    [5, 4000],
    [8, 7876],
    [16, 15753],
    [32, 31507],
    [64, 64000],
  ])('%s GT/s → %s Mb/s per lane after encoding', (speed, mbps) => {
    expect(PCIE_SPEED2MBS_ENC[String(speed)]).toBe(mbps);
    // CAUSES.md rounds the same values: 2.0, 4.0, 7.877, 15.754, 31.508, 64.
    expect(encodedGbps(speed, 1)).toBeCloseTo(mbps / 1000, 6);
  });

  it('matches what the kernel logged for a ConnectX-5 on 8.0 GT/s x8 (real dmesg capture)', () => {
    const line = realCapture('dmesg/mlx5-cx5-pcie-bw-arm-1.txt')
      .split('\n')
      .find((text) => text.includes('available PCIe bandwidth'))!;
    const logged = Number(/([\d.]+) Gb\/s available PCIe bandwidth/.exec(line)![1]);
    expect(logged).toBe(63.008);
    expect(encodedGbps(8, 8)).toBe(logged);
  });

  it('has no bandwidth for a speed PCIe does not define', () => {
    expect(encodedGbps(3, 4)).toBeNull();
    expect(usableGbps(3, 4)).toBeNull();
  });

  it('usable = 0.89 x encoded: 10G on Gen2 x1 plateaus near 3.56 Gb/s (the TrueNAS case)', () => {
    expect(usableGbps(5, 1)).toBeCloseTo(3.56, 6);
    expect(usableGbps(5, 2)).toBeCloseTo(7.12, 6);
    expect(usableGbps(2.5, 4)).toBeCloseTo(7.12, 6);
    expect(usableGbps(8, 4)!).toBeCloseTo(28.04, 2);
    expect(usableGbps(8, 8)!).toBeCloseTo(56.08, 2);
    expect(usableGbps(5, 1, 1)).toBe(4);
  });
});

describe('speed and width strings', () => {
  it.each([
    ['8.0 GT/s PCIe', 8],
    ['16.0 GT/s PCIe', 16],
    ['2.5 GT/s PCIe', 2.5],
    ['5 GT/s', 5],
    ['2.5 GT/s', 2.5],
    ['8 GT/s', 8],
    ['8GT/s', 8],
    ['2.5GT/s', 2.5],
    ['32GT/s', 32],
    ['2.5Gb/s', 2.5],
    ['5.0Gb/s', 5],
    ['5Gbps', 5],
    ['64.0 GT/s PCIe', 64],
  ])('"%s" → %s GT/s', (text, expected) => {
    expect(parseLinkSpeed(text)).toBe(expected);
  });

  it.each(['Unknown', 'Unknown speed', 'unknown', '', 'x8'])('"%s" → null', (text) => {
    expect(parseLinkSpeed(text)).toBeNull();
  });

  it('reads the real sysfs attribute formats', () => {
    const base = 'sysfs/intel-x722-lewisburg-hwloc-1/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0/0000:60:00.0';
    expect(parseLinkSpeed(realCapture(`${base}/current_link_speed`))).toBe(2.5);
    expect(parseLinkSpeed(realCapture(`${base}/max_link_speed`))).toBe(8);
    expect(parseLinkWidth(realCapture(`${base}/current_link_width`))).toBe(1);
    const e810 = 'sysfs/intel-e810-ice-1/devices/pci0000:a2/0000:a2:00.0';
    expect(parseLinkSpeed(realCapture(`${e810}/current_link_speed`))).toBe(16);
    expect(parseLinkWidth(realCapture(`${e810}/max_link_width`))).toBe(8);
  });

  it('reads widths from sysfs and lspci, keeping 0 (a VF or a link that is down)', () => {
    expect(parseLinkWidth('8')).toBe(8);
    expect(parseLinkWidth('x16')).toBe(16);
    expect(parseLinkWidth('0')).toBe(0);
    expect(parseLinkWidth('x0')).toBe(0);
    expect(parseLinkWidth('')).toBeNull();
    expect(parseLinkWidth(undefined)).toBeNull();
    expect(parseLinkWidth('wide')).toBeNull();
  });

  it('names generations', () => {
    expect([2.5, 5, 8, 16, 32, 64].map(generationName)).toEqual(['Gen1', 'Gen2', 'Gen3', 'Gen4', 'Gen5', 'Gen6']);
    expect(generationName(3)).toBeNull();
    expect(linkLabel(5, 1)).toBe('Gen2 x1 (5 GT/s)');
    expect(linkLabel(8, 4, false)).toBe('Gen3 x4');
    expect(linkLabel(3, 2)).toBe('3 GT/s x2');
  });
});

describe('minimum link for line rate (CAUSES.md)', () => {
  it.each([
    [10, 'Gen2 x4 or Gen3 x2'],
    [25, 'Gen2 x8 or Gen3 x4'],
    [40, 'Gen2 x16 or Gen3 x8'],
    [100, 'Gen3 x16 or Gen4 x8'],
  ])('%sG needs %s', (gbps, expected) => {
    expect(describeMinimumLink(gbps)).toBe(expected);
  });

  it('two busy 100G ports need Gen4 x16 or Gen5 x8', () => {
    const options = minimumLinks(200);
    expect(options.find((option) => option.generation === 'Gen4')?.width).toBe(16);
    expect(options.find((option) => option.generation === 'Gen5')?.width).toBe(8);
    expect(options.find((option) => option.generation === 'Gen3')).toBeUndefined();
  });
});

describe('integrated functions', () => {
  it('knows the X722 of the Lewisburg PCH from its real sysfs ids', () => {
    const base = 'sysfs/intel-x722-lewisburg-hwloc-1/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0/0000:60:00.0';
    expect(integratedFunction(realCapture(`${base}/vendor`).trim(), realCapture(`${base}/device`).trim())?.name).toMatch(/X722/);
    expect(integratedFunction('0x8086', '0x1563')).toBeNull();
    expect(integratedFunction(null, '0x37d2')).toBeNull();
  });
});
