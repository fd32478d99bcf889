import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { MemLimits } from '../src/parsers/sockstat.js';

const PAGE_BYTES = 4096;

export default defineCheck({
  id: 'socket-memory',
  title: 'Socket memory against tcp_mem and udp_mem',
  description:
    "Compares the memory TCP and UDP sockets hold now (/proc/net/sockstat, pages) with net.ipv4.tcp_mem and udp_mem. At or above the pressure threshold the kernel shrinks every socket's buffers; at the high threshold it drops what arrives and refuses new allocations. A snapshot: the TcpExt TCPMemoryPressures counter (protocol-counters) says whether it happened before.",
  scope: 'host',
  requires: ['net.socket-memory'],
  options: z.object({}),
  symptoms: {
    'socket-memory-pressure': symptom({
      severity: 'warning',
      data: z.object({
        protocol: z.enum(['TCP', 'UDP']),
        pages: z.number().int().nonnegative(),
        pressurePages: z.number().int().nonnegative(),
        highPages: z.number().int().nonnegative(),
        /** pressure: at or above the pressure threshold; exhausted: at or above the high one. */
        level: z.enum(['pressure', 'exhausted']),
      }),
      phrases: {
        mib: (d) => String(Math.round((d.pages * PAGE_BYTES) / 2 ** 20)),
        highMib: (d) => String(Math.round((d.highPages * PAGE_BYTES) / 2 ** 20)),
        sysctl: (d) => (d.protocol === 'TCP' ? 'net.ipv4.tcp_mem' : 'net.ipv4.udp_mem'),
        effect: (d) =>
          d.level === 'exhausted'
            ? 'at its high limit: the kernel drops what arrives for these sockets and refuses new buffers'
            : 'above its pressure threshold: the kernel is shrinking every socket buffer, which caps each flow',
      },
      message: '{protocol} sockets hold {pages} pages ({mib} MiB) of {sysctl} = {pressurePages} (pressure) / {highPages} (high): {effect}',
      fix: 'Find the sockets holding memory (ss -tmp: large Recv-Q on sockets nobody reads), and raise {sysctl} if the host has the memory for it (its high value is {highMib} MiB now).',
    }),
  },
  run({ facts, report, unknown, source }) {
    const memory = facts['net.socket-memory'];
    const from = source('net.socket-memory', '/proc/net/sockstat');
    let judged = 0;
    for (const [protocol, entry] of [
      ['TCP', memory.tcp],
      ['UDP', memory.udp],
    ] as const) {
      if (entry.pages === null || entry.limits === null) continue;
      judged += 1;
      const level = levelOf(entry.pages, entry.limits);
      if (!level) continue;
      report('socket-memory-pressure', {
        ...(level === 'exhausted' ? { severity: 'critical' as const } : {}),
        evidence: [
          {
            label: `${protocol} socket memory`,
            observed: entry.pages,
            expected: `< ${entry.limits.pressure}`,
            unit: 'pages',
            ...(from ? { source: from } : {}),
          },
          {
            label: protocol === 'TCP' ? 'net.ipv4.tcp_mem' : 'net.ipv4.udp_mem',
            observed: `${entry.limits.low} ${entry.limits.pressure} ${entry.limits.high}`,
          },
        ],
        data: { protocol, pages: entry.pages, pressurePages: entry.limits.pressure, highPages: entry.limits.high, level },
      });
    }
    if (judged === 0)
      return unknown('neither TCP nor UDP socket memory could be compared with its limit (sockstat or tcp_mem/udp_mem missing)');
    return undefined;
  },
});

function levelOf(pages: number, limits: MemLimits): 'pressure' | 'exhausted' | null {
  if (limits.high > 0 && pages >= limits.high) return 'exhausted';
  if (limits.pressure > 0 && pages >= limits.pressure) return 'pressure';
  return null;
}
