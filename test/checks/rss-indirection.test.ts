import { describe, expect, it } from 'vitest';
import rssIndirection from '../../checks/rss-indirection.js';
import { parseEthtoolChannels } from '../../src/parsers/ethtool-channels.js';
import { parseEthtoolRxfh, type EthtoolRxfh } from '../../src/parsers/ethtool-rxfh.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(rssIndirection);

const rxfh = (name: string) => parseEthtoolRxfh(realCapture(name));
const table = (entries: number[], ringCount: number, extra: Partial<EthtoolRxfh> = {}): EthtoolRxfh => ({
  interface: 'eth0',
  ringCount,
  indirection: entries,
  indirectionComplete: true,
  hashKey: [0x6d, 0x5a, 0x56, 0xda],
  hashFunctions: { toeplitz: true, xor: false, crc32: false },
  ...extra,
});
const roundRobin = (size: number, rings: number) => Array.from({ length: size }, (_, index) => index % rings);

describe('rss-indirection check', () => {
  it('passes an even round-robin table', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.rxfh': table(roundRobin(128, 8), 8) });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('passes the real 14-ring round-robin table, although only its first rows were captured (unknown-x-14rings-partial-1)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { speedMbps: 25000 }),
      'ethtool.rxfh': rxfh('ethtool/unknown-x-14rings-partial-1.txt'),
      'ethtool.channels': parseEthtoolChannels(realCapture('ethtool/unknown-l-14of16-1.txt')),
    });
    expect(result.status).toBe('pass');
  });

  it('fails the Solarflare table that sends everything to ring 0 with a zero key, critical on 10G (sfc-x-allzero-1)', async () => {
    const result = await tester.run(
      {
        'net.device': netDevice('enp2s0f0', { driver: 'sfc', speedMbps: 10000 }),
        'ethtool.rxfh': rxfh('ethtool/sfc-x-allzero-1.txt'),
        'ethtool.channels': parseEthtoolChannels(realCapture('ethtool/sfc-l-1.txt')),
      },
      { interfaces: [{ name: 'enp2s0f0' }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['zero-hash-key', 'warning'],
      ['all-to-one-queue', 'critical'],
    ]);
    const [zeroKey, allToOne] = result.findings;
    expect(zeroKey!.data).toEqual({ keyBytes: 40, rings: 4 });
    expect(zeroKey!.fix).toContain('ethtool -X enp2s0f0 hkey $(openssl rand -hex 40');
    expect(allToOne!.data).toEqual({ queue: 0, entries: 32, rings: 4, complete: false, linkMbps: 10000 });
    expect(allToOne!.fix).toContain('ethtool -X enp2s0f0 equal 4');
    expect(allToOne!.evidence).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: 'indirection table entries (table partly read) pointing at queue 0', observed: 32, expected: 8 }),
        expect.objectContaining({ label: 'receive channels in use (ethtool -l)', observed: 4 }),
      ]),
    );
  });

  it('keeps all-to-one at warning on a slower or unknown-speed port', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { speedMbps: null }),
      'ethtool.rxfh': table(new Array(128).fill(2), 4),
    });
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'all-to-one-queue',
        severity: 'warning',
        data: expect.objectContaining({ queue: 2, rings: 4, complete: true }),
      }),
    ]);
  });

  it('fails a table that uses 4 of 16 rings', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.rxfh': table(roundRobin(128, 4), 16) });
    expect(result.status).toBe('fail');
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]).toMatchObject({
      symptom: 'uneven-indirection',
      severity: 'warning',
      fix: 'ethtool -X eth0 equal 16 (or ethtool -X eth0 default), unless the weights were set on purpose',
      data: { usedQueues: 4, rings: 16, busiestQueue: 0, busiestPercent: 25, fairPercent: 6.3, ratio: 2 },
    });
  });

  it('accepts a skew below the ratio option and flags it when the option is lowered', async () => {
    // Queue 1 holds 5/8 of a 2-ring table: 1.25x its fair share.
    const skewed = table([0, 0, 0, 1, 1, 1, 1, 1], 2);
    expect((await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.rxfh': skewed })).status).toBe('pass');
    const strict = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.rxfh': skewed }, { options: { unevenRatio: 1.2 } });
    expect(strict.findings).toEqual([
      expect.objectContaining({ symptom: 'uneven-indirection', data: expect.objectContaining({ busiestQueue: 1, busiestPercent: 62.5 }) }),
    ]);
  });

  it('does not blame a zero key when Toeplitz is not the hash function', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0'),
      'ethtool.rxfh': table(roundRobin(64, 4), 4, {
        hashKey: new Array(40).fill(0),
        hashFunctions: { toeplitz: false, xor: true, crc32: false },
      }),
    });
    expect(result.status).toBe('pass');
  });

  it('is not applicable on virtio without an RSS table (local VM capture)', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { kind: 'paravirtual', driver: 'virtio_net' }),
      'ethtool.rxfh': rxfh('local-vm/ethtool_-x-virtio_net-eth0.txt'),
    });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('virtio_net driver has no RSS indirection table');
  });

  it('is not applicable when ethtool -x is not supported by the driver', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0', { driver: 'e1000e' }),
      'ethtool.rxfh': failed(
        'unsupported',
        '`ethtool -x eth0`: the driver does not support this (Cannot get RX ring count: Operation not supported)',
      ),
    });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('the e1000e driver has no RSS indirection table');
  });

  it('is not applicable with a single ring, and on software interfaces', async () => {
    const single = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.rxfh': table(new Array(128).fill(0), 1) });
    expect(single.status).toBe('not-applicable');
    expect(single.reason).toContain('single receive ring');
    const veth = await tester.run(
      { 'net.device': netDevice('nd-va', { kind: 'virtual', driver: null }), 'ethtool.rxfh': failed('unsupported') },
      { interfaces: [{ name: 'nd-va', kind: 'virtual' }] },
    );
    expect(veth.status).toBe('not-applicable');
  });

  it('is unknown, with the hint, when ethtool -x cannot be run', async () => {
    const result = await tester.run({
      'net.device': netDevice('eth0'),
      'ethtool.rxfh': failed(
        'tool-missing',
        'ethtool: command not found',
        'install ethtool: apt-get install ethtool (dnf install ethtool on RHEL)',
      ),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('ethtool: command not found');
    expect(result.hint).toContain('apt-get install ethtool');
  });

  it('is unknown when the table header has no entries', async () => {
    const result = await tester.run({ 'net.device': netDevice('eth0'), 'ethtool.rxfh': table([], 4) });
    expect(result.status).toBe('unknown');
  });
});
