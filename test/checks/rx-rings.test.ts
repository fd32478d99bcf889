import { describe, expect, it } from 'vitest';
import rxRings from '../../checks/rx-rings.js';
import { parseEthtoolRings } from '../../src/parsers/ethtool-rings.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(rxRings);

const rings = (name: string) => parseEthtoolRings(realCapture(name));

describe('rx-rings check', () => {
  it('passes rings at their maximum (real mlx5 capture, 100G)', async () => {
    const device = netDevice('eth0', { driver: 'mlx5_core', speedMbps: 100_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.rings': rings('ethtool/mlx5_core-g-ohai-1.txt') });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('notes RX and TX rings below the maximum on a 10G host, with the real maxima in the fix: a setting, not a symptom, until drops show (real i40e capture)', async () => {
    const device = netDevice('eth0', { driver: 'i40e', speedMbps: 10_000 });
    const result = await tester.run({ 'net.device': device, 'ethtool.rings': rings('ethtool/i40e-g-netutils-x710-e3-1271-eth0.txt') });
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['rx-ring-below-max', 'info'],
      ['tx-ring-below-max', 'info'],
    ]);
    const rx = result.findings[0]!;
    expect(rx.message).toContain('RX ring 2048 of a possible 4096');
    expect(rx.message).toContain(
      'on a 10 Gb/s port bursts beyond the ring are dropped and retransmitted, which matters once ethtool -S shows drops',
    );
    expect(rx.fix).toMatch(/^ethtool -G eth0 rx 4096 tx 4096 /);
    expect(rx.data).toMatchObject({ rxCurrent: 2048, rxMax: 4096, txCurrent: 512, txMax: 4096 });
    expect(rx.evidence[0]).toMatchObject({ label: 'RX ring', observed: 2048, expected: 4096, unit: 'descriptors' });
    expect(result.findings[1]!.message).toContain('TX ring 512 of a possible 4096');
  });

  it('reads the JSON capture of a 25G port at 1024 of 8192 and offers the maxima (real capture)', async () => {
    const device = netDevice('ens5f1np1', { driver: 'mlx5_core', speedMbps: 25_000 });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.rings': rings('ethtool/unknown-g-json-1.json') },
      { interfaces: [{ name: 'ens5f1np1' }] },
    );
    expect(result.findings[0]).toMatchObject({ symptom: 'rx-ring-below-max', severity: 'info' });
    expect(result.findings[0]!.fix).toMatch(/^ethtool -G ens5f1np1 rx 8192 tx 8192/);
  });

  it('only notes short rings below 10G (real igb capture on 1G)', async () => {
    const device = netDevice('eth7', { driver: 'igb', speedMbps: 1000 });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.rings': rings('ethtool/igb-g-netutils-i350-r8169-mixed-i3-eth7.txt') },
      { interfaces: [{ name: 'eth7' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => finding.severity)).toEqual(['info', 'info']);
    expect(result.findings[0]!.message).toContain('1 Gb/s port this matters only if drops show');
  });

  it('only notes short rings on a latency host, saying why', async () => {
    const device = netDevice('eth0', { speedMbps: 10_000 });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.rings': rings('ethtool/i40e-g-netutils-x710-e3-1271-eth1.txt') },
      { profile: 'latency' },
    );
    expect(result.status).toBe('pass');
    expect(result.findings.every((finding) => finding.severity === 'info')).toBe(true);
    expect(result.findings[0]!.message).toContain('for a latency host deeper rings add queueing delay');
  });

  it('leaves out of the fix a ring the driver does not have (max 0)', async () => {
    const be2net = rings('ethtool/be2net-g-netutils-mlx4-be2net-2xE5-2690-eth4.txt');
    const device = netDevice('eth4', { driver: 'be2net', speedMbps: 10_000 });
    const atMax = await tester.run({ 'net.device': device, 'ethtool.rings': be2net }, { interfaces: [{ name: 'eth4' }] });
    expect(atMax.status).toBe('pass');
    const shortTx = { ...be2net, current: { ...be2net.current, tx: 512 } };
    const result = await tester.run({ 'net.device': device, 'ethtool.rings': shortTx }, { interfaces: [{ name: 'eth4' }] });
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['tx-ring-below-max']);
    expect(result.findings[0]!.fix).toMatch(/^ethtool -G eth4 tx 2048 /);
  });

  it('notes a driver whose maximum is tiny (real r8169 capture, cut after the maxima)', async () => {
    const device = netDevice('enp1s0', { driver: 'r8169', speedMbps: 1000 });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.rings': rings('ethtool/r8169-g-partial-1.txt') },
      { interfaces: [{ name: 'enp1s0' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'ring-max-small', severity: 'info', data: { rxMax: 255, smallRingMax: 512 } }),
    ]);
  });

  it('does not tell a guest to tune the virtio queue of the viona bug: the hypervisor sets it (real capture)', async () => {
    const device = netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net', speedMbps: null });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.rings': rings('ethtool/viona-virtio-g-1.txt') },
      { interfaces: [{ name: 'eth0', kind: 'paravirtual', driver: 'virtio_net' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('hypervisor');
  });

  it('is unknown when the output has no current sizes to compare (real r8168 capture, cut after the maxima)', async () => {
    const result = await tester.run(
      { 'net.device': netDevice('enp1s0'), 'ethtool.rings': rings('ethtool/r8168-g-partial-1.txt') },
      { interfaces: [{ name: 'enp1s0' }] },
    );
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('no current ring sizes');
  });

  it('is not applicable when the driver has no rings (veth: Operation not supported)', async () => {
    const veth = netDevice('nd-va', { kind: 'virtual', driver: null });
    const result = await tester.run(
      {
        'net.device': veth,
        'ethtool.rings': failed(
          'unsupported',
          '`ethtool -g nd-va`: the driver does not support this (netlink error: Operation not supported)',
        ),
      },
      { interfaces: [{ name: 'nd-va' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('no configurable rings');
  });

  it('is unknown, with the hint, when ethtool -g is not permitted', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0'),
      'ethtool.rings': failed('permission-denied', '`ethtool -g eth0`: permission denied', 'run nicdoctor as root (sudo nicdoctor ...)'),
    });
    expect(result.status).toBe('unknown');
    expect(result.hint).toContain('root');
  });
});
