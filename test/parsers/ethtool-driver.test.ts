import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseEthtoolDriver } from '../../src/parsers/ethtool-driver.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [...realCaptures('ethtool', /^[a-z0-9_]+-i-/), ...realCaptures('local-vm', /^ethtool_-i-/)];

// The driver is the first part of each capture's file name (local-vm: the part after "ethtool_-i-").
function expectedDriver(file: string): string {
  const name = file.split('/')[1]!;
  if (name.startsWith('ethtool_-i-'))
    return name
      .slice('ethtool_-i-'.length)
      .replace(/-.*$/, '')
      .replace(/\.txt$/, '');
  return name.replace(/-i-.*$/, '');
}

describe('parseEthtoolDriver over every real capture', () => {
  it('finds the captures', () => {
    expect(captures.length).toBeGreaterThanOrEqual(44);
  });

  it.each(captures)('%s names its driver and bus address', (file) => {
    const info = parseEthtoolDriver(realCapture(file));
    expect(info.driver).toBe(expectedDriver(file));
    expect(info.supportsStatistics).toBe(true);
    expect(info.supportsTest).not.toBeNull();
    expect(info.supportsEepromAccess).not.toBeNull();
    expect(info.supportsRegisterDump).not.toBeNull();
    expect(info.supportsPrivFlags).not.toBeNull();
    if (info.driver === 'veth') expect(info.busInfo).toBeNull();
    else expect(info.busInfo).toMatch(/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/);
  });
});

describe('parseEthtoolDriver values', () => {
  it.each([
    [
      'ethtool/be2net-i-1.txt',
      {
        driver: 'be2net',
        version: '11.4.0.0',
        firmwareVersion: '4.9.311.20',
        expansionRomVersion: null,
        busInfo: '0000:04:00.0',
        supportsStatistics: true,
        supportsTest: true,
        supportsEepromAccess: true,
        supportsRegisterDump: false,
        supportsPrivFlags: true,
      },
    ],
    [
      'ethtool/e1000e-i-1.txt',
      {
        driver: 'e1000e',
        version: '5.11.0-22-generic',
        firmwareVersion: '0.5-4',
        expansionRomVersion: null,
        busInfo: '0000:00:1f.6',
        supportsPrivFlags: true,
      },
    ],
    [
      'ethtool/e1000-i-netutils-kvm-e1000-guest-eth0.txt',
      { driver: 'e1000', version: '7.3.21-k8-NAPI', firmwareVersion: null, busInfo: '0000:00:03.0' },
    ],
    [
      'ethtool/i40e-i-netutils-x710-e3-1271-eth1.txt',
      { driver: 'i40e', version: '1.5.10-k', firmwareVersion: '5.04 0x80002530 0.0.0', busInfo: '0000:01:00.1', supportsPrivFlags: true },
    ],
    [
      'ethtool/ice-i-1.txt',
      { driver: 'ice', version: '6.6.58-0-lts', firmwareVersion: '2.50 0x800077a8 1.2960.0', busInfo: '0000:e1:00.0' },
    ],
    [
      'ethtool/igb-i-netutils-i350-r8169-mixed-i3-eth6.txt',
      { driver: 'igb', firmwareVersion: '0.93, 0x800005fd', busInfo: '0000:01:00.0' },
    ],
    [
      'ethtool/mlx4_en-i-netutils-mlx4-cx3pro-2xX5650-eth2.txt',
      { driver: 'mlx4_en', version: '2.2-1 (Feb 2014)', firmwareVersion: '2.36.5000', supportsEepromAccess: false },
    ],
    [
      'ethtool/mlx5_core-i-ethq-issue-1.txt',
      {
        driver: 'mlx5_core',
        version: '3.0-1 (January 2015)',
        firmwareVersion: '14.23.1020',
        expansionRomVersion: null,
        busInfo: '0000:af:00.0',
        supportsTest: false,
      },
    ],
    [
      'ethtool/r8169-i-netutils-i350-r8169-mixed-i3-eth0.txt',
      { driver: 'r8169', firmwareVersion: 'rtl8168e-3_0.0.4 03/27/12', supportsTest: false, supportsRegisterDump: true },
    ],
    ['ethtool/skge-i-netutils-i350-r8169-mixed-i3-eth5.txt', { driver: 'skge', version: '1.13', firmwareVersion: null }],
    [
      'ethtool/tg3-i-netutils-qlcnic-2xE5-2687W-eth7.txt',
      { driver: 'tg3', version: '3.137', firmwareVersion: '5719-v1.46 NCSI v1.3.16.0', busInfo: '0000:02:00.3' },
    ],
    ['ethtool/bnx2-i-netutils-mlx4-cx3pro-2xX5650-eth0.txt', { driver: 'bnx2', firmwareVersion: 'bc 5.2.3 NCSI 2.0.12' }],
    [
      'local-vm/ethtool_-i-veth.txt',
      { driver: 'veth', version: '1.0', firmwareVersion: null, expansionRomVersion: null, busInfo: null, supportsTest: false },
    ],
    [
      'local-vm/ethtool_-i-virtio_net-eth0.txt',
      { driver: 'virtio_net', version: '1.0.0', firmwareVersion: null, busInfo: '0000:00:03.0', supportsEepromAccess: false },
    ],
  ])('%s', (file, expected) => {
    expect(parseEthtoolDriver(realCapture(file))).toMatchObject(expected);
  });

  it('leaves missing optional lines null (older ethtool prints no expansion-rom-version)', () => {
    const info = parseEthtoolDriver('driver: tg3\nbus-info: 0000:03:00.0\n');
    expect(info).toEqual({
      driver: 'tg3',
      version: null,
      firmwareVersion: null,
      expansionRomVersion: null,
      busInfo: '0000:03:00.0',
      supportsStatistics: null,
      supportsTest: null,
      supportsEepromAccess: null,
      supportsRegisterDump: null,
      supportsPrivFlags: null,
    });
  });
});

describe('parseEthtoolDriver on output it cannot read', () => {
  it.each([
    ['empty output', ''],
    ['garbage', 'hello world\n'],
    ['settings output', realCapture('local-vm/ethtool-veth.txt')],
    ['truncated after the driver line', 'driver: ixgbe\nversion: 4.0.1-k\n'],
    ['an empty driver', 'driver: \nbus-info: 0000:01:00.0\n'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolDriver(text)).toThrow(ParseError);
  });
});
