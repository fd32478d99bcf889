import { describe, expect, it } from 'vitest';
import protocolCounters from '../../checks/protocol-counters.js';
import { parseProcNetCounters, parseProcNetDev } from '../../src/parsers/proc-net.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const tester = checkTester(protocolCounters);

function countersFrom(...files: string[]) {
  const counters: Record<string, number> = {};
  for (const file of files) Object.assign(counters, parseProcNetCounters(realCapture(file), file));
  return { counters, files };
}

describe('protocol-counters check', () => {
  it('notes 0.82 % TCP retransmits on a busy real server (snmp-netutils-1), below the 1 % warning', async () => {
    const result = await tester.run({ 'net.protocol': countersFrom('procnet/snmp-netutils-1.txt') });
    expect(result.status).toBe('pass');
    const retrans = result.findings.find((finding) => finding.symptom === 'tcp-retransmits')!;
    expect(retrans).toMatchObject({ severity: 'info', data: { retrans: 133674663, sent: 16338441124, ratio: 0.00818 } });
    expect(retrans.message).toContain('(0.82 %)');
    // RcvbufErrors 0 and SndbufErrors 0 on that host: nothing to say about UDP.
    expect(result.findings.map((finding) => finding.symptom)).not.toContain('udp-buffer-errors');
  });

  it('passes a desktop VM with no loss (netstat-jc-1: no TcpExt drops)', async () => {
    const result = await tester.run({ 'net.protocol': countersFrom('procnet/netstat-jc-1.txt') });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('warns on UDP receive-buffer drops above one in ten thousand datagrams, notes them below', async () => {
    const snmp = (errors: number) =>
      `Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\nUdp: 1000000 0 ${errors} 10 ${errors} 0\n`;
    const heavy = await tester.run({ 'net.protocol': { counters: parseProcNetCounters(snmp(52311), 'snmp'), files: ['/proc/net/snmp'] } });
    expect(heavy.status).toBe('fail');
    expect(heavy.findings[0]).toMatchObject({
      symptom: 'udp-buffer-errors',
      severity: 'warning',
      data: { direction: 'Rcv', errors: 52311 },
    });
    const light = await tester.run({ 'net.protocol': { counters: parseProcNetCounters(snmp(3), 'snmp'), files: ['/proc/net/snmp'] } });
    expect(light.status).toBe('pass');
    expect(light.findings[0]).toMatchObject({ symptom: 'udp-buffer-errors', severity: 'info' });
  });

  it('warns on millions of RcvbufErrors since boot although they are a small share of the datagrams (count or rate)', async () => {
    const snmp = 'Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\nUdp: 90000000000 0 4200000 10 4200000 0\n';
    const result = await tester.run({ 'net.protocol': { counters: parseProcNetCounters(snmp, 'snmp'), files: ['/proc/net/snmp'] } });
    // 4.2 M of 90 G datagrams is 4.7e-5, below the 1e-4 rate: the count alone makes it a warning.
    expect(result.findings[0]).toMatchObject({ symptom: 'udp-buffer-errors', severity: 'warning', data: { errors: 4_200_000 } });
  });

  it('warns on socket backlog drops and notes listen drops', async () => {
    const netstat = 'TcpExt: PruneCalled RcvPruned ListenOverflows ListenDrops TCPBacklogDrop\nTcpExt: 30 14 7 7 1200\n';
    const result = await tester.run({
      'net.protocol': { counters: parseProcNetCounters(netstat, 'netstat'), files: ['/proc/net/netstat'] },
    });
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['socket-backlog-drops', 'warning'],
      ['listen-drops', 'info'],
    ]);
  });

  it('is unknown when neither file could be read, with the reason', async () => {
    const result = await tester.run({ 'net.protocol': failed('not-captured', 'the sosreport holds no /proc/net/snmp') });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('/proc/net/snmp');
  });

  it('parses /proc/net/dev of a real docker host (veth, docker0) and rejects text that is not it', () => {
    const entries = parseProcNetDev(realCapture('procnet/dev-procfs-1.txt'));
    expect(entries.map((entry) => entry.name)).toEqual(['vethf345468', 'lo', 'docker0', 'eth0']);
    expect(entries[0]!.rx).toMatchObject({ bytes: 648, packets: 8, drop: 0 });
    expect(() => parseProcNetDev('hello world\n')).toThrow(/proc\/net\/dev/);
    expect(() => parseProcNetCounters('nothing here\n', '/proc/net/snmp')).toThrow(/proc\/net\/snmp/);
  });
});
