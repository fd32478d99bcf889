import { describe, expect, it } from 'vitest';
import coalescing from '../../checks/coalescing.js';
import { parseEthtoolCoalesce } from '../../src/parsers/ethtool-coalesce.js';
import { parseEthtoolDriver } from '../../src/parsers/ethtool-driver.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const coalesce = (name: string) => parseEthtoolCoalesce(realCapture(name));

const tester = checkTester(coalescing);

describe('coalescing check, throughput profile', () => {
  it('passes adaptive coalescing (real i40e capture)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'i40e' }),
      'ethtool.coalesce': coalesce('ethtool/i40e-c-netutils-x710-e3-1271-eth0.txt'),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it.each([
    ['ixgbe rx-usecs 1 (dynamic ITR)', 'ixgbe', 'ethtool/ixgbe-c-netutils-ixgbe-82599-2xE5-2640-eth2.txt'],
    ['igb rx-usecs 3 (dynamic conservative)', 'igb', 'ethtool/igb-c-netutils-igb-82576-2xE5530-eth2.txt'],
    ['qlcnic batching 256 frames', 'qlcnic', 'ethtool/qlcnic-c-netutils-qlcnic-2xE5-2687W-eth0.txt'],
    ['tg3 rx-usecs 20', 'tg3', 'ethtool/tg3-c-netutils-mlx4-be2net-2xE5-2690-eth0.txt'],
  ])('passes %s (real capture)', async (_, driver, name) => {
    const result = await tester.run({ 'net.device': netDevice('eth0', { driver }), 'ethtool.coalesce': coalesce(name) });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails an interrupt per packet and proposes adaptive coalescing (real skge capture)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth5', { driver: 'skge', speedMbps: 1000 }),
        'ethtool.coalesce': coalesce('ethtool/skge-c-netutils-i350-r8169-mixed-i3-eth5.txt'),
      },
      { interfaces: [{ name: 'eth5' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'interrupt-per-packet',
        severity: 'warning',
        subject: 'eth5',
        fix: 'ethtool -C eth5 adaptive-rx on adaptive-tx on',
      }),
    ]);
    expect(result.findings[0]!.message).toContain('rx-usecs 0');
    expect(result.findings[0]!.message).toContain('for a throughput host');
    expect(result.findings[0]!.evidence[1]).toMatchObject({ label: 'rx-usecs', observed: 0, unit: 'µs', expected: '> 1 or adaptive' });
  });

  it('only notes an interrupt-per-packet setting on a port whose vectors never fired since boot', async () => {
    const idleIrqs = {
      cpus: [0, 1],
      msiIrqs: [],
      irqs: [{ irq: 19, name: 'eth5', role: 'queue' as const, counts: [0, 0], affinity: null, effectiveAffinity: null, shared: false }],
    };
    const result = await tester.run(
      {
        'net.device': netDevice('eth5', { driver: 'skge', speedMbps: 1000 }),
        'ethtool.coalesce': coalesce('ethtool/skge-c-netutils-i350-r8169-mixed-i3-eth5.txt'),
        'nic.irqs': idleIrqs,
      },
      { interfaces: [{ name: 'eth5' }] },
    );
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'interrupt-per-packet', severity: 'info' })]);
  });

  it("proposes the driver's own dynamic mode for Intel ITR drivers (real e1000 capture, rx-usecs 0)", async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'e1000' }),
      'ethtool.coalesce': coalesce('ethtool/e1000-c-netutils-kvm-e1000-guest-eth0.txt'),
    });
    expect(result.status).toBe('fail');
    expect(result.findings[0]).toMatchObject({ symptom: 'interrupt-per-packet', fix: 'ethtool -C eth0 rx-usecs 3' });
  });

  it('fails rx-usecs 1 on a driver where it is a real 1 µs delay', async () => {
    const bnx2 = { ...coalesce('ethtool/bnx2-c-netutils-mlx4-cx3pro-2xX5650-eth0.txt'), rxUsecs: 1, rxFrames: 1 };
    const result = await tester.run({ 'net.device': netDevice('eth0', { driver: 'bnx2' }), 'ethtool.coalesce': bnx2 });
    expect(result.status).toBe('fail');
  });

  it('reads rx-usecs 1 as ixgbe dynamic ITR when only ethtool -i names the driver, and only notes it when nothing does (real ixgbe captures of the same host)', async () => {
    const ixgbe = coalesce('ethtool/ixgbe-c-netutils-ixgbe-82599-2xE5-2640-eth2.txt');
    const fromEthtoolI = await tester.run({
      'net.device': netDevice('eth2', { driver: null }),
      'ethtool.coalesce': ixgbe,
      'ethtool.driver': parseEthtoolDriver(realCapture('ethtool/ixgbe-i-netutils-ixgbe-82599-2xE5-2640-eth2.txt')),
    });
    expect(fromEthtoolI.status).toBe('pass');
    expect(fromEthtoolI.findings).toEqual([]);

    const unknownDriver = await tester.run({ 'net.device': netDevice('eth2', { driver: null }), 'ethtool.coalesce': ixgbe });
    expect(unknownDriver.status).toBe('pass');
    expect(unknownDriver.findings).toEqual([expect.objectContaining({ symptom: 'interrupt-per-packet', severity: 'info' })]);
    expect(unknownDriver.findings[0]!.message).toContain('the driver is not known');
  });

  it('is not fooled by adaptive TX alone: receive interrupts are still per packet', async () => {
    const txOnly = { ...coalesce('ethtool/skge-c-netutils-i350-r8169-mixed-i3-eth5.txt'), adaptiveTx: true };
    const result = await tester.run({ 'net.device': netDevice('eth0', { driver: 'skge' }), 'ethtool.coalesce': txOnly });
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['interrupt-per-packet']);
  });

  it('leaves a paravirtual NIC alone: the hypervisor, not the guest, moderates its interrupts (real virtio_net capture)', async () => {
    const device = netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net' });
    const result = await tester.run(
      { 'net.device': device, 'ethtool.coalesce': coalesce('local-vm/ethtool_-c-virtio_net-eth0.txt') },
      { interfaces: [{ name: 'eth0', kind: 'paravirtual', driver: 'virtio_net' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.findings).toEqual([]);
    expect(result.reason).toContain('set by the hypervisor');
  });
});

describe('coalescing check, measurement profile', () => {
  it('notes adaptive coalescing, which perfSONAR-style hosts turn off (real mlx4 capture)', async () => {
    const result = await tester.run(
      { 'net.device': netDevice('eth2', { driver: 'mlx4_en' }), 'ethtool.coalesce': coalesce('ethtool/mlx4_en-c-adaptive-gcode-1.txt') },
      { profile: 'measurement', interfaces: [{ name: 'eth2' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'adaptive-coalescing-on', severity: 'info', fix: 'ethtool -C eth2 adaptive-rx off' }),
    ]);
    expect(result.findings[0]!.message).toContain('RX on, TX off');
    expect(result.findings[0]!.message).toContain('perfSONAR');
  });

  it('counts the Intel dynamic ITR mode as adaptive (real ixgbe capture)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth2', { driver: 'ixgbe' }),
        'ethtool.coalesce': coalesce('ethtool/ixgbe-c-netutils-ixgbe-82599-2xE5-2640-eth2.txt'),
      },
      { profile: 'measurement', interfaces: [{ name: 'eth2' }] },
    );
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'adaptive-coalescing-on', fix: 'ethtool -C eth2 rx-usecs 0' })]);
    expect(result.findings[0]!.message).toContain('ixgbe rx-usecs 1 is its dynamic throttling mode');
  });

  it('passes fixed coalescing with nothing to note, even one interrupt per packet (real skge capture)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth0', { driver: 'skge' }),
        'ethtool.coalesce': coalesce('ethtool/skge-c-netutils-i350-r8169-mixed-i3-eth5.txt'),
      },
      { profile: 'measurement' },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });
});

describe('coalescing check, latency profile', () => {
  it('passes a short fixed delay (real bnx2 capture, rx-usecs 18)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth0', { driver: 'bnx2' }),
        'ethtool.coalesce': coalesce('ethtool/bnx2-c-netutils-mlx4-cx3pro-2xX5650-eth0.txt'),
      },
      { profile: 'latency' },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails a long fixed delay: rx-usecs 80 is about 12,500 interrupts/s per queue', async () => {
    const slow = { ...coalesce('ethtool/bnx2-c-netutils-mlx4-cx3pro-2xX5650-eth0.txt'), rxUsecs: 80 };
    const result = await tester.run(
      { 'net.device': netDevice('eth0', { driver: 'bnx2' }), 'ethtool.coalesce': slow },
      { profile: 'latency' },
    );
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'high-rx-usecs',
        severity: 'warning',
        fix: 'ethtool -C eth0 adaptive-rx off rx-usecs 50',
        data: expect.objectContaining({ rxUsecs: 80, interruptsPerSecond: 12500 }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('for a latency host');
  });

  it('follows a raised limit from the options', async () => {
    const slow = { ...coalesce('ethtool/bnx2-c-netutils-mlx4-cx3pro-2xX5650-eth0.txt'), rxUsecs: 80 };
    const result = await tester.run(
      { 'net.device': netDevice('eth0', { driver: 'bnx2' }), 'ethtool.coalesce': slow },
      { profile: 'latency', options: { latencyMaxRxUsecs: 100 } },
    );
    expect(result.status).toBe('pass');
  });

  it('notes adaptive coalescing and how far it may raise the delay (real mlx4 capture)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth6', { driver: 'mlx4_en' }),
        'ethtool.coalesce': coalesce('ethtool/mlx4_en-c-netutils-mlx4-be2net-2xE5-2690-eth6.txt'),
      },
      { profile: 'latency', interfaces: [{ name: 'eth6' }] },
    );
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'adaptive-coalescing-on', severity: 'info' })]);
    expect(result.findings[0]!.message).toContain('rx-usecs-high 128');
  });
});

describe('coalescing check, without data', () => {
  it('is not applicable when the driver has no coalescing settings (veth)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { kind: 'virtual' }),
      'ethtool.coalesce': failed('unsupported', '`ethtool -c eth0`: the driver does not support this'),
    });
    expect(result.status).toBe('not-applicable');
  });

  it('is unknown, with the hint, when ethtool is missing', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0'),
      'ethtool.coalesce': failed('tool-missing', 'ethtool: command not found', 'install ethtool'),
    });
    expect(result.status).toBe('unknown');
    expect(result.hint).toBe('install ethtool');
  });

  it('is unknown when the driver reports neither adaptive mode nor rx-usecs', async () => {
    const empty = { ...coalesce('ethtool/unknown-c-newfmt-cqe-1.txt'), rxUsecs: null };
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.coalesce': empty });
    expect(result.status).toBe('unknown');
  });
});
