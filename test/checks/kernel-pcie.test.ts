import { describe, expect, it } from 'vitest';
import kernelPcie from '../../checks/kernel-pcie.js';
import { parseKernelPcieReports } from '../../src/parsers/kernel-log.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const reports = (file: string) => parseKernelPcieReports(realCapture(file));

const tester = checkTester(kernelPcie);

describe("kernel-pcie check (the drivers' PCIe bandwidth lines)", () => {
  it('flags an ixgbe 10G port on 4 GT/s of PCIe: about 3.6 Gb/s of traffic, critical (real PF_RING user dmesg)', async () => {
    const result = await tester.run({ 'kernel.pcie': reports('dmesg/ixgbe-pcie-4gts-partial-1.txt') }, { interfaces: [] });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'pcie-bandwidth-limited',
        severity: 'critical',
        subject: 'host',
        data: expect.objectContaining({ address: '0000:07:00.0', availableGbps: 4, ceilingGbps: 3.56, portGbps: 10 }),
      }),
    ]);
    expect(result.findings[0]!.message).toMatchInlineSnapshot(
      `"ixgbe 0000:07:00.0: the kernel reports 4 Gb/s of PCIe bandwidth: about 3.56 Gb/s of NIC traffic, below the 10 Gb/s of the slowest ixgbe port: the slot, not the network, sets the ceiling"`,
    );
  });

  it('passes a ConnectX-5 on Gen3 x8 (63 Gb/s, no "limited by") and a 2.5G i226 on Gen2 x1 (4 Gb/s) (real Ampere and Raspberry Pi 5 logs)', async () => {
    for (const file of ['dmesg/mlx5-cx5-pcie-bw-arm-1.txt', 'dmesg/igc-i226-pcie-bw-pi5-1.txt', 'dmesg/igb-pcie-width-lines-1.txt']) {
      const result = await tester.run({ 'kernel.pcie': reports(file) }, { interfaces: [] });
      expect(result.status, file).toBe('pass');
      expect(result.findings, file).toEqual([]);
    }
  });

  it('asks for the port speed on "limited by" when none is known, only notes it when the known port still fits, critical when it caps the port', async () => {
    const line =
      '[10380.315885] mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s x16 link)\n';
    const unknownPort = await tester.run({ 'kernel.pcie': parseKernelPcieReports(line) }, { interfaces: [] });
    expect(unknownPort.findings[0]).toMatchObject({
      severity: 'warning',
      data: { limitingAddress: '0000:b2:00.0', carriesPort: 'unknown' },
    });
    expect(unknownPort.findings[0]!.fix).toMatch(/^Give the port speed to judge it: ethtool <interface> \(Speed:\)/);
    expect(unknownPort.findings[0]!.message).toMatchInlineSnapshot(
      `"mlx5_core 0000:b3:00.1: the kernel reports 63.01 Gb/s of PCIe bandwidth, limited by a 8 GT/s x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s x16): about 56.08 Gb/s of NIC traffic, below what the card can do (252.048 Gb/s); whether it caps the port depends on the port speed, which the capture does not show"`,
    );
    const fits = await tester.run(
      { 'kernel.pcie': parseKernelPcieReports(line) },
      { interfaces: [{ name: 'ens1f1', pciAddress: '0000:b3:00.1', speedMbps: 25_000 }] },
    );
    expect(fits.findings[0]).toMatchObject({ severity: 'info', subject: 'ens1f1', data: { carriesPort: 'yes' } });
    expect(fits.findings[0]!.fix).not.toContain('Give the port speed');
    expect(fits.findings[0]!.message).toMatchInlineSnapshot(
      `"mlx5_core 0000:b3:00.1 (ens1f1): the kernel reports 63.01 Gb/s of PCIe bandwidth, limited by a 8 GT/s x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s x16): about 56.08 Gb/s of NIC traffic, enough for the 25 Gb/s port, though below what the card can do"`,
    );
    const caps = await tester.run(
      { 'kernel.pcie': parseKernelPcieReports(line) },
      { interfaces: [{ name: 'ens1f1', pciAddress: '0000:b3:00.1', speedMbps: 100_000 }] },
    );
    expect(caps.findings[0]).toMatchObject({ severity: 'critical', subject: 'ens1f1', data: { portGbps: 100, carriesPort: 'no' } });
  });

  it('reads syslog-prefixed ixgbe lines with their link, and is not applicable when the log has no such line', async () => {
    const parsed = reports('dmesg/ixgbe-syslog-pcie-rss-1.txt');
    expect(parsed[0]).toMatchObject({ driver: 'ixgbe', address: '0000:06:00.1', availableGbps: 32, link: 'Speed:5.0GT/s, Width: x8' });
    const none = await tester.run({ 'kernel.pcie': [] }, { interfaces: [] });
    expect(none.status).toBe('not-applicable');
  });
});
