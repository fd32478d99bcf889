import { describe, expect, it } from 'vitest';
import mtu from '../../checks/mtu.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(mtu);

describe('mtu check', () => {
  it('passes a 10G link with jumbo frames', async () => {
    const device = netDevice('eth0', { mtu: 9000 });
    const result = await tester.run({ 'net.device': device, interfaces: [device] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('notes the goodput ceiling of MTU 1500 on a 10G link, without failing', async () => {
    const device = netDevice('eth0', { mtu: 1500, speedMbps: 10000 });
    const result = await tester.run({ 'net.device': device, interfaces: [device] });
    expect(result.status).toBe('pass');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ symptom: 'standard-mtu-fast-link', severity: 'info', subject: 'eth0' });
    expect(result.findings[0]!.message).toContain('9.41 Gb/s');
    expect(result.findings[0]!.message).toContain('9.90 Gb/s');
    // The ceilings are wording derived from the data, not stored in it.
    expect(result.findings[0]!.data).toEqual({ mtu: 1500, linkGbps: 10, jumboMtu: 9000, probeSize: 8972 });
  });

  it('says nothing about MTU 1500 on a 1G link', async () => {
    const device = netDevice('eth0', { mtu: 1500, speedMbps: 1000 });
    const result = await tester.run({ 'net.device': device, interfaces: [device] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails a bond member whose MTU differs from the bond', async () => {
    const bond = netDevice('bond0', { kind: 'bond', mtu: 9000, bondSlaves: ['eth0', 'eth1'], pciAddress: null });
    const member = netDevice('eth1', { mtu: 1500, master: 'bond0', speedMbps: 1000 });
    const result = await tester.run(
      { 'net.device': (subject) => (subject === 'bond0' ? bond : member), interfaces: [bond, member] },
      { interfaces: [{ name: 'bond0', kind: 'bond' }, { name: 'eth1' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'bond-member-mtu-mismatch',
        severity: 'warning',
        subject: 'eth1',
        data: { mtu: 1500, master: 'bond0', masterMtu: 9000 },
      }),
    ]);
    expect(result.subjects.map((s) => s.status)).toEqual(['pass', 'fail']);
  });

  it('notes an Ethernet MTU below the standard 1500 (a tunnel or cloud setting)', async () => {
    const device = netDevice('eth0', { mtu: 1450, speedMbps: 25000, linkType: 1 });
    const result = await tester.run({ 'net.device': device, interfaces: [device] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'mtu-below-standard', severity: 'info', data: { mtu: 1450, standardMtu: 1500 } }),
    ]);
    expect(result.findings[0]!.message).toBe(
      'eth0 uses MTU 1450, below the Ethernet standard 1500 (normal for tunnels and some clouds; lowers goodput slightly)',
    );
  });

  it('judges an overlay by its overhead on the underlay: flannel.1 at 1450 on eth0 at 1500 fits, a VXLAN at 1500 does not', async () => {
    const eth0 = netDevice('eth0', { mtu: 1500 });
    const flannel = netDevice('flannel.1', {
      kind: 'virtual',
      softwareType: 'vxlan',
      driver: null,
      pciAddress: null,
      speedMbps: null,
      mtu: 1450,
    });
    const fits = await tester.run(
      { 'net.device': flannel, interfaces: [eth0, flannel] },
      { interfaces: [{ name: 'flannel.1', kind: 'virtual' }] },
    );
    expect(fits.status).toBe('pass');
    // 1450 is right for VXLAN on 1500: no "below the Ethernet standard" note either.
    expect(fits.findings).toEqual([]);

    const vxlan = netDevice('vxlan100', {
      kind: 'virtual',
      softwareType: 'vxlan',
      driver: null,
      pciAddress: null,
      speedMbps: null,
      mtu: 1500,
    });
    const tooBig = await tester.run(
      { 'net.device': vxlan, interfaces: [eth0, vxlan] },
      { interfaces: [{ name: 'vxlan100', kind: 'virtual' }] },
    );
    expect(tooBig.findings).toEqual([
      expect.objectContaining({
        symptom: 'overlay-mtu-exceeds-underlay',
        severity: 'warning',
        data: { mtu: 1500, tunnel: 'vxlan', overheadBytes: 50, underlayMtu: 1500, underlay: 'eth0', fittingMtu: 1450 },
      }),
    ]);
    expect(tooBig.findings[0]!.fix).toContain('ip link set dev vxlan100 mtu 1450');
  });

  it('does not judge the MTU 65000 of an Open vSwitch tunnel port, nor a guest tap', async () => {
    const eth0 = netDevice('eth0', { mtu: 1500 });
    for (const [name, softwareType] of [
      ['genev_sys_6081', 'geneve'],
      ['vxlan_sys_4789', 'vxlan'],
      ['vnet3', 'tun'],
    ] as const) {
      const port = netDevice(name, { kind: 'virtual', softwareType, driver: null, pciAddress: null, speedMbps: null, mtu: 65000 });
      const result = await tester.run({ 'net.device': port, interfaces: [eth0, port] }, { interfaces: [{ name, kind: 'virtual' }] });
      expect(result.status, name).toBe('not-applicable');
      expect(result.findings, name).toEqual([]);
    }
  });

  it('is unknown when the MTU cannot be read', async () => {
    const device = netDevice('eth0', { mtu: null });
    const result = await tester.run({ 'net.device': device, interfaces: [device] });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('mtu');
  });

  it('is unknown, with the reason, when the interface facts could not be read', async () => {
    const result = await tester.run({
      'net.device': failed('permission-denied', '/sys/class/net/eth0: permission denied', 'run as root'),
      interfaces: [],
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('permission denied');
    expect(result.hint).toBe('run as root');
  });

  it('has nothing to judge (not applicable) when no interface is selected', async () => {
    const result = await tester.run({ interfaces: [] }, { interfaces: [] });
    expect(result.status).toBe('not-applicable');
  });
});
