import { describe, expect, it } from 'vitest';
import socketBuffers from '../../checks/socket-buffers.js';
import type { SysctlNet } from '../../src/collectors/sysctl.js';
import { parseSysctlAll, sysctlNetFrom } from '../../src/parsers/sysctl.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(socketBuffers);

/** A host tuned the ESnet way for links below 40G. */
function tuned(extra: Partial<SysctlNet> = {}): SysctlNet {
  return {
    rmemMax: 67108864,
    wmemMax: 67108864,
    rmemDefault: 212992,
    wmemDefault: 212992,
    netdevMaxBacklog: 1000,
    netdevBudget: 300,
    netdevBudgetUsecs: 2000,
    defaultQdisc: 'fq',
    tcpRmem: { min: 4096, default: 131072, max: 33554432 },
    tcpWmem: { min: 4096, default: 16384, max: 33554432 },
    tcpCongestionControl: 'bbr',
    tcpAvailableCongestionControl: ['reno', 'cubic', 'bbr'],
    tcpMtuProbing: 1,
    tcpTimestamps: 1,
    tcpSack: 1,
    tcpWindowScaling: 1,
    ...extra,
  };
}

function fromCapture(file: string): SysctlNet {
  const values = parseSysctlAll(realCapture(file));
  return sysctlNetFrom((key) => values.get(key));
}

const eth0 = netDevice('eth0', { speedMbps: 10000, mtu: 1500 });
const sorted = (symptoms: string[]) => [...symptoms].sort();

describe('socket-buffers check', () => {
  it('passes a 10G host tuned to the ESnet tier', async () => {
    const result = await tester.run({ 'sysctl.net': tuned(), interfaces: [eth0] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('only notes the default buffers of a real Ubuntu 18.04 capture on a 10G host: 6 MiB fills 10G up to 5 ms RTT', async () => {
    const result = await tester.run(
      { 'sysctl.net': fromCapture('sysctl/ubuntu1804-sysctl-a-jc.txt'), interfaces: [eth0] },
      { interfaces: [{ name: 'eth0', speedMbps: 10000 }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings.every((finding) => finding.severity === 'info')).toBe(true);
    expect(sorted(result.findings.map((finding) => finding.symptom))).toEqual(
      sorted([
        'rmem-max-below-tier',
        'wmem-max-below-tier',
        'tcp-rmem-below-tier',
        'tcp-wmem-below-tier',
        'default-qdisc-not-fq',
        'congestion-control',
      ]),
    );
    const tcpRmem = result.findings.find((finding) => finding.symptom === 'tcp-rmem-below-tier')!;
    expect(tcpRmem.severity).toBe('info');
    expect(tcpRmem.data).toMatchObject({ observed: 6291456, expected: 33554432, tier: 'below 40G', fastestMbps: 10000, rttMs: 10 });
    // 6 MiB x 8 / 10 ms = 5.03 Gb/s: half a 10G link for one stream.
    expect(tcpRmem.message).toContain('6 MiB: 5.0 Gb/s at 10 ms RTT');
    expect(tcpRmem.message).toContain('eth0 at 10 Gb/s');
    expect(tcpRmem.fix).toBe('Put "net.ipv4.tcp_rmem = 4096 131072 33554432" in /etc/sysctl.d/90-nicdoctor.conf, then run sysctl --system');
    expect(tcpRmem.evidence[0]).toMatchObject({ label: 'net.ipv4.tcp_rmem maximum', observed: 6291456, expected: 33554432, unit: 'bytes' });

    const rmemMax = result.findings.find((finding) => finding.symptom === 'rmem-max-below-tier')!;
    expect(rmemMax.message).toContain('208 KiB: 170 Mb/s at 10 ms RTT');
    expect(rmemMax.fix).toContain('net.core.rmem_max = 67108864');
    expect(rmemMax.fix).toContain('sysctl --system');
    expect(result.findings.find((finding) => finding.symptom === 'wmem-max-below-tier')!.fix).toContain('net.core.wmem_max = 67108864');
    expect(result.findings.find((finding) => finding.symptom === 'tcp-wmem-below-tier')!.fix).toContain(
      'net.ipv4.tcp_wmem = 4096 16384 33554432',
    );

    const qdisc = result.findings.find((finding) => finding.symptom === 'default-qdisc-not-fq')!;
    expect(qdisc).toMatchObject({ severity: 'info', data: { observed: 'fq_codel', expected: 'fq' } });
    const cc = result.findings.find((finding) => finding.symptom === 'congestion-control')!;
    expect(cc).toMatchObject({ severity: 'info', data: { current: 'cubic', available: 'reno cubic', bbrAvailable: false } });
    expect(cc.message).toContain('bbr is not loaded');
  });

  it('holds a 40G host to the 40G tier and a 100G host to the 100G tier', async () => {
    const at40 = await tester.run(
      { 'sysctl.net': tuned(), interfaces: [] },
      {
        interfaces: [
          { name: 'eth0', speedMbps: 1000 },
          { name: 'ens1f0', speedMbps: 40000 },
        ],
      },
    );
    // 32 MiB still carries 40G up to 6.7 ms RTT: below the long-path tier, but not a LAN limit.
    expect(at40.status).toBe('pass');
    expect(at40.findings.map((finding) => [finding.symptom, finding.data.expected, finding.data.tier])).toEqual([
      ['rmem-max-below-tier', 536870912, '40G and up'],
      ['wmem-max-below-tier', 536870912, '40G and up'],
      ['tcp-rmem-below-tier', 268435456, '40G and up'],
      ['tcp-wmem-below-tier', 268435456, '40G and up'],
    ]);
    expect(at40.findings[0]!.data.fastestMbps).toBe(40000);
    expect(at40.findings[0]!.evidence[1]).toMatchObject({ label: 'ens1f0 link speed', observed: 40000, unit: 'Mb/s' });

    const at100 = await tester.run(
      { 'sysctl.net': tuned({ rmemMax: 536870912, wmemMax: 536870912 }), interfaces: [] },
      { interfaces: [{ name: 'ens1f0', speedMbps: 100000 }] },
    );
    expect(at100.findings.find((finding) => finding.symptom === 'rmem-max-below-tier')!.fix).toContain('net.core.rmem_max = 2147483647');
    expect(at100.findings.find((finding) => finding.symptom === 'tcp-wmem-below-tier')!.fix).toContain(
      'net.ipv4.tcp_wmem = 4096 16384 1073741824',
    );
  });

  it('passes a 100G host tuned to the 100G tier', async () => {
    const sysctl = tuned({
      rmemMax: 2147483647,
      wmemMax: 2147483647,
      tcpRmem: { min: 4096, default: 87380, max: 1073741824 },
      tcpWmem: { min: 4096, default: 65536, max: 1073741824 },
    });
    const result = await tester.run(
      { 'sysctl.net': sysctl, interfaces: [] },
      { interfaces: [{ name: 'ens1f0', speedMbps: 100000, mtu: 9000 }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it("judges no tier when no physical port reports a negotiated speed (a VM, a container, a veth's nominal 10000)", async () => {
    const result = await tester.run(
      { 'sysctl.net': fromCapture('sysctl/centos77-sysctl-a-jc.txt'), interfaces: [] },
      { interfaces: [{ name: 'eth0', speedMbps: null, nominalSpeedMbps: 10000, kind: 'virtual' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings.filter((candidate) => /below-tier/.test(candidate.symptom))).toEqual([]);
  });

  it('warns when autotuning cannot fill a 100G port even at 1 ms RTT (6 MiB x 8 / 1 ms = 50 Gb/s)', async () => {
    const result = await tester.run(
      { 'sysctl.net': fromCapture('sysctl/ubuntu1804-sysctl-a-jc.txt'), interfaces: [] },
      { interfaces: [{ name: 'ens1f0', speedMbps: 100000 }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings.find((finding) => finding.symptom === 'tcp-rmem-below-tier')).toMatchObject({
      severity: 'warning',
      data: { observed: 6291456, tier: '100G and up' },
    });
    expect(result.findings.find((finding) => finding.symptom === 'rmem-max-below-tier')).toMatchObject({ severity: 'info' });
  });

  it('judges only the selected interfaces, not faster unselected ones', async () => {
    const fast = netDevice('ens2', { speedMbps: 100000 });
    const result = await tester.run(
      { 'sysctl.net': tuned(), interfaces: [eth0, fast] },
      { interfaces: [{ name: 'eth0', speedMbps: 10000 }] },
    );
    expect(result.status).toBe('pass');
  });

  it('notes jumbo frames without MTU probing (hygiene, no symptom), not at MTU 1500 nor for overlay and OVS devices', async () => {
    const jumbo = await tester.run(
      { 'sysctl.net': tuned({ tcpMtuProbing: 0 }), interfaces: [] },
      {
        interfaces: [
          { name: 'eth0', mtu: 1500 },
          { name: 'eth1', mtu: 9000 },
        ],
      },
    );
    expect(jumbo.status).toBe('pass');
    expect(jumbo.findings).toEqual([
      expect.objectContaining({
        symptom: 'mtu-probing-off-with-jumbo',
        severity: 'info',
        data: { observed: 0, expected: 1, interfaces: 'eth1', mtu: 9000, dropIn: '/etc/sysctl.d/90-nicdoctor.conf' },
      }),
    ]);
    expect(jumbo.findings[0]!.fix).toBe('Put "net.ipv4.tcp_mtu_probing = 1" in /etc/sysctl.d/90-nicdoctor.conf, then run sysctl --system');

    const standard = await tester.run(
      { 'sysctl.net': tuned({ tcpMtuProbing: 0 }), interfaces: [] },
      { interfaces: [{ name: 'eth0', mtu: 1500 }] },
    );
    expect(standard.status).toBe('pass');

    const overlays = await tester.run(
      { 'sysctl.net': tuned({ tcpMtuProbing: 0 }), interfaces: [] },
      {
        interfaces: [
          { name: 'eth0', mtu: 1500 },
          { name: 'genev_sys_6081', kind: 'virtual', mtu: 65000 },
          { name: 'flannel.1', kind: 'virtual', mtu: 8950 },
        ],
      },
    );
    expect(overlays.findings).toEqual([]);
  });

  it('warns when TCP window scaling is off', async () => {
    const result = await tester.run({ 'sysctl.net': tuned({ tcpWindowScaling: 0 }), interfaces: [eth0] });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([expect.objectContaining({ symptom: 'window-scaling-off', severity: 'warning' })]);
    expect(result.findings[0]!.message).toContain('52 Mb/s at 10 ms RTT');
  });

  it('notes cubic when bbr is loaded, without failing', async () => {
    const result = await tester.run({ 'sysctl.net': tuned({ tcpCongestionControl: 'cubic' }), interfaces: [eth0] });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'congestion-control', severity: 'info', data: expect.objectContaining({ bbrAvailable: true }) }),
    ]);
    expect(result.findings[0]!.message).toContain('bbr is loaded');
  });

  it('takes tiers and RTT from options', async () => {
    const result = await tester.run(
      { 'sysctl.net': tuned(), interfaces: [eth0] },
      { options: { rttMs: 50, tiers: [{ label: 'site policy', minMbps: 0, coreMax: 134217728, tcpMax: 33554432 }] } },
    );
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['rmem-max-below-tier', 'wmem-max-below-tier']);
    expect(result.findings[0]!.message).toContain('64 MiB: 10.7 Gb/s at 50 ms RTT');
    expect(result.findings[0]!.fix).toContain('net.core.rmem_max = 134217728');
  });

  it('is an error, not a verdict, with invalid options', async () => {
    const result = await tester.run({ 'sysctl.net': tuned(), interfaces: [eth0] }, { options: { tiers: [] } });
    expect(result.status).toBe('error');
  });

  it('is not applicable when no interface is selected', async () => {
    const result = await tester.run({ 'sysctl.net': tuned(), interfaces: [] }, { interfaces: [] });
    expect(result.status).toBe('not-applicable');
  });

  it('is unknown when the sysctls could not be read', async () => {
    const result = await tester.run({
      'sysctl.net': failed('not-found', '/proc/sys/net: none of the network sysctls could be read'),
      interfaces: [eth0],
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('/proc/sys/net');
  });

  it('is unknown when none of the buffer sysctls exist', async () => {
    const result = await tester.run({
      'sysctl.net': tuned({ rmemMax: null, wmemMax: null, tcpRmem: null, tcpWmem: null }),
      interfaces: [eth0],
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('rmem_max');
  });
});
