import { describe, expect, it } from 'vitest';
import numaLocality from '../../checks/numa-locality.js';
import { parseNumactlHardware } from '../../src/parsers/numactl.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const aws = parseNumactlHardware(realCapture('numactl/aws-c5n18xl-2node-1.txt'));
const threadripper = parseNumactlHardware(realCapture('numactl/tr3960x-nps4-memoryless-1.txt'));

const tester = checkTester(numaLocality);

describe('numa-locality check', () => {
  it("reports the NIC's node and local CPUs on a two-node host (real numactl capture), as a pass", async () => {
    const device = netDevice('ens5', { numaNode: 1, localCpuList: '18-35,54-71' });
    const result = await tester.run({ 'net.device': device, numa: aws }, { interfaces: [{ name: 'ens5' }] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'nic-numa-node',
        severity: 'info',
        data: { node: 1, nodes: 2, localCpus: '18-35,54-71', memoryNode: 1, distance: 10 },
      }),
    ]);
    expect(result.findings[0]!.message).toBe('ens5 is attached to NUMA node 1 of 2: its local CPUs are 18-35,54-71');
    expect(result.findings[0]!.fix).toContain('numactl --cpunodebind=1 --membind=1');
  });

  it('fails a NIC on a memory-less NPS4 node (real numactl capture) and names the nearest node with memory', async () => {
    const device = netDevice('enp3s0', { numaNode: 0, localCpuList: '0-5,24-29' });
    const result = await tester.run({ 'net.device': device, numa: threadripper }, { interfaces: [{ name: 'enp3s0' }] });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['nic-node-memoryless', 'warning'],
      ['nic-numa-node', 'info'],
    ]);
    expect(result.findings[0]!.data).toMatchObject({ node: 0, memoryNode: 1, distance: 12 });
    expect(result.findings[0]!.fix).toContain('numactl --cpunodebind=0 --membind=1');
  });

  it('notes a NIC whose node the firmware does not report, counting only nodes with CPUs', async () => {
    const sparse = parseNumactlHardware(realCapture('numactl/hpc-sparse-node-ids-1.txt'));
    const result = await tester.run(
      { 'net.device': netDevice('ib0', { numaNode: null }), numa: sparse },
      { interfaces: [{ name: 'ib0' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'numa-node-unknown', severity: 'info', data: { nodes: 2 } })]);
  });

  it('is not applicable on a single-node host (real capture), a kernel without NUMA, or a NIC without PCI', async () => {
    const single = await tester.run({
      'net.device': netDevice('eth0'),
      numa: parseNumactlHardware(realCapture('numactl/single-node-1.txt')),
    });
    expect(single.status).toBe('not-applicable');
    expect(single.reason).toContain('single NUMA node');
    const none = await tester.run({ 'net.device': netDevice('eth0'), numa: { nodes: [] } });
    expect(none.status).toBe('not-applicable');
    const veth = await tester.run(
      { 'net.device': netDevice('veth0', { kind: 'virtual', pciPath: null, pciAddress: null, numaNode: null }), numa: aws },
      { interfaces: [{ name: 'veth0' }] },
    );
    expect(veth.status).toBe('not-applicable');
    expect(veth.reason).toContain('not a PCI device');
  });

  it('is unknown, not "not a PCI device", for a physical NIC whose PCI device the capture lacks', async () => {
    const result = await tester.run(
      { 'net.device': netDevice('eth0', { pciPath: null, pciAddress: null, numaNode: null }), numa: aws },
      { interfaces: [{ name: 'eth0', pciAddress: null }] },
    );
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('does not give the PCI device of eth0');
  });

  it('is unknown when the NUMA layout could not be read, or the NIC names a node the host does not have', async () => {
    const missing = await tester.run({
      'net.device': netDevice('eth0'),
      numa: failed('not-captured', 'the snapshot has no /sys/devices/system/node'),
    });
    expect(missing.status).toBe('unknown');
    expect(missing.reason).toContain('/sys/devices/system/node');
    const stray = await tester.run({ 'net.device': netDevice('eth0', { numaNode: 3 }), numa: aws });
    expect(stray.status).toBe('unknown');
    expect(stray.reason).toContain('NUMA node 3');
  });
});
