import { describe, expect, it } from 'vitest';
import qdisc from '../../checks/qdisc.js';
import { parseTcClass, parseTcQdisc } from '../../src/parsers/tc-qdisc.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const tester = checkTester(qdisc);

const tcOf = (qdiscFile: string, classFile?: string) => ({
  qdiscs: parseTcQdisc(realCapture(qdiscFile)),
  classes: classFile ? parseTcClass(realCapture(classFile)) : [],
});

describe('qdisc check', () => {
  it('passes the default qdisc of a veth (noqueue) and of a virtio NIC (pfifo_fast, no drops)', async () => {
    for (const file of ['tc/veth-default-noqueue.txt', 'tc/vm-eth0-default.txt']) {
      const result = await tester.run({ 'tc.qdisc': tcOf(file), 'net.device': netDevice('eth0') });
      expect(result.status, file).toBe('pass');
      expect(result.findings).toEqual([]);
    }
  });

  it('fails a 2 Gbit tbf on a 10 Gb/s link (real capture), with the rate and link in data', async () => {
    const result = await tester.run({ 'tc.qdisc': tcOf('tc/tbf-2gbit-root.txt'), 'net.device': netDevice('eth0', { speedMbps: 10_000 }) });
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'egress-shaped',
        severity: 'warning',
        subject: 'eth0',
        data: expect.objectContaining({
          kind: 'tbf',
          handle: '8016:',
          rateMbps: 2000,
          rateGbps: 2,
          linkMbps: 10_000,
          linkGbps: 10,
          percent: 20,
          perFlow: false,
        }),
      }),
    ]);
    expect(result.findings[0]!.message).toBe('eth0: tbf 8016: limits egress to 2 Gb/s, 20 % of the 10 Gb/s link');
    expect(result.findings[0]!.fix).toContain('tc qdisc del dev eth0 root');
  });

  it('reports the drops of a saturated tbf (real capture) as well as the shaper', async () => {
    const result = await tester.run({ 'tc.qdisc': tcOf('tc/tbf-10mbit-drops.txt'), 'net.device': netDevice('eth0') });
    expect(result.findings.map((finding) => finding.symptom).sort()).toEqual(['egress-shaped', 'qdisc-drops']);
    const drops = result.findings.find((finding) => finding.symptom === 'qdisc-drops')!;
    expect(drops.data).toMatchObject({ kind: 'tbf', dropped: 2966, overlimits: 3045, sentPackets: 34 });
  });

  it('takes an htb class ceil from tc class show (real capture)', async () => {
    const result = await tester.run({
      'tc.qdisc': tcOf('tc/htb-500mbit-root.txt', 'tc/htb-500mbit-class.txt'),
      'net.device': netDevice('eth0'),
    });
    expect(result.findings[0]).toMatchObject({
      symptom: 'egress-shaped',
      data: expect.objectContaining({ kind: 'htb', type: 'class', handle: '1:10', rateMbps: 1000, percent: 10 }),
    });
  });

  it('says fq maxrate caps each flow', async () => {
    const tc = {
      qdiscs: parseTcQdisc(
        'qdisc fq 8001: root refcnt 2 limit 10000p flow_limit 100p maxrate 3Gbit\n Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0)\n',
      ),
      classes: [],
    };
    const result = await tester.run({ 'tc.qdisc': tc, 'net.device': netDevice('eth0', { speedMbps: 25_000 }) });
    expect(result.findings[0]!.message).toBe('eth0: fq 8001: limits each flow to 3 Gb/s, 12 % of the 25 Gb/s link');
  });

  it('passes a shaper at the link speed, and ignores ingress', async () => {
    const tc = {
      qdiscs: parseTcQdisc(
        'qdisc tbf 1: root refcnt 2 rate 10Gbit burst 1Mb lat 10ms\nqdisc ingress ffff: parent ffff:fff1 ----------------\n',
      ),
      classes: [],
    };
    const result = await tester.run({ 'tc.qdisc': tc, 'net.device': netDevice('eth0', { speedMbps: 10_000 }) });
    expect(result.status).toBe('pass');
  });

  it('is unknown when a shaper exists but the link speed is not known', async () => {
    const result = await tester.run({ 'tc.qdisc': tcOf('tc/tbf-2gbit-root.txt'), 'net.device': netDevice('eth0', { speedMbps: null }) });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('link speed is unknown');
  });

  it('is unknown, with the reason, when tc cannot be run', async () => {
    const result = await tester.run({
      'tc.qdisc': failed('permission-denied', '`tc -s qdisc show dev eth0`: permission denied', 'run as root'),
      'net.device': netDevice('eth0'),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('permission denied');
  });

  it('is not applicable to a bridge', async () => {
    const result = await tester.run(
      { 'tc.qdisc': tcOf('tc/tbf-2gbit-root.txt'), 'net.device': netDevice('br0', { kind: 'bridge' }) },
      { interfaces: [{ name: 'br0', kind: 'bridge' }] },
    );
    expect(result.status).toBe('not-applicable');
  });
});
