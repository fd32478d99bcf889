import { describe, expect, it } from 'vitest';
import pcieLink from '../../checks/pcie-link.js';
import type { PcieLink, PcieLinkReading, PcieUpstreamPort } from '../../src/collectors/pcie-link.js';
import { findLspciDevice, parseLspci } from '../../src/parsers/lspci.js';
import { parseLinkSpeed, parseLinkWidth } from '../../src/parsers/pcie-text.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(pcieLink);

const ADDRESS = '0000:01:00.0';
const PATH = '/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0';

function reading(
  speedGts: number | null,
  width: number | null,
  maxSpeedGts: number | null,
  maxWidth: number | null,
  address = ADDRESS,
): PcieLinkReading {
  return {
    address,
    speedGts,
    width,
    maxSpeedGts,
    maxWidth,
    speedMarker: null,
    widthMarker: null,
    source: { kind: 'file', path: `/sys/bus/pci/devices/${address}/current_link_speed` },
  };
}

function pcie(link: PcieLinkReading | null, extra: Partial<Extract<PcieLink, { present: true }>> = {}): PcieLink {
  return {
    present: true,
    address: ADDRESS,
    path: PATH,
    vendorId: '0x8086',
    deviceId: '0x10fb',
    virtualFunction: false,
    physicalFunction: null,
    link,
    linkUnavailable: link ? null : 'no PCI Express link registers',
    upstream: [],
    payload: null,
    payloadUnavailable: 'lspci not captured',
    ...extra,
  };
}

/** The pcie.link fact the collector builds from `lspci -vv` (the fallback path), from a real capture. */
function fromLspci(file: string, address: string): PcieLink {
  const argv = ['lspci', '-vv', '-s', address];
  const device = findLspciDevice(parseLspci(realCapture(file)), address)!;
  return pcie(
    {
      address,
      speedGts: device.linkStatus!.speedGts,
      width: device.linkStatus!.width,
      maxSpeedGts: device.linkCapability!.speedGts,
      maxWidth: device.linkCapability!.width,
      speedMarker: device.linkStatus!.speedMarker,
      widthMarker: device.linkStatus!.widthMarker,
      source: { kind: 'command', argv },
    },
    {
      address,
      payload: {
        supportedBytes: device.maxPayloadSupportedBytes,
        configuredBytes: device.maxPayloadBytes,
        maxReadRequestBytes: device.maxReadRequestBytes,
        source: { kind: 'command', argv },
      },
      payloadUnavailable: null,
      aspm: device.aspm,
    },
  );
}

describe('pcie-link check', () => {
  it('passes a 10G port on Gen2 x8 at full width (82599-style)', async () => {
    const result = await tester.run({ 'pcie.link': pcie(reading(5, 8, 5, 8)), 'net.device': netDevice('eth0'), interfaces: [] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails a 10G port on Gen2 x1: ceiling ≈ 3.56 Gb/s (critical), naming the BDF in the fix', async () => {
    const result = await tester.run({
      'pcie.link': pcie(reading(5, 1, 5, 8)),
      'net.device': netDevice('eth0', { speedMbps: 10000 }),
      interfaces: [],
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toHaveLength(1);
    const [finding] = result.findings;
    expect(finding).toMatchObject({
      symptom: 'pcie-bandwidth-below-port',
      severity: 'critical',
      subject: 'eth0',
      data: {
        currentGts: 5,
        currentWidth: 1,
        maxGts: 5,
        maxWidth: 8,
        usableGbps: 3.56,
        ceilingGbps: 3.56,
        portGbps: 10,
        address: ADDRESS,
        limitingAddress: ADDRESS,
      },
    });
    expect(finding!.message).toBe(
      '10G port on PCIe Gen2 x1 (5 GT/s) of a Gen2 x8 card: ceiling ≈ 3.56 Gb/s, below the 10 Gb/s line rate (one port needs Gen2 x4 or Gen3 x2)',
    );
    expect(finding!.fix).toContain(`lspci -vv -s ${ADDRESS}`);
    expect(finding!.fix).toContain('electrically x8/x16 slot');
    expect(finding!.evidence[0]).toMatchObject({ observed: '5 GT/s x1', expected: '5 GT/s x8', source: { kind: 'file' } });
  });

  it('warns, without failing critically, on the real BCM57416 capture: x8 card at x4 still carries 10G', async () => {
    const fact = fromLspci('lspci/broadcom-bcm57416-downgraded-1.txt', '09:00.0');
    const result = await tester.run({
      'pcie.link': fact,
      'net.device': netDevice('eno1', { driver: 'bnxt_en', pciAddress: '0000:09:00.0', speedMbps: 10000 }),
      interfaces: [],
    });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['pcie-link-downgraded', 'warning']]);
    expect(result.findings[0]!.data).toMatchObject({
      currentGts: 8,
      currentWidth: 4,
      maxGts: 8,
      maxWidth: 8,
      usableGbps: 28.04,
      maxUsableGbps: 56.08,
    });
    expect(result.findings[0]!.message).toContain('runs at Gen3 x4 (8 GT/s), below its capability Gen3 x8 (8 GT/s)');
    expect(result.findings[0]!.message).toContain('still carries the 10G port');
    expect(result.findings[0]!.evidence[0]!.source).toEqual({ kind: 'command', argv: ['lspci', '-vv', '-s', '09:00.0'] });
  });

  it('fails critically on the real "x8 card in an x4 slot" capture (Gen2 x8 running Gen1 x4) on a 10G port', async () => {
    const fact = fromLspci('lspci/fragment-oldfmt-x8card-in-x4slot-1.txt', ADDRESS);
    const result = await tester.run(
      { 'pcie.link': fact, 'net.device': netDevice('eth2', { speedMbps: 10000 }), interfaces: [] },
      { interfaces: [{ name: 'eth2' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'pcie-bandwidth-below-port',
        severity: 'critical',
        subject: 'eth2',
        data: expect.objectContaining({ currentGts: 2.5, currentWidth: 4, maxGts: 5, maxWidth: 8, ceilingGbps: 7.12, portGbps: 10 }),
      }),
    ]);
  });

  it('only warns about a Gen4 NIC in a Gen3 slot that still carries line rate (real AMD sysfs values)', async () => {
    const base = 'sysfs/amd-rootport-nvme-nodeexporter-1/devices/pci0000:00/0000:00:02.1/0000:01:00.0';
    const attr = (name: string) => realCapture(`${base}/${name}`);
    const link = reading(
      parseLinkSpeed(attr('current_link_speed')),
      parseLinkWidth(attr('current_link_width')),
      parseLinkSpeed(attr('max_link_speed')),
      parseLinkWidth(attr('max_link_width')),
    );
    const result = await tester.run({ 'pcie.link': pcie(link), 'net.device': netDevice('eth0', { speedMbps: 25000 }), interfaces: [] });
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['pcie-link-downgraded', 'warning']]);
    expect(result.findings[0]!.data).toMatchObject({ currentGts: 8, maxGts: 16, currentWidth: 4, maxWidth: 4 });
  });

  it('names a narrower upstream bridge, and fails critically when it pushes the ceiling below the port', async () => {
    const bridge: PcieUpstreamPort = {
      address: '0000:00:01.0',
      path: '/sys/devices/pci0000:00/0000:00:01.0',
      link: reading(8, 4, 8, 16, '0000:00:01.0'),
    };
    const fact = pcie(reading(8, 16, 8, 16), { upstream: [bridge] });

    const at25 = await tester.run({ 'pcie.link': fact, 'net.device': netDevice('eth0', { speedMbps: 25000 }), interfaces: [] });
    expect(at25.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['upstream-port-limits', 'warning']]);
    expect(at25.findings[0]!.data).toMatchObject({ limitingAddress: '0000:00:01.0', limitingUsableGbps: 28.04, usableGbps: 112.15 });
    expect(at25.findings[0]!.fix).toContain('lspci -vv -s 0000:00:01.0');

    const at100 = await tester.run({ 'pcie.link': fact, 'net.device': netDevice('eth0', { speedMbps: 100000 }), interfaces: [] });
    expect(at100.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['pcie-bandwidth-below-port', 'critical'],
      ['upstream-port-limits', 'warning'],
    ]);
    expect(at100.findings[0]!.message).toBe(
      '100G port on PCIe Gen3 x4 (8 GT/s) at bridge 0000:00:01.0: ceiling ≈ 28.04 Gb/s, below the 100 Gb/s line rate (one port needs Gen3 x16 or Gen4 x8)',
    );
    expect(at100.findings[0]!.data).toMatchObject({ limitingAddress: '0000:00:01.0', ceilingGbps: 28.04, usableGbps: 112.15 });
  });

  it('ignores upstream bridges whose link could not be read, and bridges wider than the NIC', async () => {
    const upstream: PcieUpstreamPort[] = [
      { address: '0000:00:01.0', path: '/sys/devices/pci0000:00/0000:00:01.0', link: null },
      { address: '0000:00:00.0', path: '/sys/devices/pci0000:00/0000:00:00.0', link: reading(8, 16, 8, 16, '0000:00:00.0') },
    ];
    const result = await tester.run({
      'pcie.link': pcie(reading(8, 8, 8, 8), { upstream }),
      'net.device': netDevice('eth0', { speedMbps: 40000 }),
      interfaces: [],
    });
    expect(result.status).toBe('pass');
  });

  it('warns about a downgrade without judging line rate when the port speed is unknown (link down)', async () => {
    const result = await tester.run({
      'pcie.link': pcie(reading(5, 4, 5, 8)),
      'net.device': netDevice('eth0', { speedMbps: null }),
      interfaces: [],
    });
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['pcie-link-downgraded']);
    expect(result.findings[0]!.message).toContain('port speed is unknown');
  });

  it('notes (info) ports of one card that together exceed their shared link, without failing', async () => {
    const port0 = netDevice('eth0', { pciAddress: '0000:01:00.0', speedMbps: 100000 });
    const port1 = netDevice('eth1', { pciAddress: '0000:01:00.1', speedMbps: 100000 });
    const other = netDevice('eth2', { pciAddress: '0000:02:00.0', speedMbps: 100000 });
    const vf = netDevice('eth0v0', { driver: 'iavf', pciAddress: '0000:01:00.2', speedMbps: 100000 });
    const result = await tester.run({
      'pcie.link': pcie(reading(8, 16, 8, 16)),
      'net.device': port0,
      interfaces: [port0, port1, other, vf],
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'pcie-shared-link-below-ports',
        severity: 'info',
        data: expect.objectContaining({ ports: 2, portNames: 'eth0, eth1', sumGbps: 200, minimumLink: 'Gen4 x16 or Gen5 x8' }),
      }),
    ]);
  });

  it("notes ASPM L1 enabled on the NIC's link (real I210 capture): a note by itself, a cause only with drops (rule pcie-aspm-l1)", async () => {
    const address = parseLspci(realCapture('lspci/intel-i210-oldfmt-1.txt')).find(
      (device) => device.aspm === 'L1' && device.linkStatus,
    )!.address!;
    const fact = fromLspci('lspci/intel-i210-oldfmt-1.txt', address);
    const result = await tester.run({
      'pcie.link': fact,
      'net.device': netDevice('enp3s0', { pciAddress: address, speedMbps: 1000 }),
      interfaces: [],
    });
    expect(result.status).toBe('pass');
    expect(result.findings.find((finding) => finding.symptom === 'aspm-enabled')).toMatchObject({
      severity: 'info',
      data: { address, aspm: 'L1' },
    });
  });

  it('reports a MaxPayload below the device capability as info only (cause 20, real X550T capture)', async () => {
    const fact = fromLspci('lspci/intel-x550t-ok-sriov-1.txt', '24:00.0');
    const result = await tester.run({
      'pcie.link': fact,
      'net.device': netDevice('enp36s0f0', { pciAddress: '0000:24:00.0', speedMbps: 10000 }),
      interfaces: [],
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'pcie-max-payload-small',
        severity: 'info',
        data: { address: '24:00.0', configuredBytes: 256, supportedBytes: 512, maxReadRequestBytes: 512 },
      }),
    ]);
    const quiet = await tester.run(
      { 'pcie.link': fact, 'net.device': netDevice('enp36s0f0', { speedMbps: 10000 }), interfaces: [] },
      { options: { reportMaxPayload: false } },
    );
    expect(quiet.findings).toEqual([]);
  });

  it('honours a different transaction efficiency option', async () => {
    // Gen3 x2 is 15.75 Gb/s encoded: enough for 10G at 0.89, not at a pessimistic 0.6.
    const fact = pcie(reading(8, 2, 8, 2));
    expect((await tester.run({ 'pcie.link': fact, 'net.device': netDevice('eth0'), interfaces: [] })).status).toBe('pass');
    const strict = await tester.run(
      { 'pcie.link': fact, 'net.device': netDevice('eth0'), interfaces: [] },
      { options: { transactionEfficiency: 0.6 } },
    );
    expect(strict.findings.map((finding) => finding.symptom)).toEqual(['pcie-bandwidth-below-port']);
  });
});

describe('pcie-link check: not applicable and unknown', () => {
  it('is not applicable to an interface with no PCI device (veth, bridge)', async () => {
    const result = await tester.run(
      {
        'pcie.link': { present: false, reason: 'veth0 is not a PCI device (virtual)' },
        'net.device': netDevice('veth0', { kind: 'virtual', pciAddress: null, pciPath: null }),
        interfaces: [],
      },
      { interfaces: [{ name: 'veth0' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toBe('veth0 is not a PCI device (virtual): no PCIe link to examine');
  });

  it('is unknown, not "not a PCI device", for a physical NIC whose PCI address the capture lacks', async () => {
    const result = await tester.run(
      {
        'pcie.link': { present: false, reason: 'eth0 is not a PCI device (physical, ixgbe)' },
        'net.device': netDevice('eth0', { pciAddress: null, pciPath: null }),
        interfaces: [],
      },
      { interfaces: [{ name: 'eth0', pciAddress: null }] },
    );
    expect(result.status).toBe('unknown');
    expect(result.reason).toBe('the capture does not give the PCI address of eth0 (a physical interface), so its PCIe link cannot be read');
    expect(result.reason).not.toContain('not a PCI device');
  });

  it('is not applicable to the real X550 VF whose lspci says "Speed unknown (downgraded), Width x0 (downgraded)"', async () => {
    const fact = fromLspci('lspci/intel-x550-vf-unknown-1.txt', '25:10.0');
    const vf = { ...(fact as Extract<PcieLink, { present: true }>), virtualFunction: true, physicalFunction: '0000:24:00.0' };
    const result = await tester.run(
      { 'pcie.link': vf, 'net.device': netDevice('enp37s16', { driver: 'ixgbevf' }), interfaces: [] },
      { interfaces: [{ name: 'enp37s16' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toMatch(/SR-IOV virtual function of 0000:24:00\.0/);
    expect(result.findings).toEqual([]);
  });

  it('is not applicable to the X722 inside the Lewisburg PCH despite its 2.5 GT/s x1 reading (real sysfs ids)', async () => {
    const base = 'sysfs/intel-x722-lewisburg-hwloc-1/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0/0000:60:00.0';
    const fact = pcie(reading(2.5, 1, 8, 1, '0000:60:00.0'), {
      address: '0000:60:00.0',
      vendorId: realCapture(`${base}/vendor`).trim(),
      deviceId: realCapture(`${base}/device`).trim(),
    });
    const result = await tester.run(
      { 'pcie.link': fact, 'net.device': netDevice('enp96s0f0', { driver: 'i40e', speedMbps: 1000 }), interfaces: [] },
      { interfaces: [{ name: 'enp96s0f0' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toMatch(/X722.*not its data path/);
  });

  it('is not applicable to a device without PCI Express link registers', async () => {
    const result = await tester.run({ 'pcie.link': pcie(null), 'net.device': netDevice('eth0'), interfaces: [] });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('no PCI Express link registers');
  });

  it('is unknown when the link speed or width reads "Unknown"/0 on a physical function', async () => {
    const result = await tester.run({ 'pcie.link': pcie(reading(null, 0, 8, 8)), 'net.device': netDevice('eth0'), interfaces: [] });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('could not be read');
    expect(result.hint).toContain(`lspci -vv -s ${ADDRESS}`);
  });

  it('is unknown, with the hint, when lspci hid the capabilities (not root)', async () => {
    const result = await tester.run({
      'pcie.link': failed(
        'permission-denied',
        '`lspci -vv -s 0000:01:00.0`: capabilities hidden (<access denied>)',
        'run nicdoctor as root',
      ),
      'net.device': netDevice('eth0'),
      interfaces: [],
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('access denied');
    expect(result.hint).toBe('run nicdoctor as root');
  });
});
