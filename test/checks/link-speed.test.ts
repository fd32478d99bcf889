import { describe, expect, it } from 'vitest';
import linkSpeed from '../../checks/link-speed.js';
import { parseEthtoolDriver } from '../../src/parsers/ethtool-driver.js';
import { parseEthtoolSettings, type EthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const settingsOf = (file: string, extra: Partial<EthtoolSettings> = {}): EthtoolSettings => ({
  ...parseEthtoolSettings(realCapture(file)),
  ...extra,
});

const tester = checkTester(linkSpeed);

describe('link-speed check', () => {
  it('passes a 10G NIC linked at 10G (real capture)', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/unknown-settings-10g-fibre-ohai-1.txt'),
      'net.device': netDevice('eth0', { speedMbps: 10000 }),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('passes a ConnectX-3 at 40G: 56G is supported but not advertised, so 40G is its best', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('ethtool/mlx4-connectx3-settings-jc-1.txt'),
        'net.device': netDevice('enp1s0', { driver: 'mlx4_en', speedMbps: 40000 }),
      },
      { interfaces: [{ name: 'enp1s0' }] },
    );
    expect(result.status).toBe('pass');
  });

  it('only notes a 1G NIC held at 100M by a link partner that advertises only 100baseT: the partner sets the speed (real capture)', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/generic-settings-lp-100M-jc-1.txt'),
      'net.device': netDevice('eth0', { driver: 'igb', speedMbps: 100 }),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      symptom: 'below-capability',
      severity: 'info', // correct negotiation: nothing faster in common
      subject: 'eth0',
      data: {
        negotiatedMbps: 100,
        bestMbps: 1000,
        bestMode: '1000baseT/Full',
        partnerBestMode: '100baseT/Full',
        partnerBestMbps: 100,
        commonBestMode: '100baseT/Full',
      },
    });
    expect(finding!.message).toBe(
      'eth0 negotiated 100 Mb/s, but the NIC supports and advertises 1000baseT/Full (1000 Mb/s): the link partner advertises at most 100baseT/Full',
    );
    expect(finding!.fix).toContain('configure the switch port to advertise 1000baseT/Full');
    expect(finding!.fix).toContain('ethtool -s eth0 autoneg on');
    expect(finding!.fix).toContain('update the NIC firmware (see ethtool -i eth0)');
    expect(finding!.evidence[0]).toMatchObject({ label: 'Speed', observed: 100, expected: 1000, unit: 'Mb/s' });
  });

  it('is a warning, blaming the cable, when both ends advertise 25G but the link came up at 10G', async () => {
    const settings: EthtoolSettings = {
      ...settingsOf('ethtool/unknown-settings-10g-fibre-ohai-1.txt'),
      supportedLinkModes: ['10000baseSR/Full', '25000baseSR/Full'],
      advertisedLinkModes: ['10000baseSR/Full', '25000baseSR/Full'],
      linkPartnerAdvertisedLinkModes: ['10000baseSR/Full', '25000baseSR/Full'],
      speedMbps: 10000,
    };
    const result = await tester.run({ 'ethtool.settings': settings, 'net.device': netDevice('eth0', { driver: 'ice' }) });
    expect(result.status).toBe('fail');
    expect(result.findings[0]).toMatchObject({
      symptom: 'below-capability',
      severity: 'warning',
      data: { negotiatedMbps: 10000, bestMbps: 25000, bestMode: '25000baseSR/Full' },
    });
    expect(result.findings[0]!.message).toContain('both ends advertise 25000baseSR/Full');
    expect(result.findings[0]!.fix).toContain('ethtool -r eth0');
  });

  it('is critical for 1G on a 10G NIC whose driver does not show the link partner, naming its firmware', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/unknown-settings-10g-fibre-ohai-1.txt', { speedMbps: 1000 }),
      'net.device': netDevice('eth0', { speedMbps: 1000 }),
      'ethtool.driver': parseEthtoolDriver(realCapture('ethtool/ixgbe-i-netutils-ixgbe-82599-2xE5-2640-eth2.txt')),
    });
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'below-capability',
        severity: 'critical',
        data: expect.objectContaining({ negotiatedMbps: 1000, bestMbps: 10000, bestMode: '10000baseT/Full', partnerBestMode: null }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('does not show what the link partner advertises');
    expect(result.findings[0]!.fix).toContain('update the NIC firmware (ixgbe 4.0.1-k, firmware 0x800000cb)');
  });

  it('fails half duplex as critical', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/e1000-settings-jc-1.txt', { duplex: 'half' }),
      'net.device': netDevice('eth0', { driver: 'e1000', speedMbps: 1000, duplex: 'half' }),
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'half-duplex', severity: 'critical', data: { negotiatedMbps: 1000, duplex: 'half' } }),
    ]);
    expect(result.findings[0]!.fix).toContain('ethtool -s eth0 autoneg on');
  });

  it('warns about an interface that is up without a link, and does not judge its stale speed (real capture)', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('ethtool/rtl83xx-dsa-settings-linkdown-1.txt'),
        'net.device': netDevice('lan12', { driver: 'rtl83xx', carrier: false, operstate: 'down', speedMbps: null }),
      },
      { interfaces: [{ name: 'lan12' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'no-carrier', severity: 'warning', subject: 'lan12' })]);
    expect(result.findings[0]!.evidence[0]).toMatchObject({ label: 'Link detected', observed: 'no', expected: 'yes' });
    expect(result.findings[0]!.fix).toContain('rated for 1000baseX/Full');
    // adminUp true in the helper: the message may say so.
    expect(result.findings[0]!.message).toBe('lan12 is administratively up but has no link (no carrier)');
  });

  it('does not judge a port the administrator set down, though ethtool says it has no link', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('ethtool/rtl83xx-dsa-settings-linkdown-1.txt'),
        'net.device': netDevice('lan12', { driver: 'rtl83xx', carrier: false, adminUp: false, operstate: 'down', speedMbps: null }),
      },
      { interfaces: [{ name: 'lan12' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.findings).toEqual([]);
  });

  it('does not say "administratively up" when no ip link or sysfs flags were captured', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('ethtool/rtl83xx-dsa-settings-linkdown-1.txt'),
        'net.device': netDevice('lan12', { driver: 'rtl83xx', carrier: null, adminUp: null, operstate: null, speedMbps: null }),
      },
      { interfaces: [{ name: 'lan12' }] },
    );
    expect(result.findings[0]).toMatchObject({ symptom: 'no-carrier', message: 'lan12 has no link (no carrier)' });
  });

  it("a speed ethtool cannot resolve under the partner's advertisement is no link; an unknown speed alone is not", async () => {
    const heard = [
      'Settings for sfp1:',
      '\tSupported link modes:   Not reported',
      '\tSupports auto-negotiation: No',
      '\tLink partner advertised link modes:  1000baseT/Full',
      '\t                                     100baseT/Full',
      '\tSpeed: Unknown!',
      '\tDuplex: Unknown! (255)',
    ].join('\n');
    const noLink = await tester.run(
      {
        'ethtool.settings': parseEthtoolSettings(heard),
        'net.device': netDevice('sfp1', { carrier: null, operstate: null, speedMbps: null }),
      },
      { interfaces: [{ name: 'sfp1' }] },
    );
    expect(noLink.findings).toEqual([expect.objectContaining({ symptom: 'no-carrier', severity: 'warning', subject: 'sfp1' })]);
    // A guest's virtio port prints "Speed: Unknown!" with no partner: nothing to say about its link.
    const virtio = heard.replace(/\tLink partner.*\n.*\n/, '');
    const guest = await tester.run(
      {
        'ethtool.settings': parseEthtoolSettings(virtio),
        'net.device': netDevice('sfp1', { carrier: null, operstate: null, speedMbps: null }),
      },
      { interfaces: [{ name: 'sfp1' }] },
    );
    expect(guest.findings).toEqual([]);
  });

  it('fails a port that supports 10GBASE-T but advertises only up to 1000baseT, at 1G (real capture: e1000e-settings-1)', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/e1000e-settings-1.txt'),
      'net.device': netDevice('eth0', { driver: 'e1000e', speedMbps: 1000 }),
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'advertises-below-supported',
        severity: 'warning',
        data: {
          supportedBestMode: '10000baseT/Full',
          supportedBestMbps: 10000,
          advertisedBestMode: '1000baseT/Full',
          advertisedBestMbps: 1000,
          negotiatedMbps: 1000,
          autoneg: true,
          partnerOffersFaster: null,
        },
      }),
    ]);
    expect(result.findings[0]!.message).toBe(
      'eth0 supports 10000baseT/Full (10000 Mb/s) but advertises at most 1000baseT/Full (1000 Mb/s) and runs at 1000 Mb/s: the advertisement was restricted (ethtool -s advertise, a driver or firmware default)',
    );
  });

  it('fails a 25G port forced to 10G with autonegotiation off, and only notes it when the partner offers nothing faster', async () => {
    const forced = settingsOf('ethtool/e1000e-settings-1.txt', {
      supportedLinkModes: ['10000baseCR/Full', '25000baseCR/Full'],
      advertisedLinkModes: ['10000baseCR/Full'],
      autoNegotiation: false,
      speedMbps: 10000,
    });
    const result = await tester.run({
      'ethtool.settings': forced,
      'net.device': netDevice('eth0', { driver: 'mlx5_core', speedMbps: 10000 }),
    });
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'advertises-below-supported', severity: 'warning' })]);
    expect(result.findings[0]!.message).toContain('autonegotiation is off');
    const partnerAt10 = await tester.run({
      'ethtool.settings': { ...forced, linkPartnerAdvertisedLinkModes: ['10000baseCR/Full'] },
      'net.device': netDevice('eth0', { driver: 'mlx5_core', speedMbps: 10000 }),
    });
    expect(partnerAt10.findings).toEqual([expect.objectContaining({ symptom: 'advertises-below-supported', severity: 'info' })]);
  });

  it('warns about a flapping link, and explains that carrier_changes counts 2 per flap', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/unknown-settings-10g-fibre-ohai-1.txt'),
      'net.device': netDevice('eth0', { carrierChanges: 24 }),
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'carrier-flapping', severity: 'warning', data: { carrierChanges: 24, flaps: 12, threshold: 10 } }),
    ]);
    expect(result.findings[0]!.fix).toContain('counts up by 2');
  });

  it('takes the flapping threshold from its options', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('ethtool/unknown-settings-10g-fibre-ohai-1.txt'),
        'net.device': netDevice('eth0', { carrierChanges: 24 }),
      },
      { options: { carrierChangesThreshold: 50 } },
    );
    expect(result.status).toBe('pass');
  });

  it('reports a flapping virtio NIC even though it has no link modes to compare', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('local-vm/ethtool-virtio_net-eth0.txt'),
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net', speedMbps: null, duplex: null, carrierChanges: 12 }),
    });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['carrier-flapping']);
  });

  it('is not applicable to a virtio NIC that reports no speed and no modes (real capture)', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('local-vm/ethtool-virtio_net-eth0.txt'),
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net', speedMbps: null, duplex: null }),
    });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('no link modes');
    expect(result.reason).toContain('virtio_net');
  });

  it('is not applicable to ENA, which prints no link settings at all (real capture)', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('ethtool/ena-settings-nospeed-1.txt'),
        'net.device': netDevice('ens3', { kind: 'paravirtual', driver: 'ena', speedMbps: null }),
      },
      { interfaces: [{ name: 'ens3' }] },
    );
    expect(result.status).toBe('not-applicable');
  });

  it('is not applicable to a veth, whose 10000Mb/s is nominal (real capture)', async () => {
    const result = await tester.run(
      {
        'ethtool.settings': settingsOf('local-vm/ethtool-veth.txt'),
        'net.device': netDevice('nd-va', { kind: 'virtual', driver: null, pciAddress: null }),
      },
      { interfaces: [{ name: 'nd-va', kind: 'virtual' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('nominal');
  });

  it('is not applicable to an interface that is administratively down', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/rtl83xx-dsa-settings-linkdown-1.txt'),
      'net.device': netDevice('eth0', { carrier: null, operstate: 'down', speedMbps: null }),
    });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('administratively down');
  });

  it('is unknown when ethtool is missing, with how to install it', async () => {
    const result = await tester.run({
      'ethtool.settings': failed(
        'tool-missing',
        'ethtool: command not found',
        'install ethtool: apt-get install ethtool (dnf install ethtool on RHEL)',
      ),
      'net.device': netDevice('eth0'),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('ethtool: command not found');
    expect(result.hint).toContain('install ethtool');
  });

  it('is unknown when a NIC lists modes but the driver reports no negotiated speed', async () => {
    const result = await tester.run({
      'ethtool.settings': settingsOf('ethtool/e1000-settings-jc-1.txt', { speedMbps: null, duplex: null }),
      'net.device': netDevice('eth0', { speedMbps: null, duplex: null }),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('no negotiated speed');
    // It cannot tell "Speed: Unknown!" from a missing line, so it quotes neither.
    expect(result.reason).not.toContain('Unknown!');
  });
});
