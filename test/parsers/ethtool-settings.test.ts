import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseEthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { bestLinkMode, parseLinkMode } from '../../src/domain/link-modes.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [...realCaptures('ethtool', /-settings-/), 'local-vm/ethtool-veth.txt', 'local-vm/ethtool-virtio_net-eth0.txt'];

describe('parseEthtoolSettings over every real capture', () => {
  it('finds the captures', () => {
    expect(captures.length).toBeGreaterThanOrEqual(11);
  });

  it.each(captures)('%s parses, with a banner and a link state', (file) => {
    const settings = parseEthtoolSettings(realCapture(file));
    expect(settings.interface).toMatch(/^\S+$/);
    expect(settings.linkDetected).not.toBeNull();
    // Every mode listed carries a speed: a wrongly joined continuation line would not.
    for (const mode of [
      ...(settings.supportedLinkModes ?? []),
      ...(settings.advertisedLinkModes ?? []),
      ...(settings.linkPartnerAdvertisedLinkModes ?? []),
    ]) {
      expect(parseLinkMode(mode), mode).not.toBeNull();
    }
  });

  // file, interface, speed, duplex, link, best supported mode, best advertised mode, partner best
  const table: Array<[string, string, number | null, 'full' | 'half' | null, boolean, string | null, string | null, string | null]> = [
    ['ethtool/e1000-settings-jc-1.txt', 'enp0s3', 1000, 'full', true, '1000baseT/Full', '1000baseT/Full', null],
    ['ethtool/e1000-settings-qemu-1.txt', 'eth0', 1000, 'full', true, '1000baseT/Full', '1000baseT/Full', null],
    ['ethtool/e1000e-settings-1.txt', 'eth0', 1000, 'full', true, '10000baseT/Full', '1000baseT/Full', null],
    ['ethtool/ena-settings-nospeed-1.txt', 'ens3', null, null, true, null, null, null],
    ['ethtool/generic-settings-lp-100M-jc-1.txt', 'eth0', 100, 'full', true, '1000baseT/Full', '1000baseT/Full', '100baseT/Full'],
    ['ethtool/igb-settings-nonroot-insights-1.txt', 'eth1', 1000, 'full', true, '1000baseT/Full', '1000baseT/Full', null],
    ['ethtool/mlx4-connectx3-settings-jc-1.txt', 'enp1s0', 40000, 'full', true, '56000baseCR4/Full', '40000baseCR4/Full', null],
    ['ethtool/rtl83xx-dsa-settings-linkdown-1.txt', 'lan12', 1000, 'full', false, '1000baseX/Full', '1000baseX/Full', null],
    ['ethtool/unknown-settings-10g-fibre-ohai-1.txt', 'eth0', 10000, 'full', true, '10000baseT/Full', '10000baseT/Full', null],
    ['local-vm/ethtool-veth.txt', 'nd-va', 10000, 'full', true, null, null, null],
    ['local-vm/ethtool-virtio_net-eth0.txt', 'eth0', null, null, true, null, null, null],
  ];
  it('the table covers every capture', () => {
    expect(table.map(([file]) => file).sort()).toEqual([...captures].sort());
  });
  it.each(table)('%s: %s at %s Mb/s', (file, name, speed, duplex, link, bestSupported, bestAdvertised, partnerBest) => {
    const settings = parseEthtoolSettings(realCapture(file));
    expect(settings.interface).toBe(name);
    expect(settings.speedMbps).toBe(speed);
    expect(settings.duplex).toBe(duplex);
    expect(settings.linkDetected).toBe(link);
    expect(bestLinkMode(settings.supportedLinkModes ?? [])?.mode ?? null).toBe(bestSupported);
    expect(bestLinkMode(settings.advertisedLinkModes ?? [])?.mode ?? null).toBe(bestAdvertised);
    expect(bestLinkMode(settings.linkPartnerAdvertisedLinkModes ?? [])?.mode ?? null).toBe(partnerBest);
  });
});

describe('parseEthtoolSettings details', () => {
  it('reads multi-line mode lists with trailing spaces, and the link partner section', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/generic-settings-lp-100M-jc-1.txt'));
    expect(settings.supportedPorts).toEqual(['TP', 'MII']);
    expect(settings.supportedLinkModes).toEqual([
      '10baseT/Half',
      '10baseT/Full',
      '100baseT/Half',
      '100baseT/Full',
      '1000baseT/Half',
      '1000baseT/Full',
    ]);
    expect(settings.advertisedLinkModes).toEqual(settings.supportedLinkModes);
    expect(settings.linkPartnerAdvertisedLinkModes).toEqual(['10baseT/Half', '10baseT/Full', '100baseT/Half', '100baseT/Full']);
    expect(settings.supportedPauseFrameUse).toBe('Symmetric Receive-only');
    expect(settings.linkPartnerAdvertisedPauseFrameUse).toBe('Symmetric');
    expect(settings.linkPartnerAdvertisedAutoNegotiation).toBe(true);
    expect(settings.supportsAutoNegotiation).toBe(true);
    expect(settings.advertisedAutoNegotiation).toBe(true);
    expect(settings.autoNegotiation).toBe(true);
    expect(settings.port).toBe('Twisted Pair');
    expect(settings.transceiver).toBe('external');
    expect(settings.warnings).toEqual([]);
  });

  it('reads one mode per line (ConnectX-3) and autoneg off', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/mlx4-connectx3-settings-jc-1.txt'));
    expect(settings.supportedLinkModes).toHaveLength(8);
    expect(settings.advertisedLinkModes).toEqual([
      '10000baseKX4/Full',
      '40000baseCR4/Full',
      '40000baseSR4/Full',
      '1000baseX/Full',
      '10000baseCR/Full',
      '10000baseSR/Full',
    ]);
    expect(settings.supportedPorts).toEqual(['FIBRE']);
    expect(settings.port).toBe('FIBRE');
    expect(settings.autoNegotiation).toBe(false);
    expect(settings.linkPartnerAdvertisedLinkModes).toBeNull();
  });

  it('keeps what a non-root run printed and records the refusals as warnings', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/igb-settings-nonroot-insights-1.txt'));
    expect(settings.warnings).toEqual([
      'Cannot get wake-on-lan settings: Operation not permitted',
      'Cannot get link status: Operation not permitted',
    ]);
    expect(settings.supportedLinkModes).toEqual(['10baseT/Half', '10baseT/Full', '100baseT/Half', '100baseT/Full', '1000baseT/Full']);
    expect(settings.speedMbps).toBe(1000);
  });

  it('skips a netlink error inside the block, a header comment and a tab inside the port list (e1000e)', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/e1000e-settings-1.txt'));
    expect(settings.warnings).toEqual(['netlink error: Operation not permitted']);
    expect(settings.supportedPorts).toEqual(['TP', 'MII']);
    expect(settings.supportedLinkModes).toContain('10000baseT/Full');
    expect(settings.advertisedLinkModes).not.toContain('10000baseT/Full');
    expect(settings.supportedPauseFrameUse).toBe('Symmetric');
  });

  it('leaves everything unknown when ENA prints no link settings, without inventing a speed', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/ena-settings-nospeed-1.txt'));
    expect(settings).toMatchObject({
      supportedPorts: null,
      supportedLinkModes: null,
      advertisedLinkModes: null,
      speedMbps: null,
      duplex: null,
      autoNegotiation: null,
      port: null,
      linkDetected: true,
    });
  });

  it('tells "Not reported" (empty) from absent (null), and reads virtio "Unknown!" as null', () => {
    const veth = parseEthtoolSettings(realCapture('local-vm/ethtool-veth.txt'));
    expect(veth.supportedLinkModes).toEqual([]);
    expect(veth.advertisedLinkModes).toEqual([]);
    expect(veth.supportedPorts).toEqual([]);
    expect(veth.supportsAutoNegotiation).toBe(false);
    expect(veth.speedMbps).toBe(10000);
    const virtio = parseEthtoolSettings(realCapture('local-vm/ethtool-virtio_net-eth0.txt'));
    expect(virtio.speedMbps).toBeNull();
    expect(virtio.duplex).toBeNull();
    expect(virtio.port).toBe('Other');
  });

  it('reads a link that is down', () => {
    const settings = parseEthtoolSettings(realCapture('ethtool/rtl83xx-dsa-settings-linkdown-1.txt'));
    expect(settings.linkDetected).toBe(false);
    expect(settings.supportedPorts).toEqual(['MII']);
  });

  it('reads newer modes and speeds', () => {
    const text = [
      'Settings for enp65s0f0np0:',
      '\tSupported ports: [ Backplane ]',
      '\tSupported link modes:   1000baseKX/Full 10000baseKR/Full 25000baseCR/Full',
      '\t                        100000baseCR4/Full 100000baseSR4/Full 10000baseR_FEC',
      '\t                        2500baseT/Full',
      '\tAdvertised link modes:  25000baseCR/Full 100000baseCR4/Full',
      '\tSpeed: 25000Mb/s',
      '\tDuplex: Half',
      '\tLink detected: yes',
    ].join('\n');
    const settings = parseEthtoolSettings(text);
    expect(settings.supportedLinkModes).toHaveLength(7);
    expect(bestLinkMode(settings.supportedLinkModes!)).toEqual({ mode: '100000baseCR4/Full', speedMbps: 100000, duplex: 'full' });
    expect(settings.speedMbps).toBe(25000);
    expect(settings.duplex).toBe('half');
  });
});

describe('link mode names', () => {
  it.each([
    ['100000baseCR4/Full', 100000, 'full'],
    ['2500baseT/Full', 2500, 'full'],
    ['1000baseX/Full', 1000, 'full'],
    ['10baseT/Half', 10, 'half'],
    ['10000baseR_FEC', 10000, null],
    ['100baseT1/Full', 100, 'full'],
    ['400000baseCR8/Full', 400000, 'full'],
  ] as const)('%s → %i Mb/s', (mode, speed, duplex) => {
    expect(parseLinkMode(mode)).toEqual({ mode, speedMbps: speed, duplex });
  });

  it('gives no speed for names that are not modes', () => {
    expect(parseLinkMode('Autoneg')).toBeNull();
    expect(parseLinkMode('TP')).toBeNull();
    expect(bestLinkMode(['Autoneg', 'TP'])).toBeNull();
    expect(bestLinkMode([])).toBeNull();
  });

  it('prefers full duplex at equal speed', () => {
    expect(bestLinkMode(['1000baseT/Half', '1000baseT/Full', '100baseT/Full'])?.mode).toBe('1000baseT/Full');
    expect(bestLinkMode(['1000baseT/Full', '1000baseT/Half'])?.mode).toBe('1000baseT/Full');
  });
});

describe('parseEthtoolSettings on output it cannot read', () => {
  it.each([
    ['empty output', ''],
    ['garbage', 'hello world\nthis is not ethtool\n'],
    ['"No data available"', 'No data available\n'],
    ['another ethtool command', realCapture('local-vm/ethtool_-i-veth.txt')],
    ['a banner only (truncated)', 'Settings for eth0:\n'],
    ['cut inside the first line', 'Settings for eth0:\n\tSupported po'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolSettings(text)).toThrow(ParseError);
  });
});
