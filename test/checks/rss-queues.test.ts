import { describe, expect, it } from 'vitest';
import rssQueues from '../../checks/rss-queues.js';
import type { NicIrqs } from '../../src/collectors/nic-irqs.js';
import { parseProcInterrupts } from '../../src/parsers/proc-interrupts.js';
import type { NetQueues } from '../../src/collectors/net-queues.js';
import { parseEthtoolChannels } from '../../src/parsers/ethtool-channels.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { nicIrqsOf } from '../helpers/nic-irqs.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(rssQueues);

const channels = (name: string) => parseEthtoolChannels(realCapture(name));
const singleQueue = (rpsCpus: string, rpsCpuCount: number): NetQueues => ({ rx: [{ index: 0, rpsCpus, rpsCpuCount }], tx: [0] });

describe('rss-queues check', () => {
  it('passes ENA using both of its 2 channels (ena-l-1)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'ena', speedMbps: null, localCpuList: '0-7' }),
      'ethtool.channels': channels('ethtool/ena-l-1.txt'),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('passes 14 of 16 channels when the NIC has only 8 local CPUs (unknown-l-14of16-1)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { localCpuList: '0-7' }),
      'ethtool.channels': channels('ethtool/unknown-l-14of16-1.txt'),
    });
    expect(result.status).toBe('pass');
  });

  it('fails a single queue on a 10G port: Combined 1 of 64 (unknown-l-combined1-1)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'i40e', speedMbps: 10000, localCpuList: '0-15' }),
      'ethtool.channels': channels('ethtool/unknown-l-combined1-1.txt'),
      'net.queues': singleQueue('00000000', 0),
    });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['single-queue-fast-port', 'warning'],
      ['rps-off-single-queue', 'info'],
    ]);
    const single = result.findings[0]!;
    expect(single.data).toMatchObject({ current: 1, max: 64, suggested: 16, localCpus: 16, linkGbps: 10 });
    expect(single.fix).toBe('ethtool -L eth0 combined 16 (one queue per NIC-local CPU, up to the driver maximum 64)');
    expect(single.message).toContain('single queue (1 of max 64) on a 10 Gb/s port');
    expect(result.findings[1]!.fix).toContain('echo ffff > /sys/class/net/eth0/queues/rx-0/rps_cpus');
  });

  it('reports Combined 1 of 64 as below the maximum when the link speed is unknown', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'i40e', speedMbps: null, localCpuList: '0-15' }),
      'ethtool.channels': channels('ethtool/unknown-l-combined1-1.txt'),
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      symptom: 'queues-below-max',
      severity: 'warning',
      fix: 'ethtool -L eth0 combined 16',
      data: { channel: 'combined', current: 1, max: 64, localCpus: 16, suggested: 16 },
    });
    expect(result.findings[0]!.evidence.map((item) => [item.label, item.observed, item.expected])).toEqual([
      ['combined channels', 1, 16],
      ['combined channels, driver maximum', 64, undefined],
      ['NIC-local CPUs', 16, undefined],
    ]);
  });

  it('only notes 8 of 64 queues when no CPU count is known (hv_netvsc-l-1 alone), and warns with the 208 online CPUs of that Azure VM', async () => {
    const device = netDevice('eth0', {
      kind: 'paravirtual',
      driver: 'hv_netvsc',
      pciAddress: null,
      pciPath: null,
      localCpuList: null,
      speedMbps: 40000,
    });
    const alone = await tester.run({ 'net.device': device, 'ethtool.channels': channels('ethtool/hv_netvsc-l-1.txt') });
    expect(alone.status).toBe('pass');
    expect(alone.findings).toEqual([expect.objectContaining({ symptom: 'queues-below-max', severity: 'info' })]);
    const online = Array.from({ length: 208 }, (_, cpu) => cpu);
    const withCpus = await tester.run({
      'net.device': device,
      'ethtool.channels': channels('ethtool/hv_netvsc-l-1.txt'),
      'cpu.topology': { online, smtActive: null, smtControl: null, cpus: [] },
    });
    expect(withCpus.status).toBe('fail');
    expect(withCpus.findings[0]!.message).toBe(
      'eth0 uses 8 combined queues where 64 are possible (driver maximum 64, 208 online CPUs): traffic is spread over fewer CPUs',
    );
    const result = alone;
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]!.data).toMatchObject({ current: 8, max: 64, localCpus: null, suggested: 64 });
    expect(result.findings[0]!.message).toBe(
      'eth0 uses 8 combined queues where 64 are possible (driver maximum 64, NIC-local CPU count unknown): traffic is spread over fewer CPUs',
    );
  });

  it('warns about 1 of 64 queues when the CPU list is missing but /proc/interrupts shows 4 CPU columns', async () => {
    const interrupts = parseProcInterrupts(
      '           CPU0       CPU1       CPU2       CPU3\n  0:         10          0          0          0   IO-APIC   2-edge      timer\n',
    );
    const device = netDevice('eth0', { driver: 'i40e', speedMbps: null, localCpuList: null });
    const result = await tester.run({
      'net.device': device,
      'ethtool.channels': channels('ethtool/unknown-l-combined1-1.txt'),
      'proc.interrupts': interrupts,
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'queues-below-max', severity: 'warning', data: expect.objectContaining({ current: 1, max: 64 }) }),
    ]);
    // 8 of 64 with only a lower bound on the CPUs stays a note: the host may have 8 CPUs.
    const parsed = channels('ethtool/unknown-l-combined1-1.txt');
    const eight = await tester.run({
      'net.device': device,
      'ethtool.channels': { ...parsed, current: { ...parsed.current, combined: 8 } },
      'proc.interrupts': interrupts,
    });
    expect(eight.findings).toEqual([expect.objectContaining({ symptom: 'queues-below-max', severity: 'info' })]);
  });

  it('warns about 1 of 4 queues in a guest with no CPU count: the hypervisor offers one queue per vCPU', async () => {
    const parsed = channels('ethtool/unknown-l-combined1-1.txt');
    const result = await tester.run({
      'net.device': netDevice('eth0', {
        kind: 'paravirtual',
        driver: 'virtio_net',
        speedMbps: null,
        localCpuList: null,
        pciAddress: null,
        pciPath: null,
      }),
      'ethtool.channels': { ...parsed, max: { ...parsed.max, combined: 4 } },
    });
    expect(result.status).toBe('fail');
    expect(result.findings[0]).toMatchObject({
      symptom: 'queues-below-max',
      severity: 'warning',
      data: { current: 1, max: 4, suggested: 4 },
    });
  });

  it('does not suggest RPS on a one-CPU guest with its one queue', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', {
        kind: 'paravirtual',
        driver: 'virtio_net',
        speedMbps: null,
        localCpuList: null,
        pciAddress: null,
        pciPath: null,
      }),
      'ethtool.channels': { ...channels('ethtool/unknown-l-combined1-1.txt'), max: { rx: null, tx: null, other: null, combined: 1 } },
      'net.queues': singleQueue('0', 0),
      'cpu.topology': { online: [0], smtActive: null, smtControl: null, cpus: [] },
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it("caps the suggestion at ixgbe's 16 RSS queues although it reports 63 channels (unknown-l-combined1-pbench-1)", async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'ixgbe', speedMbps: 10000, localCpuList: '0-31' }),
      'ethtool.channels': channels('ethtool/unknown-l-combined1-pbench-1.txt'),
    });
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({ symptom: 'single-queue-fast-port', data: { max: 63, suggested: 16 } });
    expect(result.findings[0]!.fix).toContain('ethtool -L eth0 combined 16');
  });

  it('passes ixgbe at 16 channels of 63 on a 32-CPU node', async () => {
    const parsed = channels('ethtool/unknown-l-combined1-pbench-1.txt');
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'ixgbe', localCpuList: '0-31' }),
      'ethtool.channels': { ...parsed, current: { ...parsed.current, combined: 16 } },
    });
    expect(result.status).toBe('pass');
  });

  it('uses the rx/tx form for drivers with separate channels: TX 1 of 4 (unknown-l-separate-rxtx-1)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'tg3', speedMbps: 1000, localCpuList: '0-3' }),
      'ethtool.channels': channels('ethtool/unknown-l-separate-rxtx-1.txt'),
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      symptom: 'queues-below-max',
      fix: 'ethtool -L eth0 rx 4 tx 4',
      data: { channel: 'tx', current: 1, max: 4, suggested: 4 },
    });
  });

  it('notes a single virtio queue without RPS, without failing (local VM captures)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net', speedMbps: null, localCpuList: '0-1' }),
      'ethtool.channels': channels('local-vm/ethtool_-l-virtio_net-eth0.txt'),
      'net.queues': singleQueue('0', 0),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'rps-off-single-queue',
        severity: 'info',
        fix: expect.stringContaining('echo 3 > /sys/class/net/eth0/queues/rx-0/rps_cpus'),
      }),
    ]);
  });

  it('says nothing about RPS when it is already on', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net', speedMbps: null, localCpuList: '0-1' }),
      'ethtool.channels': channels('local-vm/ethtool_-l-virtio_net-eth0.txt'),
      'net.queues': singleQueue('3', 2),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('points a driver limited to one queue on a fast port at multiqueue or RPS, with a 40-CPU mask', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net', speedMbps: 25000, localCpuList: '0-39' }),
      'ethtool.channels': channels('local-vm/ethtool_-l-virtio_net-eth0.txt'),
    });
    expect(result.status).toBe('fail');
    expect(result.findings[0]!.symptom).toBe('single-queue-fast-port');
    expect(result.findings[0]!.fix).toContain('enable multiqueue');
    expect(result.findings[0]!.fix).toContain('echo ff,ffffffff > /sys/class/net/eth0/queues/rx-0/rps_cpus');
  });

  it('judges a single sysfs queue when the driver does not support ethtool -l', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'e1000e', speedMbps: 10000, localCpuList: '0-3' }),
      'ethtool.channels': failed(
        'unsupported',
        '`ethtool -l eth0`: the driver does not support this (netlink error: Operation not supported)',
      ),
      'net.queues': singleQueue('0', 0),
    });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['single-queue-fast-port', 'rps-off-single-queue']);
    expect(result.findings[0]!.fix).toContain('echo f > ');
    // Without ethtool -l the driver maximum is unknown, and the message says so.
    expect(result.findings[0]!.message).toContain('single queue (1 of max unknown) on a 10 Gb/s port');
    expect(result.findings[0]!.data).toMatchObject({
      max: null,
      suggested: null,
      localCpus: 4,
      localCpuMask: 'f',
      targetCombined: null,
      targetRx: null,
      targetTx: null,
    });
  });

  it('is not applicable when the driver does not support ethtool -l and sysfs shows several queues', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'e1000e' }),
      'ethtool.channels': failed('unsupported', 'not supported'),
      'net.queues': { rx: [0, 1, 2, 3].map((index) => ({ index, rpsCpus: '0', rpsCpuCount: 0 })), tx: [0, 1, 2, 3] },
    });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('e1000e driver does not support ethtool -l');
    expect(result.reason).toContain('sysfs shows 4 receive queues');
  });

  it('judges a veth pair whose channels are settable (local VM capture: rx 2 of 2 passes)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('nd-va', { kind: 'virtual', driver: null, pciAddress: null, pciPath: null, localCpuList: null }),
        'ethtool.channels': channels('local-vm/ethtool_-l-veth.txt'),
      },
      { interfaces: [{ name: 'nd-va', kind: 'virtual' }] },
    );
    expect(result.status).toBe('pass');
  });

  it('is not applicable on a software interface without settable channels', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('ifb0', { kind: 'virtual', driver: null, pciAddress: null, pciPath: null }),
        'ethtool.channels': failed('unsupported'),
      },
      { interfaces: [{ name: 'ifb0', kind: 'virtual' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('no hardware receive queues');
  });

  it('is not applicable on a bond, whose ethtool -l fails', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('bond0', { kind: 'bond', driver: null }),
        'ethtool.channels': failed('unsupported'),
      },
      { interfaces: [{ name: 'bond0', kind: 'bond' }] },
    );
    expect(result.status).toBe('not-applicable');
  });

  it('is unknown, with the hint, when ethtool -l needs root', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0'),
      'ethtool.channels': failed('permission-denied', '`ethtool -l eth0`: permission denied', 'run nicdoctor as root (sudo nicdoctor ...)'),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('permission denied');
    expect(result.hint).toBe('run nicdoctor as root (sudo nicdoctor ...)');
  });

  it('is unknown when the interface facts could not be read', async () => {
    const result = await tester.run({
      'net.device': failed('not-found', '/sys/class/net/eth0: no such interface'),
      'ethtool.channels': channels('ethtool/ena-l-1.txt'),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('no such interface');
  });
});

describe('rss-queues from /proc/interrupts alone (ethtool -l not captured)', () => {
  const interrupts = parseProcInterrupts(realCapture('interrupts/ixgbe-singlequeue-12cpu-netutils.txt'));
  const irqsOf = (name: string): NicIrqs => nicIrqsOf(interrupts, name);
  const notCaptured = failed('not-captured', 'the sosreport holds no output of `ethtool -l eth2`');

  it('infers one busy receive queue from a single MSI vector on a 12-CPU host (real netutils capture: eth2, 3.49e9 interrupts on CPU0)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth2', { driver: null, localCpuList: null }),
        'ethtool.channels': notCaptured,
        'nic.irqs': irqsOf('eth2'),
        'proc.interrupts': interrupts,
      },
      { interfaces: [{ name: 'eth2' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings[0]).toMatchObject({ symptom: 'single-queue-vector', severity: 'warning', data: { vector: 'eth2', cpus: 12 } });
  });

  it('stays unknown for a NIC whose driver receives on one queue by design (e1000e), with the same busy vector', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('eth2', { driver: 'e1000e', localCpuList: null }),
        'ethtool.channels': notCaptured,
        'nic.irqs': irqsOf('eth2'),
        'proc.interrupts': interrupts,
      },
      { interfaces: [{ name: 'eth2' }] },
    );
    expect(result.status).toBe('unknown');
    expect(result.findings).toEqual([]);
  });

  it("stays unknown for an idle single-vector port, and for a guest's emulated NIC", async () => {
    const idle = await tester.run(
      {
        'net.device': netDevice('eth3', { driver: null }),
        'ethtool.channels': notCaptured,
        'nic.irqs': irqsOf('eth3'),
        'proc.interrupts': interrupts,
      },
      { interfaces: [{ name: 'eth3' }] },
    );
    expect(idle.status).toBe('unknown');
    const guest = await tester.run(
      {
        'net.device': netDevice('eth2', { kind: 'paravirtual', driver: 'e1000' }),
        'ethtool.channels': notCaptured,
        'nic.irqs': irqsOf('eth2'),
        'proc.interrupts': interrupts,
      },
      { interfaces: [{ name: 'eth2', kind: 'paravirtual' }] },
    );
    expect(guest.status).toBe('unknown');
  });
});

describe('rss-queues: one of several receive vectors takes every interrupt', () => {
  const text = [
    '           CPU0       CPU1       CPU2       CPU3',
    ' 30:  900000000          0          0          1   PCI-MSI 262144-edge      wan0-0',
    ' 31:         12          0          0          0   PCI-MSI 262145-edge      wan0-1',
    ' 32:          0          0          0          0   PCI-MSI 262146-edge      wan0-2',
    ' 33:          0          0          0          0   PCI-MSI 262147-edge      wan0-3',
    ' 40:      90000    9000000    9000000    9000000   PCI-MSI 1-edge      lan0-TxRx-0',
    ' 41:          0          0          0          0   PCI-MSI 2-edge      lan0-TxRx-1',
    ' 50:     100000    8000000    8000000    8000000   PCI-MSI 3-edge      big0-TxRx-0',
    ' 51:     100000    8000000    8000000    8000000   PCI-MSI 4-edge      big0-TxRx-1',
  ].join('\n');
  const interrupts = parseProcInterrupts(text);
  const irqsOf = (name: string): NicIrqs => nicIrqsOf(interrupts, name);
  const run = (name: string) =>
    tester.run(
      {
        'net.device': netDevice(name, { driver: null, localCpuList: null }),
        'ethtool.channels': failed('not-captured', `no ethtool -l ${name}`),
        'nic.irqs': irqsOf(name),
        'proc.interrupts': interrupts,
      },
      { interfaces: [{ name }] },
    );

  it('warns on a busy port whose traffic all arrives on one of its vectors', async () => {
    const result = await run('wan0');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'one-of-several-queues-busy',
        severity: 'warning',
        data: { vector: 'wan0-0', interrupts: 900000001, sharePercent: 99, vectors: 4, cpus: 4 },
      }),
    ]);
  });

  it('only notes it on a port that takes a sliver of the host interrupts, and stays quiet where the queues share the load', async () => {
    expect((await run('lan0')).findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['one-of-several-queues-busy', 'info'],
    ]);
    expect((await run('big0')).findings).toEqual([]);
  });
});
