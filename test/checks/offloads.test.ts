import { describe, expect, it } from 'vitest';
import offloads from '../../checks/offloads.js';
import { parseEthtoolFeatures } from '../../src/parsers/ethtool-features.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const features = (name: string) => parseEthtoolFeatures(realCapture(name));
const eth0 = netDevice('eth0');

const tester = checkTester(offloads);

describe('offloads check', () => {
  it('passes a NIC with every offload on (real e1000e capture; LRO off [fixed] is not judged)', async () => {
    const result = await tester.run({ 'net.device': eth0, 'ethtool.features': features('ethtool/e1000e-k-hardware-1.txt') });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('passes the JSON form of a virtio_net guest (real capture)', async () => {
    const device = netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net' });
    const result = await tester.run({
      'net.device': device,
      'ethtool.features': features('local-vm/ethtool_--json_-k-virtio_net-eth0.json'),
    });
    expect(result.status).toBe('pass');
  });

  it('fails a throughput host with offloads turned off, fixing exactly those (real gianfar capture)', async () => {
    const result = await tester.run({ 'net.device': eth0, 'ethtool.features': features('ethtool/gianfar-k-alloff-partial-1.txt') });
    expect(result.status).toBe('fail');
    const off = result.findings.find((finding) => finding.symptom === 'offload-off')!;
    expect(off).toMatchObject({ severity: 'warning', subject: 'eth0', fix: 'ethtool -K eth0 rx on tx on sg on gso on gro on' });
    expect(off.message).toContain('rx-checksumming, tx-checksumming, scatter-gather, GSO, GRO off');
    expect(off.message).toContain('for a throughput host');
    expect(off.evidence.map((item) => item.label)).toEqual([
      'rx-checksumming',
      'tx-checksumming',
      'scatter-gather',
      'generic-segmentation-offload',
      'generic-receive-offload',
    ]);
    expect(off.evidence[0]).toMatchObject({ observed: 'off', expected: 'on' });
    // TSO's sub-features are all [fixed] on this NIC: ethtool -K cannot help.
    const fixed = result.findings.find((finding) => finding.symptom === 'offload-fixed-off')!;
    expect(fixed).toMatchObject({ severity: 'info', data: { features: 'tso', count: 1 } });
    expect(fixed.message).toBe('eth0: TSO off and fixed by the driver: ethtool -K cannot turn them on; the CPU does this work');
    expect(result.findings).toHaveLength(2);
  });

  it('on a measurement host, reports TSO/GSO/GRO off as intended (info) and the rest still as a warning', async () => {
    const result = await tester.run(
      { 'net.device': eth0, 'ethtool.features': features('ethtool/gianfar-k-alloff-partial-1.txt') },
      { profile: 'measurement' },
    );
    expect(result.status).toBe('fail');
    const off = result.findings.filter((finding) => finding.symptom === 'offload-off');
    expect(off.map((finding) => [finding.severity, finding.data.features, finding.fix])).toEqual([
      ['warning', 'rx,tx,sg', 'ethtool -K eth0 rx on tx on sg on'],
      ['info', 'gso,gro', 'ethtool -K eth0 gso on gro on'],
    ]);
    expect(off[1]!.message).toContain('measurement host');
    expect(off[1]!.message).toContain('perfSONAR');
  });

  it('passes a measurement host whose only offloads off are TSO, GSO and GRO', async () => {
    const text = realCapture('local-vm/ethtool_-k-virtio_net-eth0.txt')
      .replace('tcp-segmentation-offload: on', 'tcp-segmentation-offload: off')
      .replace('\ttx-tcp-segmentation: on', '\ttx-tcp-segmentation: off')
      .replace('\ttx-tcp6-segmentation: on', '\ttx-tcp6-segmentation: off')
      .replace('generic-segmentation-offload: on', 'generic-segmentation-offload: off')
      .replace('generic-receive-offload: on', 'generic-receive-offload: off');
    const result = await tester.run({ 'net.device': eth0, 'ethtool.features': parseEthtoolFeatures(text) }, { profile: 'measurement' });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'offload-off', severity: 'info', fix: 'ethtool -K eth0 tso on gso on gro on' }),
    ]);
  });

  it('says which profile it judged for on a latency host', async () => {
    const result = await tester.run(
      { 'net.device': eth0, 'ethtool.features': features('ethtool/gianfar-k-alloff-partial-1.txt') },
      { profile: 'latency' },
    );
    expect(result.findings.find((finding) => finding.symptom === 'offload-off')).toMatchObject({
      severity: 'warning',
      message: expect.stringContaining('for a latency host'),
    });
  });

  it('fails an offload that was requested but refused, naming the missing dependency (real capture)', async () => {
    const result = await tester.run(
      { 'net.device': netDevice('eth1'), 'ethtool.features': features('ethtool/unknown-k-offloads-off-1.txt') },
      { interfaces: [{ name: 'eth1' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity, finding.data.features])).toEqual([
      ['offload-requested-but-off', 'warning', 'gso'],
      ['offload-fixed-off', 'info', 'rx,tx,sg,tso'],
    ]);
    expect(result.findings[0]!.message).toContain('needs scatter-gather');
    expect(result.findings[0]!.fix).toContain('ethtool -K eth1 gso on');
  });

  it('explains a refused offload on a bond by its members (real capture)', async () => {
    const bond = netDevice('bond0', { kind: 'bond', driver: null, pciAddress: null });
    const result = await tester.run(
      { 'net.device': bond, 'ethtool.features': features('ethtool/bonding-k-insights-1.txt') },
      { interfaces: [{ name: 'bond0', kind: 'bond' }] },
    );
    expect(result.status).toBe('fail');
    const refused = result.findings.find((finding) => finding.symptom === 'offload-requested-but-off')!;
    expect(refused.message).toContain('a bond offers only what all its members offer');
    // rx-checksumming off [fixed] on a bond is what its members offer: no tuning of the bond itself.
    expect(result.findings.find((finding) => finding.symptom === 'offload-fixed-off')).toBeUndefined();
  });

  it('leaves GRO off on a veth alone: the kernel default (real capture)', async () => {
    const veth = netDevice('nd-va', { kind: 'virtual', driver: null, pciAddress: null, pciPath: null });
    const result = await tester.run(
      { 'net.device': veth, 'ethtool.features': features('local-vm/ethtool_-k-veth.txt') },
      { interfaces: [{ name: 'nd-va', kind: 'virtual' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('is not applicable when the driver reports no features', async () => {
    const result = await tester.run({
      'net.device': eth0,
      'ethtool.features': failed('unsupported', '`ethtool -k eth0`: the driver does not support this'),
    });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('no offload features');
  });

  it('is unknown, with the hint, when ethtool is missing', async () => {
    const result = await tester.run({
      'net.device': eth0,
      'ethtool.features': failed('tool-missing', 'ethtool: command not found', 'install ethtool: apt-get install ethtool'),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('command not found');
    expect(result.hint).toContain('apt-get install ethtool');
  });

  it('is unknown when ethtool -k lists none of the judged offloads', async () => {
    const result = await tester.run({
      'net.device': eth0,
      'ethtool.features': parseEthtoolFeatures('Features for eth0:\nhighdma: on [fixed]\n'),
    });
    expect(result.status).toBe('unknown');
  });
});
