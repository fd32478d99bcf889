import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/parsers/parse-error.js';
import { parseFreebsdIfconfig } from '../../src/parsers/freebsd-ifconfig.js';
import { parsePciconf } from '../../src/parsers/freebsd-pciconf.js';
import { driverSysctls, parseFreebsdSysctl } from '../../src/parsers/freebsd-sysctl.js';
import { parseNetstatM } from '../../src/parsers/freebsd-netstat-m.js';
import { parseVmstatI, vectorsOf } from '../../src/parsers/freebsd-vmstat-i.js';
import { parseFreebsdBoot } from '../../src/parsers/freebsd-boot.js';
import { mediaSpeedMbps, freebsdInterfaceKind } from '../../src/domain/freebsd.js';
import { realCapture } from '../helpers/fixtures.js';

describe('FreeBSD ifconfig over real captures', () => {
  it('reads a port with no carrier (X553 SFP+): flags, mtu, options, no active media', () => {
    const [ix0] = parseFreebsdIfconfig(realCapture('freebsd/ifconfig-v-ix0-x553-no-carrier.txt'));
    expect(ix0).toMatchObject({ name: 'ix0', mtu: 1500, status: 'no carrier', mediaSubtype: null, media: 'Ethernet autoselect' });
    expect(ix0!.flags).toContain('UP');
    expect(ix0!.options).toEqual(['VLAN_MTU', 'JUMBO_MTU', 'WOL_UCAST', 'WOL_MCAST', 'WOL_MAGIC', 'NOMAP']);
  });

  it('reads the negotiated subtype, duplex and pause of an active 10Gbase-SR port', () => {
    const [ix1] = parseFreebsdIfconfig(realCapture('freebsd/ifconfig-ix1-10gbase-sr-active.txt'));
    expect(ix1).toMatchObject({ mediaSubtype: '10Gbase-SR', duplex: 'full', rxPause: true, txPause: true, status: 'active' });
    expect(mediaSpeedMbps(ix1!.mediaSubtype!)).toBe(10_000);
  });

  it('reads media set by hand (no autoselect) and an output whose indentation a page removed', () => {
    const [cxgb0] = parseFreebsdIfconfig(realCapture('freebsd/ifconfig-cxgb0-twinax.txt'));
    expect(cxgb0).toMatchObject({ name: 'cxgb0', mtu: 9000, mediaSubtype: '10Gbase-Twinax', status: 'active' });
    const [igb3] = parseFreebsdIfconfig(realCapture('freebsd/ifconfig-igb3-unindented.txt'));
    expect(igb3).toMatchObject({ mediaSubtype: '1000baseT', status: 'active' });
    expect(igb3!.options).toContain('TSO4');
  });

  it('refuses text with no interface header', () => {
    expect(() => parseFreebsdIfconfig('media: Ethernet autoselect\n')).toThrow(ParseError);
  });
});

describe('FreeBSD pciconf over real captures', () => {
  it('reads LnkSta(LnkCap) and MaxPayload from the PCI-Express capability, wrapped over two lines, with pre-11 chip= ids', () => {
    const [ix0] = parsePciconf(realCapture('freebsd/pciconf-lvc-82599eb-x8-gen2.txt'));
    expect(ix0).toMatchObject({ name: 'ix0', address: '0000:15:00.0', vendorId: '0x8086', deviceId: '0x10fb', classCode: '0x020000' });
    expect(ix0!.pcie).toEqual({
      width: 8,
      maxWidth: 8,
      speedGts: 5,
      maxSpeedGts: 5,
      payloadBytes: 256,
      maxPayloadBytes: 512,
      maxReadBytes: null,
    });
  });

  it('reads pciconf -lv without capabilities: no PCIe link, the names and ids', () => {
    const devices = parsePciconf(realCapture('freebsd/pciconf-lv-netgate6100-x553.txt'));
    expect(devices.map((device) => device.name)).toEqual(['ix0', 'ix1', 'ix2', 'ix3']);
    expect(devices[0]).toMatchObject({ address: '0000:03:00.0', device: 'Ethernet Connection X553 10 GbE SFP+', pcie: null });
  });

  it('leaves a link line an author marked by hand unread rather than guess', () => {
    const [ixl0] = parsePciconf(realCapture('freebsd/pciconf-lc-ixl-v710-x4-gen3-annotated.txt'));
    expect(ixl0!.pcie).toMatchObject({ payloadBytes: 256, maxPayloadBytes: 2048, maxReadBytes: 512, width: null });
  });

  it('refuses text with no device line', () => {
    expect(() => parsePciconf('    vendor = x\n')).toThrow(ParseError);
  });
});

describe('FreeBSD sysctl, netstat -m, vmstat -i, boot messages', () => {
  it('reads sysctl dev.ix.0: firmware, flow control, adaptive moderation, counters', () => {
    const values = parseFreebsdSysctl(realCapture('freebsd/sysctl-dev-ix0-pfsense.txt'));
    const ix0 = driverSysctls(values, 'dev.ix.0')!;
    expect(ix0).toMatchObject({ firmware: 'eTrack 0x800003e2 PHY FW V286', flowControl: 3, adaptiveModeration: false, rxQueues: null });
    expect(ix0.counters.get('mac_stats.total_pkts_rcvd')).toBe(77);
    expect(ix0.counters.get('mac_stats.good_pkts_rcvd')).toBe(0);
  });

  it('reads mbuf denials of a real netstat -m whose legend wrapped', () => {
    expect(parseNetstatM(realCapture('freebsd/netstat-m-mbufs-denied.txt'))).toEqual({
      clustersInUse: 662,
      clustersMax: 65536,
      mbufsDenied: 16064849,
      clustersDenied: 9164254,
      mbufClustersDenied: 9384500,
      jumboDenied: 0,
      delayed: 0,
      drainCalls: 5500,
    });
    expect(() => parseNetstatM('nothing here\n')).toThrow(ParseError);
  });

  it('reads the pre-FreeBSD 5 layout: a peak instead of a cache, one count for denied and delayed memory', () => {
    // The lines FreeBSD 4's netstat -m prints (mbuf.c of that release): current/peak/max, "requests for memory".
    const old = [
      '3797/14672/26624 mbufs in use (current/peak/max):',
      '3704/6656/6656 mbuf clusters in use (current/peak/max)',
      '106522 requests for memory denied',
      '1545 requests for memory delayed',
      '0 calls to protocol drain routines',
      '',
    ].join('\n');
    expect(parseNetstatM(old)).toMatchObject({ clustersInUse: 6656, clustersMax: 6656, mbufsDenied: 106522, delayed: 1545, drainCalls: 0 });
  });

  it('reads the queue, descriptor, PCIe and link messages of ice(4)', () => {
    const nics = parseFreebsdBoot(realCapture('freebsd/dmesg-ice-e810-xxv.txt'));
    expect(nics.get('ice0')).toMatchObject({
      rxQueues: 8,
      txQueues: 8,
      rxDescriptors: 1024,
      pcieSpeedGts: 8,
      pcieWidth: 8,
      linkMbps: 25_000,
      linkUp: true,
    });
    expect(nics.get('ice1')?.description).toBe('Intel(R) Ethernet Network Adapter E810-XXV-2 - 1.37.11-k');
  });

  it('reads vmstat -i rows and finds an interface vectors (vmstat -i format as FreeBSD prints it)', () => {
    const rows = parseVmstatI(
      'interrupt                          total       rate\nirq264: ix0:rxq0                 1234567        123\nirq265: ix0:rxq1                      12          0\ncpu0:timer                       9876543        987\nTotal                           11111122       1110\n',
    );
    expect(vectorsOf(rows, 'ix0').map((row) => row.irq)).toEqual([264, 265]);
    expect(() => parseVmstatI('interrupt total rate\n')).toThrow(ParseError);
  });

  it('tells physical NICs, guest NICs and software interfaces apart by driver name', () => {
    expect(['ix0', 'mce1', 'cxl0', 'vtnet0', 'ena0', 'ix1_vlan111', 'lagg0', 'lo0'].map(freebsdInterfaceKind)).toEqual([
      'physical',
      'physical',
      'physical',
      'virtual-nic',
      'virtual-nic',
      'software',
      'software',
      'software',
    ]);
  });
});
