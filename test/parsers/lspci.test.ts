import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { findLspciDevice, parseLspci, type LspciDevice } from '../../src/parsers/lspci.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const LSPCI = realCaptures('lspci');
const LOCAL_VM = realCaptures('local-vm', /^lspci-/);

function only(file: string): LspciDevice {
  const devices = parseLspci(realCapture(file));
  expect(devices).toHaveLength(1);
  return devices[0]!;
}

describe('parseLspci over every real capture', () => {
  it('covers all the captures (24 in lspci/, 2 from the local VM)', () => {
    expect(LSPCI).toHaveLength(24);
    expect(LOCAL_VM).toHaveLength(2);
  });

  it.each([...LSPCI, ...LOCAL_VM])('%s parses without throwing', (file) => {
    const devices = parseLspci(realCapture(file));
    expect(devices.length).toBeGreaterThan(0);
    for (const device of devices) {
      // A link status, when present, is never invented: a number or an explicit null.
      if (device.linkStatus) expect(device.linkStatus.width === null || device.linkStatus.width >= 0).toBe(true);
    }
  });

  // Expected values from fixtures/real/SOURCES.md.
  const table: Array<{
    file: string;
    cap: [number | null, number | null];
    sta: [number | null, number | null];
    markers?: [string | null, string | null];
    address?: string | null;
  }> = [
    { file: 'lspci/broadcom-bcm57416-downgraded-1.txt', address: '09:00.0', cap: [8, 8], sta: [8, 4], markers: [null, 'downgraded'] },
    { file: 'lspci/amd-600chipset-dsp-parent-of-bcm57416-1.txt', address: '02:08.0', cap: [16, 4], sta: [8, 4], markers: [null, null] },
    {
      file: 'lspci/amd-rome-rootport-empty-strange-1.txt',
      address: '00:03.1',
      cap: [16, 4],
      sta: [2.5, 16],
      markers: ['downgraded', 'strange'],
    },
    { file: 'lspci/fragment-ancientfmt-gpu-x16-at-x8-1.txt', address: '01:00.0', cap: [2.5, 16], sta: [2.5, 8], markers: [null, null] },
    { file: 'lspci/fragment-grep-speed-downgraded-1.txt', address: null, cap: [16, 4], sta: [8, 2], markers: ['downgraded', 'downgraded'] },
    { file: 'lspci/fragment-oldfmt-x8-at-x4-1.txt', address: null, cap: [8, 8], sta: [8, 4], markers: [null, null] },
    { file: 'lspci/fragment-oldfmt-x8card-in-x4slot-1.txt', address: null, cap: [5, 8], sta: [2.5, 4], markers: [null, null] },
    { file: 'lspci/grep-lnkcap-lnksta-gen5-1.txt', address: null, cap: [32, 16], sta: [32, 16] },
    { file: 'lspci/intel-c220-rootport-oldfmt-1.txt', address: '00:1c.1', cap: [5, 1], sta: [2.5, 1], markers: [null, null] },
    { file: 'lspci/intel-i210-oldfmt-1.txt', address: '03:00.0', cap: [2.5, 1], sta: [2.5, 1], markers: [null, null] },
    { file: 'lspci/intel-x550-vf-unknown-1.txt', address: '25:10.0', cap: [8, 4], sta: [null, 0], markers: ['downgraded', 'downgraded'] },
    { file: 'lspci/intel-x550t-ok-sriov-1.txt', address: '24:00.0', cap: [8, 4], sta: [8, 4], markers: ['ok', 'ok'] },
  ];
  it.each(table)('$file: LnkCap $cap, LnkSta $sta', ({ file, cap, sta, markers, address }) => {
    const device = only(file);
    if (address !== undefined) expect(device.address).toBe(address);
    expect([device.linkCapability?.speedGts, device.linkCapability?.width]).toEqual(cap);
    expect([device.linkStatus?.speedGts, device.linkStatus?.width]).toEqual(sta);
    if (markers) expect([device.linkStatus?.speedMarker, device.linkStatus?.widthMarker]).toEqual(markers);
  });

  it('reads the BCM57416 block in full: type, LnkCap2/LnkCtl2/LnkSta2, MaxPayload, driver', () => {
    expect(only('lspci/broadcom-bcm57416-downgraded-1.txt')).toEqual({
      address: '09:00.0',
      description:
        'Ethernet controller [0200]: Broadcom Inc. and subsidiaries BCM57416 NetXtreme-E Dual-Media 10G RDMA Ethernet Controller [14e4:16d8] (rev 01)',
      expressType: 'Endpoint',
      virtualFunction: false,
      capabilitiesAccessDenied: false,
      linkCapability: { speedGts: 8, width: 8, port: 0 },
      linkStatus: { speedGts: 8, width: 4, speedMarker: null, widthMarker: 'downgraded' },
      linkCapability2MaxSpeedGts: 8,
      targetSpeedGts: 2.5,
      equalizationComplete: true,
      maxPayloadSupportedBytes: 512,
      maxPayloadBytes: 512,
      maxReadRequestBytes: 512,
      kernelDriver: 'bnxt_en',
      kernelModules: 'bnxt_en',
      aspm: 'disabled',
    });
  });

  it('reads the ASPM state of LnkCtl (real I210 capture: L1 enabled)', () => {
    const devices = parseLspci(realCapture('lspci/intel-i210-oldfmt-1.txt'));
    expect(devices.some((device) => device.aspm === 'L1')).toBe(true);
  });

  it('tells bridges by their Express type and reads LnkCap2 ranges', () => {
    const port = only('lspci/amd-600chipset-dsp-parent-of-bcm57416-1.txt');
    expect(port.expressType).toBe('Downstream Port');
    expect(port.linkCapability2MaxSpeedGts).toBe(16);
    expect(port.targetSpeedGts).toBe(16);
    expect(only('lspci/amd-rome-rootport-empty-strange-1.txt').expressType).toBe('Root Port');
    expect(only('lspci/intel-c220-rootport-oldfmt-1.txt').expressType).toBe('Root Port');
  });

  it('reads MaxPayload / MaxReadReq in the old (3.5) and new wordings', () => {
    expect(only('lspci/intel-i210-oldfmt-1.txt')).toMatchObject({
      maxPayloadSupportedBytes: 512,
      maxPayloadBytes: 128,
      maxReadRequestBytes: 512,
      kernelDriver: 'igb',
      linkCapability2MaxSpeedGts: null,
    });
    expect(only('lspci/intel-x550t-ok-sriov-1.txt')).toMatchObject({
      maxPayloadSupportedBytes: 512,
      maxPayloadBytes: 256,
      maxReadRequestBytes: 512,
      kernelDriver: 'ixgbe',
    });
    expect(only('lspci/intel-c220-rootport-oldfmt-1.txt')).toMatchObject({
      maxPayloadSupportedBytes: 128,
      maxPayloadBytes: 128,
      maxReadRequestBytes: 128,
    });
  });

  it('marks the X550 VF as a virtual function with an unknown x0 link', () => {
    const vf = only('lspci/intel-x550-vf-unknown-1.txt');
    expect(vf.virtualFunction).toBe(true);
    expect(vf.kernelDriver).toBe('vfio-pci');
    expect(vf.maxPayloadBytes).toBe(128);
  });

  it('reads headerless grep fragments, including LnkCap2/LnkCtl2 lines', () => {
    const amdgpu = only('lspci/grep-lnk-fragment-amdgpu-1.txt');
    expect(amdgpu.address).toBeNull();
    expect(amdgpu.linkCapability).toBeNull();
    expect(amdgpu.linkStatus).toEqual({ speedGts: 16, width: 16, speedMarker: null, widthMarker: null });
    expect(amdgpu.linkCapability2MaxSpeedGts).toBe(16);
    expect(amdgpu.targetSpeedGts).toBe(16);
    expect(only('lspci/fragment-grep-speed-downgraded-1.txt').targetSpeedGts).toBe(16);
  });

  it('reports no link (not an error) for `lspci -v`, plain `lspci` and `-mmv` listings', () => {
    const mellanox = only('lspci/mellanox-cx3pro-lspci-v-1.txt');
    expect(mellanox).toMatchObject({
      address: '01:00.0',
      expressType: 'Endpoint',
      linkStatus: null,
      linkCapability: null,
      kernelDriver: 'mlx4_core',
    });

    const plain = parseLspci(realCapture('lspci/plain-ixgbe-82599-2xE5-2640-netutils.txt'));
    expect(plain).toHaveLength(128);
    expect(findLspciDevice(plain, '0000:81:00.0')).toMatchObject({
      description: 'Ethernet controller: Intel Corporation 82599ES 10-Gigabit SFI/SFP+ Network Connection (rev 01)',
      linkStatus: null,
    });
    for (const file of LSPCI.filter((name) => name.includes('/plain-'))) {
      expect(parseLspci(realCapture(file)).every((device) => device.address !== null && device.linkStatus === null)).toBe(true);
    }

    const machine = parseLspci(realCapture('lspci/jc-ubuntu2010-lspci-nnmmv.txt'));
    expect(machine[0]).toMatchObject({
      address: '00:00.0',
      description: '440BX/ZX/DX - 82443BX/ZX/DX Host bridge [7190]',
      linkStatus: null,
    });
  });

  it('finds no PCI Express link on the firecracker virtio NIC', () => {
    for (const file of LOCAL_VM) {
      const devices = parseLspci(realCapture(file));
      expect(devices.map((device) => device.address)).toEqual(['00:00.0', '00:01.0', '00:02.0', '00:03.0', '00:04.0', '00:05.0']);
      const nic = findLspciDevice(devices, '0000:00:03.0')!;
      expect(nic.description).toMatch(/Virtio 1\.0 network device/);
      expect(nic).toMatchObject({ expressType: null, linkStatus: null, linkCapability: null, kernelDriver: 'virtio-pci' });
    }
  });
});

describe('parseLspci edge cases', () => {
  it('flags `Capabilities: <access denied>` (lspci run without root)', () => {
    const [device] = parseLspci(
      '09:00.0 Ethernet controller: Broadcom Inc. BCM57416\n\tSubsystem: ASRock\n\tCapabilities: <access denied>\n\tKernel driver in use: bnxt_en\n',
    );
    expect(device).toMatchObject({ address: '09:00.0', capabilitiesAccessDenied: true, linkStatus: null, kernelDriver: 'bnxt_en' });
  });

  it('reads the pciutils 2.2 "Link:" / "Device:" wording', () => {
    const text = [
      '02:00.0 Ethernet controller: Intel Corporation 82571EB Gigabit Ethernet Controller (rev 06)',
      '\tCapabilities: [e0] Express Endpoint IRQ 0',
      '\t\tDevice: Supported: MaxPayload 256 bytes, PhantFunc 0, ExtTag-',
      '\t\tDevice: MaxPayload 128 bytes, MaxReadReq 512 bytes',
      '\t\tLink: Supported Speed 2.5Gb/s, Width x4, ASPM L0s, Port 0',
      '\t\tLink: Latency L0s <4us, L1 <64us',
      '\t\tLink: Speed 2.5Gb/s, Width x1',
    ].join('\n');
    expect(parseLspci(text)[0]).toMatchObject({
      expressType: 'Endpoint',
      linkCapability: { speedGts: 2.5, width: 4, port: 0 },
      linkStatus: { speedGts: 2.5, width: 1, speedMarker: null, widthMarker: null },
      maxPayloadSupportedBytes: 256,
      maxPayloadBytes: 128,
      maxReadRequestBytes: 512,
    });
  });

  it('reads domain-qualified addresses (lspci -D, or a non-zero domain)', () => {
    const devices = parseLspci(
      '0004:01:00.0 Ethernet controller: Mellanox Technologies MT27800 Family [ConnectX-5]\n\t\tLnkSta:\tSpeed 8GT/s, Width x8\n',
    );
    expect(findLspciDevice(devices, '0004:01:00.0')?.linkStatus?.width).toBe(8);
    expect(findLspciDevice(devices, '0000:01:00.0')).toBeUndefined();
  });

  it('returns no device for empty output (lspci -s with no match prints nothing)', () => {
    expect(parseLspci('')).toEqual([]);
    expect(parseLspci('\n\n')).toEqual([]);
  });

  it('throws ParseError on text that is not lspci output', () => {
    expect(() => parseLspci('Settings for eth0:\n\tSpeed: 10000Mb/s\n')).toThrow(ParseError);
    expect(() => parseLspci('garbage')).toThrow(/not lspci output/);
  });

  it('throws ParseError on a truncated link line instead of inventing values', () => {
    expect(() => parseLspci('LnkCap: Port #0, Speed 8GT/s, Wid')).toThrow(ParseError);
    expect(() => parseLspci('09:00.0 Ethernet controller: X\n\t\tLnkSta:\tSpeed')).toThrow(/link status not understood/);
  });
});
