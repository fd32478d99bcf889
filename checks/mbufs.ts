import { z } from 'zod';
import { defineCheck, symptom, type CheckContext } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import type { NetstatMbufs } from '../src/parsers/freebsd-netstat-m.js';

const options = z.object({
  /** Clusters allocated at this share of kern.ipc.nmbclusters: the pool is at its limit. */
  fullPercent: z.number().positive().max(100).default(90),
});

const deniedData = z.object({
  mbufsDenied: z.number().int().nonnegative(),
  clustersDenied: z.number().int().nonnegative(),
  mbufClustersDenied: z.number().int().nonnegative(),
  jumboDenied: z.number().int().nonnegative(),
  delayed: z.number().int().nonnegative(),
  clustersInUse: z.number().int().nonnegative(),
  clustersMax: z.number().int().positive(),
  percent: z.number().nonnegative(),
});
type DeniedData = z.infer<typeof deniedData>;

const deniedPhrases = {
  /** "16064849 mbuf, 9164254 cluster and 9384500 mbuf+cluster requests" — only the kinds that were denied. */
  denials: (data: DeniedData) => {
    const parts = [
      data.mbufsDenied ? `${data.mbufsDenied} mbuf` : '',
      data.clustersDenied ? `${data.clustersDenied} cluster` : '',
      data.mbufClustersDenied ? `${data.mbufClustersDenied} mbuf+cluster` : '',
      data.jumboDenied ? `${data.jumboDenied} jumbo cluster` : '',
    ].filter(Boolean);
    const list = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? 'no');
    return `${list} requests denied${data.delayed ? `, ${data.delayed} delayed` : ''}`;
  },
};

const check = defineCheck({
  id: 'mbufs',
  title: 'Network buffers (FreeBSD mbufs)',
  description:
    "Reads FreeBSD's netstat -m: the mbuf and cluster requests the allocator denied or delayed since boot, and the clusters allocated against kern.ipc.nmbclusters. A denied request is a packet that was not received or sent. With the pool at its limit, the limit is too low; with the pool far from it, the kernel was short of free memory and reclaimed the buffer caches. Linux has no mbuf pools: its packet memory is judged by socket-memory.",
  scope: 'host',
  requires: [],
  optionalFacts: ['net.mbufs'],
  options,
  symptoms: {
    'mbuf-pool-exhausted': symptom({
      severity: 'warning',
      data: deniedData,
      phrases: deniedPhrases,
      message:
        'The mbuf cluster pool reached its limit: {clustersInUse} of {clustersMax} clusters allocated ({percent} %), {denials} since boot',
      fix: 'Raise kern.ipc.nmbclusters (a loader tunable in /boot/loader.conf; each cluster is 2 KiB of kernel memory) and find what holds the buffers (netstat -an: large Recv-Q/Send-Q).',
    }),
    'mbuf-requests-denied': symptom({
      severity: 'warning',
      data: deniedData,
      phrases: deniedPhrases,
      message:
        'The kernel denied network buffers: {denials} since boot, while only {clustersInUse} of {clustersMax} clusters are allocated ({percent} %): the memory, not the pool limit, ran short',
      fix: 'Look at free memory when the denials grow (sysctl vm.stats.vm.v_free_count vm.v_free_min; vmstat -z | grep mbuf): raising kern.ipc.nmbclusters does not help a host that is short of free pages.',
    }),
  },
  run(ctx) {
    const result = ctx.optional['net.mbufs'];
    if (!result.ok) return skipForFailedFact(ctx, result.error, { unsupported: (message) => message });
    const mbufs = result.value;
    if (mbufs.clustersMax === null || mbufs.clustersInUse === null)
      return ctx.unknown('netstat -m gives no "mbuf clusters in use (.../max)" line: the pool and its limit are not known');
    if (mbufs.clustersMax === 0) return ctx.unknown('netstat -m gives a cluster limit of 0');
    reportDenials(ctx, mbufs, mbufs.clustersInUse, mbufs.clustersMax);
    return undefined;
  },
});

export default check;

type Ctx = CheckContext<never, 'net.mbufs', typeof check.symptoms, z.output<typeof options>>;

/** Denials (or a full pool with none yet, as a note) as the symptom that names what ran out. */
function reportDenials(ctx: Ctx, mbufs: NetstatMbufs, inUse: number, max: number): void {
  const percent = Number(((inUse / max) * 100).toFixed(1));
  const denied = mbufs.mbufsDenied + mbufs.clustersDenied + mbufs.mbufClustersDenied + mbufs.jumboDenied;
  const full = percent >= ctx.options.fullPercent;
  if (denied + mbufs.delayed === 0 && !full) return;
  const data = {
    mbufsDenied: mbufs.mbufsDenied,
    clustersDenied: mbufs.clustersDenied,
    mbufClustersDenied: mbufs.mbufClustersDenied,
    jumboDenied: mbufs.jumboDenied,
    delayed: mbufs.delayed,
    clustersInUse: inUse,
    clustersMax: max,
    percent,
  };
  const from = ctx.source('net.mbufs', 'netstat -m');
  const evidence = [
    { label: 'mbuf requests denied', observed: denied, expected: '0', ...(from ? { source: from } : {}) },
    { label: 'mbuf clusters allocated', observed: inUse, expected: `< ${ctx.options.fullPercent} % of ${max}`, unit: 'clusters' },
  ];
  // A full pool that has denied nothing yet is a note: no packet was lost for it.
  if (full) ctx.report('mbuf-pool-exhausted', { ...(denied + mbufs.delayed === 0 ? { severity: 'info' as const } : {}), evidence, data });
  else ctx.report('mbuf-requests-denied', { ...(denied === 0 ? { severity: 'info' as const } : {}), evidence, data });
}
