import { describe, expect, it } from 'vitest';
import socketMemory from '../../checks/socket-memory.js';
import { parseMemLimits, parseSockstat } from '../../src/parsers/sockstat.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const tester = checkTester(socketMemory);

function fact(sockstat: string, tcpMem: string, udpMem: string) {
  const parsed = parseSockstat(sockstat);
  return {
    tcp: { pages: parsed.TCP?.mem ?? null, limits: parseMemLimits('tcp_mem', tcpMem) },
    udp: { pages: parsed.UDP?.mem ?? null, limits: parseMemLimits('udp_mem', udpMem) },
  };
}

describe('socket-memory check', () => {
  it('passes a Kubernetes VM (real sockstat and tcp_mem/udp_mem from its sosreport)', async () => {
    const memory = fact(realCapture('procnet/sockstat-hotsos-k8s-vm-1.txt'), '45588\t60787\t91176', '91179\t121574\t182358');
    const result = await tester.run({ 'net.socket-memory': memory });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it("passes this project's own KVM guest (real sockstat, tcp_mem and udp_mem)", async () => {
    const memory = fact(realCapture('local-vm/proc-net-sockstat-vm.txt'), '287898\t383866\t575796', '575799\t767732\t1151598');
    expect((await tester.run({ 'net.socket-memory': memory })).status).toBe('pass');
  });

  // The sockstat line format is the kernel's (net/ipv4/proc.c); the page counts are chosen either side of the thresholds.
  it('warns above the pressure threshold and is critical at the high one', async () => {
    const sockstat = (tcp: number, udp: number) =>
      `sockets: used 908\nTCP: inuse 22 orphan 0 tw 2 alloc 58 mem ${tcp}\nUDP: inuse 18 mem ${udp}\n`;
    const pressured = await tester.run({
      'net.socket-memory': fact(sockstat(260_000, 10), '189864 253153 379728', '379728 506307 759456'),
    });
    expect(pressured.status).toBe('fail');
    expect(pressured.findings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        data: { protocol: 'TCP', pages: 260_000, pressurePages: 253_153, highPages: 379_728, level: 'pressure' },
      }),
    ]);
    expect(pressured.findings[0]!.message).toContain('above its pressure threshold');
    const exhausted = await tester.run({
      'net.socket-memory': fact(sockstat(10, 760_000), '189864 253153 379728', '379728 506307 759456'),
    });
    expect(exhausted.findings).toEqual([
      expect.objectContaining({ severity: 'critical', data: expect.objectContaining({ protocol: 'UDP', level: 'exhausted' }) }),
    ]);
  });

  it('is unknown without a limit to compare with, and when the fact failed', async () => {
    const noLimits = { tcp: { pages: 7, limits: null }, udp: { pages: 1, limits: null } };
    expect((await tester.run({ 'net.socket-memory': noLimits })).status).toBe('unknown');
    expect((await tester.run({ 'net.socket-memory': failed('not-captured') })).status).toBe('unknown');
  });
});
