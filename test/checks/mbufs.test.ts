import { describe, expect, it } from 'vitest';
import mbufs from '../../checks/mbufs.js';
import { parseNetstatM, type NetstatMbufs } from '../../src/parsers/freebsd-netstat-m.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const tester = checkTester(mbufs);

/** The real capture: a busy Apache/MySQL server on FreeBSD 6 (freebsd-net list, 2006). */
const apache = () => parseNetstatM(realCapture('freebsd/netstat-m-mbufs-denied.txt'));
const none = { mbufsDenied: 0, clustersDenied: 0, mbufClustersDenied: 0, jumboDenied: 0, delayed: 0 };

describe('mbufs check', () => {
  it('blames free memory, not the pool limit, when millions of requests were denied with the pool at 1 % (real netstat -m)', async () => {
    const result = await tester.run({ 'net.mbufs': apache() });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'mbuf-requests-denied',
        severity: 'warning',
        data: expect.objectContaining({
          mbufsDenied: 16064849,
          clustersDenied: 9164254,
          clustersInUse: 662,
          clustersMax: 65536,
          percent: 1,
        }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('16064849 mbuf, 9164254 cluster and 9384500 mbuf+cluster requests denied since boot');
  });

  it('passes the same host once nothing is denied, and a pool that is half used', async () => {
    expect((await tester.run({ 'net.mbufs': { ...apache(), ...none } })).status).toBe('pass');
    expect((await tester.run({ 'net.mbufs': { ...apache(), ...none, clustersInUse: 32768 } })).status).toBe('pass');
  });

  it('names the pool limit when the clusters reached kern.ipc.nmbclusters, and is a note while nothing is denied yet', async () => {
    const full: NetstatMbufs = { ...apache(), ...none, mbufsDenied: 106522, delayed: 1545, clustersInUse: 6656, clustersMax: 6656 };
    const [finding] = (await tester.run({ 'net.mbufs': full })).findings;
    expect(finding).toMatchObject({ symptom: 'mbuf-pool-exhausted', severity: 'warning', data: { percent: 100, delayed: 1545 } });
    expect(finding!.message).toContain('6656 of 6656 clusters allocated (100 %), 106522 mbuf requests denied, 1545 delayed since boot');
    const [note] = (await tester.run({ 'net.mbufs': { ...full, ...none } })).findings;
    expect(note).toMatchObject({ symptom: 'mbuf-pool-exhausted', severity: 'info' });
  });

  it('treats requests that only waited as a note', async () => {
    const [finding] = (await tester.run({ 'net.mbufs': { ...apache(), ...none, delayed: 12 } })).findings;
    expect(finding).toMatchObject({ symptom: 'mbuf-requests-denied', severity: 'info' });
  });

  it('does not apply off FreeBSD, and is unknown without the pool line or when netstat -m was not captured', async () => {
    expect((await tester.run({ 'net.mbufs': failed('unsupported', "mbuf pools are FreeBSD's") })).status).toBe('not-applicable');
    expect((await tester.run({ 'net.mbufs': failed('not-captured') })).status).toBe('unknown');
    expect((await tester.run({ 'net.mbufs': { ...apache(), clustersMax: null, clustersInUse: null } })).status).toBe('unknown');
    expect((await tester.run({ 'net.mbufs': { ...apache(), clustersMax: 0 } })).status).toBe('unknown');
  });
});
