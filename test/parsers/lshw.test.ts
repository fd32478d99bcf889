import { describe, expect, it } from 'vitest';
import { lshwAsEthtoolDriver, lshwAsEthtoolSettings, lshwRateMbps, parseLshwNetwork } from '../../src/parsers/lshw.js';
import { parseEthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { ParseError } from '../../src/parsers/parse-error.js';

/** Written for this test in lshw B.02.19's layout: one port at 1G of 10G capacity, one without link. */
const TWO_PORTS = `  *-network:0
       description: Ethernet interface
       product: Ethernet Controller 10G X550T
       vendor: Intel Corporation
       physical id: 0
       bus info: pci@0000:3b:00.0
       logical name: eno1
       version: 01
       size: 1Gbit/s
       capacity: 10Gbit/s
       width: 64 bits
       capabilities: pm msi msix pciexpress bus_master cap_list ethernet physical tp 100bt-fd 1000bt-fd 10000bt-fd autonegotiation
       configuration: autonegotiation=on broadcast=yes driver=ixgbe driverversion=5.15.0 duplex=full firmware=0x80000aee, 1.2829.0 latency=0 link=yes multicast=yes port=twisted pair speed=1Gbit/s
       resources: irq:31 memory:ab800000-ab9fffff
  *-network:1 DISABLED
       description: Ethernet interface
       bus info: pci@0000:3b:00.1
       logical name: eno2
       capacity: 10Gbit/s
       capabilities: pm msi msix pciexpress bus_master cap_list ethernet physical tp 100bt-fd 1000bt-fd 10000bt-fd autonegotiation
       configuration: autonegotiation=on broadcast=yes driver=ixgbe driverversion=5.15.0 firmware=0x80000aee, 1.2829.0 latency=0 link=no multicast=yes port=twisted pair
  *-usb
       description: USB controller
       logical name: usb0
`;

describe('lshw -class network parser', () => {
  it('reads each network node: name, PCI function, speed, capacity, BASE-T modes, driver and link; other nodes end it', () => {
    const [first, second, ...rest] = parseLshwNetwork(TWO_PORTS);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({
      logicalName: 'eno1',
      busInfo: '0000:3b:00.0',
      speedMbps: 1000,
      capacityMbps: 10000,
      linkModes: ['100baseT/Full', '1000baseT/Full', '10000baseT/Full'],
      autoneg: true,
      duplex: 'full',
      link: true,
      driver: 'ixgbe',
      firmware: '0x80000aee, 1.2829.0',
      disabled: false,
    });
    expect(second).toMatchObject({ logicalName: 'eno2', speedMbps: null, link: false, disabled: true });
  });

  it('takes the speed from "speed=" when no size line is printed, and reads every rate unit', () => {
    const [node] = parseLshwNetwork('*-network\nlogical name: eth1\nconfiguration: driver=r8169 link=yes speed=100Mbit/s\n');
    expect(node).toMatchObject({ logicalName: 'eth1', speedMbps: 100 });
    expect([lshwRateMbps('2500Mbit/s'), lshwRateMbps('1Gbit/s'), lshwRateMbps('10Mbit/s'), lshwRateMbps('fast')]).toEqual([
      2500,
      1000,
      10,
      null,
    ]);
  });

  it('writes the ethtool outputs the same driver answers give, which the ethtool parser reads back', () => {
    const [first] = parseLshwNetwork(TWO_PORTS);
    const settings = parseEthtoolSettings(lshwAsEthtoolSettings(first!));
    expect(settings).toMatchObject({ speedMbps: 1000, linkDetected: true, duplex: 'full', autoNegotiation: true });
    expect(settings.supportedLinkModes).toEqual(['100baseT/Full', '1000baseT/Full', '10000baseT/Full']);
    // lshw does not show what is advertised: nothing is claimed.
    expect(settings.advertisedLinkModes ?? []).toEqual([]);
    expect(lshwAsEthtoolDriver(first!)).toContain('bus-info: 0000:3b:00.0');
  });

  it('rejects text with no network node, and stays bounded on a long one', () => {
    expect(() => parseLshwNetwork('*-disk\n  logical name: /dev/sda\n')).toThrow(ParseError);
    const many = Array.from({ length: 2000 }, (_, index) => `*-network:${index}\n  logical name: eth${index}`).join('\n');
    expect(parseLshwNetwork(many).length).toBe(512);
  });
});
