import { describe, expect, it } from 'vitest';
import { parseKernelLog, parseKernelPcieReports, type KernelNic } from '../../src/parsers/kernel-log.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const DMESG = realCaptures('dmesg');

function named(file: string): Map<string, KernelNic> {
  return new Map(
    parseKernelLog(realCapture(file))
      .nics.filter((nic) => nic.name)
      .map((nic) => [nic.name!, nic]),
  );
}

describe('parseKernelLog over every real kernel log', () => {
  it('covers all the captures in dmesg/', () => {
    expect(DMESG).toHaveLength(13);
  });

  it.each(DMESG)('%s parses; every NIC it names has a valid name and a PCI address or none', (file) => {
    const log = parseKernelLog(realCapture(file));
    for (const nic of log.nics) {
      if (nic.name) expect(nic.name).toMatch(/^[^\s/:()]{1,15}$/);
      if (nic.address) expect(nic.address).toMatch(/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/);
    }
  });

  it('ice (E810): follows "renamed from eth0" to each port, reads "NIC Link is up 25 Gbps Full Duplex" and the limited PCIe link', () => {
    const nics = named('dmesg/ice-e810-rename-limited-link-1.txt');
    expect([...nics.keys()].sort()).toEqual(['ens1f1', 'ens1f2', 'ens1f3', 'ens2f0', 'ens2f1']);
    expect(nics.get('ens1f1')).toMatchObject({
      address: '0000:10:00.1',
      driver: 'ice',
      previousNames: ['eth0'],
      speedMbps: 25_000,
      duplex: 'full',
    });
    expect(nics.get('ens2f1')).toMatchObject({ address: '0000:12:00.1', speedMbps: 25_000 });
    // No link line for ens1f2 (module not present): no speed invented.
    expect(nics.get('ens1f2')).toMatchObject({ address: '0000:10:00.2', speedMbps: null, linkUp: null });
    const pcie = parseKernelPcieReports(realCapture('dmesg/ice-e810-rename-limited-link-1.txt'));
    expect(pcie.find((report) => report.address === '0000:10:00.1')).toMatchObject({
      availableGbps: 126.024,
      limitedBy: { link: '16.0 GT/s PCIe x8', address: '0000:0f:02.0' },
    });
  });

  it('i40e (XL710): "NIC Link is Up, 40 Gbps Full Duplex" under the probe name, then the rename; "PCI-Express: Speed 8.0GT/s Width x8"', () => {
    const nics = named('dmesg/i40e-xl710-probe-rename-link-1.txt');
    expect(nics.get('enp193s0f0')).toMatchObject({
      address: '0000:c1:00.0',
      driver: 'i40e',
      previousNames: ['eth0'],
      speedMbps: 40_000,
      duplex: 'full',
    });
    expect(nics.get('enp193s0f1')).toMatchObject({ address: '0000:c1:00.1', previousNames: ['eth1'], speedMbps: null });
    expect(nics.has('eth0')).toBe(false);
    const pcie = parseKernelPcieReports(realCapture('dmesg/i40e-xl710-probe-rename-link-1.txt'));
    expect(pcie.find((report) => report.address === '0000:c1:00.0')).toMatchObject({ link: '8.0 GT/s x8', availableGbps: 63.015 });
  });

  it('ixgbe: "NIC Link is Up 10 Gbps, Flow Control: RX/TX" on both renamed ports', () => {
    const nics = named('dmesg/ixgbe-x520-rename-link-1.txt');
    expect(nics.get('enp1s0f0')).toMatchObject({ address: '0000:01:00.0', driver: 'ixgbe', speedMbps: 10_000 });
    expect(nics.get('enp1s0f1')).toMatchObject({ address: '0000:01:00.1', previousNames: ['eth0'], speedMbps: 10_000 });
  });

  it('bnxt: "NIC Link is Up, 25000 Mbps full duplex"; mlx5: "Link up" names the port without a speed', () => {
    expect(named('dmesg/bnxt-25g-link-up-1.txt').get('eno2np0')).toMatchObject({
      address: '0000:3b:00.0',
      driver: 'bnxt_en',
      speedMbps: 25_000,
      duplex: 'full',
    });
    const mlx5 = named('dmesg/mlx5-link-up-1.txt');
    expect(mlx5.get('enp4s0f1np1')).toMatchObject({ address: '0000:04:00.1', driver: 'mlx5_core', linkUp: true, speedMbps: null });
  });

  it('quoted mail lines: ice "NIC Link is up 25 Gbps" and iavf "NIC Link is Up Speed is 25 Gbps"; a port whose last line is Down has no speed', () => {
    const nics = named('dmesg/ice-iavf-link-quoted-1.txt');
    expect(nics.get('ens1f2')).toMatchObject({ address: '0000:10:00.2', speedMbps: 25_000 });
    expect(nics.get('net2')).toMatchObject({ address: '0000:10:11.2', driver: 'iavf', speedMbps: 25_000 });
    expect(nics.get('ens1f1')).toMatchObject({ linkUp: false, speedMbps: null });
  });

  it('atlantic "link change old 0 new 10000", igb probe names and the syslog form of ixgbe', () => {
    expect(named('dmesg/atlantic-aqc113-link-1.txt').get('eth1')).toMatchObject({ address: '0000:01:00.0', speedMbps: 10_000 });
    expect(named('dmesg/ixgbe-syslog-pcie-rss-1.txt').get('eth4')).toMatchObject({ address: '0000:06:00.1', driver: 'ixgbe' });
    // The PF_RING reload prints "eth0" for all four functions: the name ends on the last one only.
    const igb = named('dmesg/igb-pcie-width-lines-1.txt');
    expect(igb.get('eth0')).toMatchObject({ address: '0000:06:00.0' });
    expect(igb.has('eth1')).toBe(false);
  });

  it('other PCI devices (pcieport, nvme) and lines of no device are not NICs', () => {
    const log = parseKernelLog(
      [
        '[  829.993188] pcieport 0000:00:10.0: AER: device recovery successful',
        '[    1.1] nvme 0000:01:00.0: platform quirk: setting simple suspend',
        '[ 1258.081005] IPv6: ADDRCONF(NETDEV_UP): ens1f1: link is not ready',
        '[ 1258.472758] device ens1f1 entered promiscuous mode',
        '[    1.2] mlx5_core 0004:01:00.0: E-Switch: Total vports 10, per vport: max uc(1024) max mc(16384)',
        // Prose shaped like "driver bus iface: ": a bus id has a digit; a word and a name before prose.
        'Driver has TODO: "Schedule NAPI on different CPU core" — not implemented',
        'Note: eth0 is the 10G port, eth1 the onboard one',
      ].join('\n'),
    );
    expect(log.nics).toEqual([]);
  });

  it('names the interface after the address whatever the message, under a syslog-ng "[kernel: .]:" tag; "bna: enp1s0f2 link up"', () => {
    const log = parseKernelLog(
      [
        '[kern.err] [kernel: .]: ixgbe 0000:08:00.1: eth3: Detected Tx Unit Hang',
        '[ 136.232732] bna: enp1s0f2 link up',
        '[ 160.270896] bna: enp1s0f2 link down',
      ].join('\n'),
    );
    expect(log.nics).toEqual([
      expect.objectContaining({ address: '0000:08:00.1', driver: 'ixgbe', name: 'eth3' }),
      expect.objectContaining({ address: null, name: 'enp1s0f2', linkUp: false }),
    ]);
  });

  it('tg3, igb, e1000e (old, no address), bnx2 and phylib formats give the speed', () => {
    const log = parseKernelLog(
      [
        'tg3 0000:03:00.0 eth0: Link is up at 1000 Mbps, full duplex',
        'igb 0000:01:00.0 eno1: igb: eno1 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX/TX',
        'e1000e: eth9 NIC Link is Up 100 Mbps Full Duplex, Flow Control: Rx/Tx',
        'bnx2 0000:01:00.1 em2: NIC Copper Link is Up, 1000 Mbps full duplex',
        'r8169 0000:02:00.0 enp2s0: Link is Up - 2.5Gbps/Full - flow control rx/tx',
        'Nov 17 13:44:29 host kernel: sfc 0000:04:00.0 eth2: link up at 10000Mbps full-duplex (MTU 1500)',
      ].join('\n'),
    );
    const speeds = Object.fromEntries(log.nics.map((nic) => [nic.name, nic.speedMbps]));
    expect(speeds).toEqual({ eth0: 1000, eno1: 1000, eth9: 100, em2: 1000, enp2s0: 2500, eth2: 10_000 });
  });

  it('udev renames without an address ("renamed network interface eth0 to em1") carry the name over', () => {
    const log = parseKernelLog(
      ['igb 0000:01:00.0: eth0: (PCIe:2.5Gb/s:Width x4) 00:1b:21:00:00:01', 'udev: renamed network interface eth0 to em1'].join('\n'),
    );
    expect(log.nics).toEqual([expect.objectContaining({ name: 'em1', address: '0000:01:00.0', previousNames: ['eth0'] })]);
  });

  // issue 19: a 100 KB token in a snapshot's dmesg hung `analyze` (an unanchored pattern, run 4 times).
  it('reads a 100 KB token, a 100 KB line of spaces and 1 MB of short lines in linear time (no hang)', () => {
    const token = 'x'.repeat(100_000);
    for (const text of [
      token,
      `ixgbe ${token}`,
      `ixgbe 0000:03:00.0 ${token}: NIC Link is Up ${token}`,
      `mlx5_core 0000:b3:00.1: ${'9'.repeat(100_000)} Gb/s available PCIe bandwidth`,
      `kernel: ${' '.repeat(100_000)}x`,
      `${'> '.repeat(50_000)}e1000e: eth0 NIC Link is Up`,
      'igb 0000:01:00.0 eth0: NIC Link is Up 1000 Mbps\n'.repeat(20_000),
    ])
      expect(() => parseKernelLog(text)).not.toThrow();
  });
});
