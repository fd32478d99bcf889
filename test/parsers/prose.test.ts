import { describe, expect, it } from 'vitest';
import { statedCpuCount, statedLinkSpeedMbps, statedNicModel } from '../../src/parsers/prose.js';

describe("statedLinkSpeedMbps: the link speed in a ticket's words", () => {
  it.each([
    ['we bought a 25G NIC for the storage box', 25_000],
    ['both hosts are on 10GbE', 10_000],
    ['it is a 40 Gbit card but we see 9', 40_000],
    ['the switch has 100G ports', 100_000],
    ['over a 25 Gb/s link we only reach 6 Gb/s', 25_000],
    ['dual 25G Mellanox in each server', 25_000],
    ['a 10 Gigabit Ethernet uplink', 10_000],
  ])('"%s" → %d Mb/s', (prose, speed) => {
    expect(statedLinkSpeedMbps(prose)).toBe(speed);
  });

  it.each([
    ['iperf3 gives 6 Gb/s and sometimes 9.4 Gb/s'],
    ['we moved from 10GbE to 25GbE last year'],
    ['the file is 40 Gbytes'],
    [`${'x'.repeat(100_000)} 10G`],
  ])('states no single link speed: "%s"', (prose) => {
    expect(statedLinkSpeedMbps(prose.slice(0, 200_000))).toBeNull();
  });
});

describe('statedNicModel: the NIC model and its driver', () => {
  it.each([
    ['Intel X710 on both ends', 'X710', 'i40e'],
    ['the ConnectX-5 drops packets', 'ConnectX-5', 'mlx5_core'],
    ['an E810 in a Dell R750', 'E810', 'ice'],
    ['Broadcom BCM57414 NetXtreme-E', 'BCM57414', 'bnxt_en'],
    ['old 82599 cards', '82599', 'ixgbe'],
  ])('"%s" → %s (%s)', (prose, model, driver) => {
    expect(statedNicModel(prose)).toEqual({ model, driver });
  });

  it('two different families: none (the ticket compares NICs)', () => {
    expect(statedNicModel('the X710 is fine, the ConnectX-5 is not')).toBeNull();
  });
});

describe('statedCpuCount: cores and logical CPUs', () => {
  it.each([
    ['a 32-core server', { logical: null, cores: 32 }],
    ['2x Xeon Gold 6130 (16 cores each)', { logical: null, cores: 32 }],
    ['the VM has 48 vCPU', { logical: 48, cores: null }],
    ['a small box with 8 CPUs', { logical: 8, cores: null }],
    ['2 x 12 cores, 48 threads', { logical: 48, cores: 24 }],
  ])('"%s"', (prose, expected) => {
    expect(statedCpuCount(prose)).toEqual(expected);
  });

  it('says nothing when the text does not', () => {
    expect(statedCpuCount('iperf3 reaches 9.4 Gb/s')).toEqual({ logical: null, cores: null });
  });
});
