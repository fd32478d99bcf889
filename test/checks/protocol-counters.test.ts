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

  it('judges socket backlog drops by their rate since boot: a warning at 1214 in an hour, a note without an uptime', async () => {
    const netstat = 'TcpExt: PruneCalled RcvPruned ListenOverflows ListenDrops TCPBacklogDrop\nTcpExt: 30 14 7 7 1200\n';
    const protocol = { counters: parseProcNetCounters(netstat, 'netstat'), files: ['/proc/net/netstat'] };
    const hour = await tester.run({ 'net.protocol': protocol, 'host.uptime': { seconds: 3600 } });
    expect(hour.status).toBe('fail');
    expect(hour.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['socket-backlog-drops', 'warning'],
      ['listen-drops', 'info'],
    ]);
    expect(hour.findings[0]!.message).toContain('(1210 per hour since boot)');
    const noUptime = await tester.run({ 'net.protocol': protocol, 'host.uptime': failed('not-captured') });
    expect(noUptime.status).toBe('pass');
    expect(noUptime.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['socket-backlog-drops', 'info'],
      ['listen-drops', 'info'],
    ]);
  });

  it('warns on 36278 listen overflows on a real production host (count alone), and notes its one backlog drop and 39 TCP checksum errors', async () => {
    const protocol = countersFrom('procnet/snmp-below-fb-1.txt', 'procnet/netstat-below-fb-1.txt');
    const result = await tester.run({ 'net.protocol': protocol, 'host.uptime': failed('not-captured') });
    expect(result.status).toBe('fail');
    const bySymptom = Object.fromEntries(result.findings.map((finding) => [finding.symptom, finding]));
    expect(bySymptom['listen-drops']).toMatchObject({ severity: 'warning', data: { listenDrops: 36278, overflows: 36278, perHour: null } });
    expect(bySymptom['socket-backlog-drops']).toMatchObject({ severity: 'info', data: { backlogDrops: 1, pruned: 0, pruneCalled: 32430 } });
    expect(bySymptom['checksum-errors']).toMatchObject({ severity: 'info', data: { protocol: 'Tcp', errors: 39, received: 2041813239 } });
    expect(bySymptom['zero-window-drops']).toBeUndefined();
    expect(bySymptom['memory-pressure']).toBeUndefined();
  });

  it('notes two listen drops on a real host under 10 % packet loss, and nothing else above the NIC', async () => {
    const result = await tester.run({
      'net.protocol': countersFrom('procnet/netstat-cockroach-loss-1.txt'),
      'host.uptime': failed('not-captured'),
    });
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([['listen-drops', 'info']]);
  });

  it("stays quiet on this project's own KVM guest (real /proc/net/snmp, /proc/net/netstat and /proc/uptime)", async () => {
    const protocol = countersFrom('local-vm/proc-net-snmp-vm.txt', 'local-vm/proc-net-netstat-vm.txt');
    const result = await tester.run({ 'net.protocol': protocol, 'host.uptime': { seconds: 1062.03 } });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  // The counters below are named as the kernel prints them (include/uapi/linux/snmp.h); no real
  // capture with these drops is stored, so the values are chosen to sit either side of the limits.
  it('judges zero-window and receive-queue drops by count or rate', async () => {
    const netstat = (zero: number, rcvq: number) => ({
      counters: parseProcNetCounters(`TcpExt: TCPZeroWindowDrop TCPRcvQDrop\nTcpExt: ${zero} ${rcvq}\n`, 'netstat'),
      files: ['/proc/net/netstat'],
    });
    const many = await tester.run({ 'net.protocol': netstat(9000, 2000), 'host.uptime': failed('not-captured') });
    expect(many.findings).toEqual([
      expect.objectContaining({
        symptom: 'zero-window-drops',
        severity: 'warning',
        data: expect.objectContaining({ zeroWindowDrops: 9000, receiveQueueDrops: 2000 }),
      }),
    ]);
    const few = await tester.run({ 'net.protocol': netstat(12, 0), 'host.uptime': { seconds: 30 * 86400 } });
    expect(few.findings).toEqual([expect.objectContaining({ symptom: 'zero-window-drops', severity: 'info' })]);
  });

  it('warns on memory pressure that cost connections or packets, notes pressure alone', async () => {
    const netstat = (pressures: number, aborts: number, pfmemalloc: number) => ({
      counters: parseProcNetCounters(
        `TcpExt: TCPMemoryPressures TCPAbortOnMemory PFMemallocDrop\nTcpExt: ${pressures} ${aborts} ${pfmemalloc}\n`,
        'netstat',
      ),
      files: ['/proc/net/netstat'],
    });
    const lost = await tester.run({ 'net.protocol': netstat(3, 0, 17), 'host.uptime': failed('not-captured') });
    expect(lost.findings).toEqual([expect.objectContaining({ symptom: 'memory-pressure', severity: 'warning' })]);
    expect(lost.findings[0]!.message).toContain('dropped 17 packets that arrived in emergency memory');
    const pressureOnly = await tester.run({ 'net.protocol': netstat(3, 0, 0), 'host.uptime': { seconds: 86400 } });
    expect(pressureOnly.findings).toEqual([expect.objectContaining({ symptom: 'memory-pressure', severity: 'info' })]);
  });

  it('notes UDP InErrors that neither buffer nor checksum errors explain', async () => {
    const snmp = 'Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors\nUdp: 1000 0 30 10 0 0 22\n';
    const result = await tester.run({
      'net.protocol': { counters: parseProcNetCounters(snmp, 'snmp'), files: ['/proc/net/snmp'] },
      'host.uptime': failed('not-captured'),
    });
    expect(result.findings.map((finding) => [finding.symptom, finding.severity, finding.data.other ?? finding.data.errors])).toEqual([
      ['checksum-errors', 'info', 22],
      ['udp-other-errors', 'info', 8],
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
