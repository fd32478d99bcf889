import { describe, expect, it } from 'vitest';
import irqAffinity from '../../checks/irq-affinity.js';
import type { IrqBalance } from '../../src/collectors/irqbalance.js';
import type { NicIrq, NicIrqs } from '../../src/collectors/nic-irqs.js';
import { nicInterruptRows, parseProcInterrupts, type NicIdentity } from '../../src/parsers/proc-interrupts.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { nicIrqsOf } from '../helpers/nic-irqs.js';
import { netDevice } from '../helpers/net-device.js';

/** nic.irqs as the collector builds it, from a real /proc/interrupts and given affinities. */
function nicIrqsFrom(
  file: string,
  identity: Partial<NicIdentity> & { name: string },
  affinity: (irq: number, index: number) => number[] | null,
  effective: (irq: number, index: number) => number[] | null = () => null,
): NicIrqs {
  const interrupts = parseProcInterrupts(realCapture(file));
  const rows = nicInterruptRows(interrupts, { driver: null, pciAddress: null, virtioDevice: null, ...identity });
  return {
    cpus: interrupts.cpus,
    msiIrqs: [],
    irqs: rows.map(({ row, name, role }, index) => ({
      irq: row.irq!,
      name,
      role,
      counts: row.counts,
      affinity: affinity(row.irq!, index),
      effectiveAffinity: effective(row.irq!, index),
      shared: row.actions.length > 1,
    })),
  };
}

function queue(irq: number, extra: Partial<NicIrq> = {}): NicIrq {
  return { irq, name: `eth0-TxRx-${irq}`, role: 'queue', counts: [], affinity: null, effectiveAffinity: null, shared: false, ...extra };
}

const noBalancer: IrqBalance = { running: false, pids: [], configPath: null, bannedCpus: [], bannedIrqs: [] };
const balancer: IrqBalance = { running: true, pids: [812], configPath: '/etc/default/irqbalance', bannedCpus: [], bannedIrqs: [] };

const tester = checkTester(irqAffinity);

describe('irq-affinity check', () => {
  it('passes the healthy multi-NIC host: eth4 queues pinned 1:1 and counted on their own CPU', async () => {
    const cpuOf: Record<number, number> = { 34: 3, 35: 2, 36: 1, 37: 0, 38: 0 };
    const irqs = nicIrqsFrom('interrupts/multinic-multiqueue-4cpu-netutils-1.txt', { name: 'eth4', driver: 'ixgbe' }, (irq) => [
      cpuOf[irq]!,
    ]);
    expect(irqs.irqs.filter((irq) => irq.role === 'queue')).toHaveLength(4);
    const result = await tester.run(
      { 'nic.irqs': irqs, 'net.device': netDevice('eth4', { localCpuList: '0-3' }), irqbalance: noBalancer },
      { interfaces: [{ name: 'eth4' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails ixgbe eth0 whose 8 queues are all pinned to CPU0 (real capture), once, with a pinning loop', async () => {
    const irqs = nicIrqsFrom('interrupts/ixgbe-singlequeue-12cpu-netutils.txt', { name: 'eth0', driver: 'ixgbe' }, () => [0]);
    const result = await tester.run({
      'nic.irqs': irqs,
      'net.device': netDevice('eth0', { localCpuList: '0-11' }),
      irqbalance: noBalancer,
    });
    expect(result.status).toBe('fail');
    // Concentration on the same CPU and irqbalance-absent would repeat the same fault.
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['irqs-on-one-cpu']);
    expect(result.findings[0]).toMatchObject({
      severity: 'warning',
      data: { queues: 8, cpu: 0, irqs: '66,67,68,69,70,71,72,73', localCpus: '0-11' },
    });
    // The pinning loop and the node are wording derived from the typed irqs, localCpus and numaNode.
    expect(result.findings[0]!.fix).toContain(
      'for irq in 66 67 68 69 70 71 72 73; do echo ${cpus[i++ % 12]} > /proc/irq/$irq/smp_affinity_list; done',
    );
    expect(result.findings[0]!.fix).toMatch(/set_irq_affinity_bynode\.sh (\d+|<node>) /);
    expect(result.findings[0]!.fix).toContain(
      'cpus=(0 1 2 3 4 5 6 7 8 9 10 11); i=0; for irq in 66 67 68 69 70 71 72 73; do echo ${cpus[i++ % 12]} > /proc/irq/$irq/smp_affinity_list; done',
    );
    expect(result.findings[0]!.evidence).toHaveLength(8);
  });

  it('fails mlx5 whose vectors were handled ~97% by CPU0 although affinity is now spread (real capture)', async () => {
    const irqs = nicIrqsFrom(
      'interrupts/mlx5-2port-4cpu-netutils.txt',
      { name: 'enp1s0f0', driver: 'mlx5_core', pciAddress: '0000:01:00.0' },
      (irq) => (irq >= 30 ? [irq - 30] : [0]),
    );
    const result = await tester.run(
      { 'nic.irqs': irqs, 'net.device': netDevice('enp1s0f0', { driver: 'mlx5_core', localCpuList: '0-3' }), irqbalance: noBalancer },
      { interfaces: [{ name: 'enp1s0f0' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings).toHaveLength(1);
    const total = 127355089 + 120112828 + 5482507 + 121978940 + 5524729 + 122736116 + 5465612;
    expect(result.findings[0]).toMatchObject({
      symptom: 'interrupt-concentration',
      severity: 'warning',
      data: { cpu: 0, queues: 4, total, topCount: 127355089 + 120112828 + 121978940 + 122736116, sharePercent: 97 },
    });
    expect(result.findings[0]!.message).toBe(
      `CPU 0 handled 97% of the ${total} queue interrupts of enp1s0f0 since boot (4 queues): its softirq is the bottleneck`,
    );
  });

  it('does not judge the idle second mlx5 port (too few interrupts)', async () => {
    const irqs = nicIrqsFrom(
      'interrupts/mlx5-2port-4cpu-netutils.txt',
      { name: 'enp1s0f1', driver: 'mlx5_core', pciAddress: '0000:01:00.1' },
      (irq) => [irq % 4],
    );
    const result = await tester.run(
      { 'nic.irqs': irqs, 'net.device': netDevice('enp1s0f1', { localCpuList: '0-3' }), irqbalance: balancer },
      { interfaces: [{ name: 'enp1s0f1' }] },
    );
    expect(result.findings.map((finding) => finding.symptom)).not.toContain('interrupt-concentration');
  });

  it('fails igb with split rx/tx vectors counted mostly on CPU0 (real capture)', async () => {
    const irqs = nicIrqsFrom('interrupts/igb-separate-rx-tx-4cpu-netutils.txt', { name: 'eth0', driver: 'igb' }, () => null);
    const result = await tester.run({
      'nic.irqs': irqs,
      'net.device': netDevice('eth0', { driver: 'igb', localCpuList: '0-3' }),
      irqbalance: failed('not-captured'),
    });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'interrupt-concentration', data: expect.objectContaining({ cpu: 0, queues: 8 }) }),
    ]);
  });

  it('warns about IRQs effectively delivered to the other NUMA node, not about the default all-CPU mask', async () => {
    const all = Array.from({ length: 16 }, (_, i) => i);
    const irqs: NicIrqs = {
      cpus: all,
      msiIrqs: [40, 41, 42, 43],
      irqs: [
        queue(40, { affinity: all, effectiveAffinity: [1] }),
        queue(41, { affinity: all, effectiveAffinity: [9] }),
        queue(42, { affinity: [10, 11], effectiveAffinity: null }),
        queue(43, { affinity: all, effectiveAffinity: null }),
      ],
    };
    const device = netDevice('eth0', { numaNode: 0, localCpuList: '0-7' });
    const result = await tester.run({ 'nic.irqs': irqs, 'net.device': device, irqbalance: balancer });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'irqs-off-node',
        severity: 'warning',
        data: expect.objectContaining({ offNode: 2, entirelyRemote: 2, queues: 4, numaNode: 0, localCpus: '0-7', remoteCpus: '8-15' }),
      }),
    ]);
    expect(result.findings[0]!.evidence.map((item) => item.observed)).toEqual(['9', '10-11']);
    expect(result.findings[0]!.fix).toContain('cpus=(0 1 2 3 4 5 6 7)');
  });

  it('notes irqbalance running over hand-pinned queues (info), and warns at 40G where vendors pin', async () => {
    const cpuOf: Record<number, number> = { 34: 3, 35: 2, 36: 1, 37: 0, 38: 0 };
    const irqs = nicIrqsFrom('interrupts/multinic-multiqueue-4cpu-netutils-1.txt', { name: 'eth4' }, (irq) => [cpuOf[irq]!]);
    const at10g = await tester.run(
      { 'nic.irqs': irqs, 'net.device': netDevice('eth4', { localCpuList: '0-3' }), irqbalance: balancer },
      { interfaces: [{ name: 'eth4' }] },
    );
    expect(at10g.status).toBe('pass');
    expect(at10g.findings).toEqual([
      expect.objectContaining({
        symptom: 'irqbalance-overrides-pinning',
        severity: 'info',
        data: expect.objectContaining({ pid: 812, unbannedIrqs: '34,35,36,37' }),
      }),
    ]);
    expect(at10g.findings[0]!.fix).toContain(
      'IRQBALANCE_ARGS="--banirq=34 --banirq=35 --banirq=36 --banirq=37" in /etc/default/irqbalance',
    );

    const at40g = await tester.run(
      { 'nic.irqs': irqs, 'net.device': netDevice('eth4', { localCpuList: '0-3', speedMbps: 40000 }), irqbalance: balancer },
      { interfaces: [{ name: 'eth4' }] },
    );
    expect(at40g.status).toBe('fail');
    expect(at40g.findings[0]).toMatchObject({ symptom: 'irqbalance-overrides-pinning', severity: 'warning' });

    const banned = await tester.run(
      {
        'nic.irqs': irqs,
        'net.device': netDevice('eth4', { localCpuList: '0-3' }),
        irqbalance: { ...balancer, bannedIrqs: [34, 35, 36, 37] },
      },
      { interfaces: [{ name: 'eth4' }] },
    );
    expect(banned.findings).toEqual([]);
  });

  it('notes a many-queue NIC without irqbalance whose IRQs sit on few CPUs (throughput profile only)', async () => {
    const irqs: NicIrqs = {
      cpus: [0, 1, 2, 3, 4, 5, 6, 7],
      msiIrqs: [],
      irqs: [0, 1, 2, 3, 4, 5].map((i) => queue(50 + i, { affinity: [0, 1, 2, 3, 4, 5, 6, 7], effectiveAffinity: [i % 2] })),
    };
    const facts = { 'nic.irqs': irqs, 'net.device': netDevice('eth0', { localCpuList: '0-7' }), irqbalance: noBalancer };
    const result = await tester.run(facts);
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'irqbalance-absent',
        severity: 'info',
        data: expect.objectContaining({ queues: 6, distinctCpus: 2 }),
      }),
    ]);
    const measurement = await tester.run(facts, { profile: 'measurement' });
    expect(measurement.findings).toEqual([]);
  });

  it('is not applicable to a veth (no interrupts of its own) or a NIC with only control vectors', async () => {
    const veth = await tester.run(
      {
        'nic.irqs': { cpus: [0, 1], msiIrqs: [], irqs: [] },
        'net.device': netDevice('veth0', { kind: 'virtual', driver: 'veth', pciAddress: null, pciPath: null }),
        irqbalance: noBalancer,
      },
      { interfaces: [{ name: 'veth0' }] },
    );
    expect(veth.status).toBe('not-applicable');
    expect(veth.reason).toBe('veth0 has no interrupts of its own (virtual interface)');
    const control = await tester.run({
      'nic.irqs': { cpus: [0, 1], msiIrqs: [5], irqs: [queue(5, { role: 'other', name: 'virtio2-config' })] },
      'net.device': netDevice('eth0'),
      irqbalance: noBalancer,
    });
    expect(control.status).toBe('not-applicable');
  });

  it('is unknown when the NIC interrupts could not be collected, or neither affinity nor counts could be read', async () => {
    const denied = await tester.run({
      'nic.irqs': failed('permission-denied', '/proc/interrupts: permission denied', 'run as root'),
      'net.device': netDevice('eth0'),
      irqbalance: noBalancer,
    });
    expect(denied.status).toBe('unknown');
    expect(denied.hint).toBe('run as root');
    const blind = await tester.run({
      'nic.irqs': { cpus: [0, 1], msiIrqs: [], irqs: [queue(30), queue(31)] },
      'net.device': netDevice('eth0'),
      irqbalance: noBalancer,
    });
    expect(blind.status).toBe('unknown');
    expect(blind.reason).toContain('could not be read');
  });
});

/** nic.irqs and proc.interrupts from a /proc/interrupts text written for the test (no affinity files). */
function fromText(text: string, name: string) {
  const interrupts = parseProcInterrupts(text);
  return { 'nic.irqs': nicIrqsOf(interrupts, name), 'proc.interrupts': interrupts };
}

describe('irq-affinity: placement judged from interrupt counts alone', () => {
  // Two single-vector router ports and a disk on CPU1; CPU0 takes only the timer.
  const twoPortsOneCore = [
    '           CPU0       CPU1',
    '  0:         40          0   IO-APIC   2-edge      timer',
    ' 19:          3    9000000   IO-APIC  19-fasteoi   ahci[0000:00:11.0]',
    ' 28:          0  800000000   PCI-MSI 524288-edge      wan0',
    ' 29:          0  600000000   PCI-MSI 1048576-edge      lan0',
    ' 30:          0     200000   PCI-MSI 1572864-edge      opt0',
  ].join('\n');

  it('warns when a single-vector port shares its CPU with other busy lines while another CPU takes none', async () => {
    const result = await tester.run(
      { ...fromText(twoPortsOneCore, 'wan0'), 'net.device': netDevice('wan0'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'wan0' }] },
    );
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'stacked-with-busy-devices',
        severity: 'warning',
        data: expect.objectContaining({ cpu: 1, total: 800000000, otherBusy: 3, freeCpus: '0' }),
      }),
    ]);
  });

  it('only notes a port that took a sliver of the host interrupts', async () => {
    const result = await tester.run(
      { ...fromText(twoPortsOneCore, 'opt0'), 'net.device': netDevice('opt0'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'opt0' }] },
    );
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['stacked-with-busy-devices', 'info']]);
  });

  it('does not judge a single receive queue (rx-0 + tx-0) that has a CPU to itself', async () => {
    const text = [
      '           CPU0       CPU1       CPU2       CPU3',
      ' 40:  700000000          0          0          0   PCI-MSI-edge      big0-TxRx-0',
      ' 41:          0  700000000          0          0   PCI-MSI-edge      big0-TxRx-1',
      ' 42:        100          0  900000000          0   PCI-MSI-edge      small0-rx-0',
      ' 43:        100          0          0   30000000   PCI-MSI-edge      small0-tx-0',
      ' 44:          2          0          0          0   PCI-MSI-edge      small0',
    ].join('\n');
    const result = await tester.run(
      { ...fromText(text, 'small0'), 'net.device': netDevice('small0'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'small0' }] },
    );
    expect(result.findings).toEqual([]);
  });

  it('warns when two busy queues share a CPU while a CPU they could use takes none', async () => {
    const text = [
      '            CPU0       CPU1       CPU2       CPU3',
      ' 50:          0          0          0    2000000   IR-PCI-MSI 1-edge      nic0',
      ' 51:    2500000          0          0          0   IR-PCI-MSI 2-edge      nic0',
      ' 52:          0          0          0    2600000   IR-PCI-MSI 3-edge      nic0',
      ' 53:          0    2400000          0          0   IR-PCI-MSI 4-edge      nic0',
      ' 54:          0         12          0          0   IR-PCI-MSI 5-edge      nic0',
    ].join('\n');
    const result = await tester.run(
      { ...fromText(text, 'nic0'), 'net.device': netDevice('nic0'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'nic0' }] },
    );
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'queues-share-cpu',
        data: expect.objectContaining({ cpu: 3, stacked: 2, busy: 4, unusedCpus: '2' }),
      }),
    ]);
  });

  it('does not call queues stacked when the quiet ones carry a sliver each and the busy ones have a CPU each', async () => {
    const text = [
      '            CPU0       CPU1       CPU2       CPU3',
      ' 60:  900000000          0          0          0   PCI-MSI-edge      nic1-TxRx-0',
      ' 61:          0  900000000          0          0   PCI-MSI-edge      nic1-TxRx-1',
      ' 62:    5000000          0          0          0   PCI-MSI-edge      nic1-TxRx-2',
      ' 63:          0    5000000          0          0   PCI-MSI-edge      nic1-TxRx-3',
    ].join('\n');
    const result = await tester.run(
      { ...fromText(text, 'nic1'), 'net.device': netDevice('nic1'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'nic1' }] },
    );
    expect(result.findings).toEqual([]);
  });

  // Two router ports, four queues each, one queue per CPU; each port's busiest queue is on CPU2.
  const hotQueuesMeet = (otherHot: number) =>
    [
      '           CPU0       CPU1       CPU2       CPU3',
      ' 40:    2000000          0          0          0   PCI-MSI 1-edge      lan0-TxRx-0',
      ' 41:          0    1800000          0          0   PCI-MSI 2-edge      lan0-TxRx-1',
      ' 42:          0          0   10000000          0   PCI-MSI 3-edge      lan0-TxRx-2',
      ' 43:          0          0          0    1900000   PCI-MSI 4-edge      lan0-TxRx-3',
      ' 50:    2100000          0          0          0   PCI-MSI 5-edge      wan0-fp-0',
      ' 51:          0    2000000          0          0   PCI-MSI 6-edge      wan0-fp-1',
      ` 52:          0          0 ${String(otherHot).padStart(10)}          0   PCI-MSI 7-edge      wan0-fp-2`,
      ' 53:          0          0          0    2200000   PCI-MSI 8-edge      wan0-fp-3',
    ].join('\n');

  it("warns when a spread NIC's busiest queue shares its CPU with another port's busiest line", async () => {
    const result = await tester.run(
      { ...fromText(hotQueuesMeet(9000000), 'lan0'), 'net.device': netDevice('lan0'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'lan0' }] },
    );
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'busiest-queue-stacked',
        severity: 'warning',
        data: expect.objectContaining({
          cpu: 2,
          queueIrq: 42,
          queueTotal: 10000000,
          otherLines: 'IRQ 52 (wan0-fp-2)',
          quietCpu: 1,
          ratio: 4.6,
        }),
      }),
    ]);
  });

  it('stays quiet when the line beside the busiest queue is small, so that CPU is not the outlier', async () => {
    const result = await tester.run(
      { ...fromText(hotQueuesMeet(2000000), 'lan0'), 'net.device': netDevice('lan0'), irqbalance: failed('not-captured') },
      { interfaces: [{ name: 'lan0' }] },
    );
    expect(result.findings).toEqual([]);
  });
});
