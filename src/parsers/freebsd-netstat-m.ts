import { ParseError } from './parse-error.js';

/**
 * FreeBSD `netstat -m`: network buffer (mbuf, cluster) use and the requests the allocator denied.
 *
 *   407/255/662/65536 mbuf clusters in use (current/cache/total/max)
 *   16064849/9164254/9384500 requests for mbufs denied (mbufs/clusters/mbuf+clusters)
 *   0/0/0 requests for jumbo clusters denied (4k/9k/16k)
 *   0 requests for mbufs delayed (mbufs/clusters/mbuf+clusters)     (FreeBSD 10+: a/b/c)
 *   5500 calls to protocol drain routines
 *
 * FreeBSD before 5 prints a peak instead of a cache, and one denial count for every kind:
 *
 *   3704/6656/6656 mbuf clusters in use (current/peak/max)
 *   106522 requests for memory denied
 *   1545 requests for memory delayed
 *
 * A mail client may wrap the "(mbufs/clusters/mbuf" legend onto the next line: only the numbers
 * and the words before the parenthesis are read.
 */

export interface NetstatMbufs {
  /** Clusters allocated (in use and cached; before FreeBSD 5, the peak since boot). */
  clustersInUse: number | null;
  /** The pool's limit, kern.ipc.nmbclusters. */
  clustersMax: number | null;
  mbufsDenied: number;
  clustersDenied: number;
  mbufClustersDenied: number;
  jumboDenied: number;
  delayed: number;
  drainCalls: number | null;
}

const sum = (text: string) =>
  text
    .split('/')
    .map(Number)
    .reduce((total, value) => total + (Number.isFinite(value) ? value : 0), 0);

export function isNetstatMbufLine(line: string): boolean {
  return /^\d{1,20}(?:\/\d{1,20}){0,3}[KM]? (?:mbufs? |mbuf clusters |requests for |calls to protocol drain|bytes allocated|sfbufs |4k |9k |16k |mbuf\+clusters |requests for I\/O)/.test(
    line.trim(),
  );
}

export function parseNetstatM(text: string): NetstatMbufs {
  const result: NetstatMbufs = {
    clustersInUse: null,
    clustersMax: null,
    mbufsDenied: 0,
    clustersDenied: 0,
    mbufClustersDenied: 0,
    jumboDenied: 0,
    delayed: 0,
    drainCalls: null,
  };
  let read = 0;
  for (const raw of text.split('\n').slice(0, 10_000)) {
    const line = raw.trim();
    const clusters = /^(\d{1,20})\/(\d{1,20})\/(\d{1,20})\/(\d{1,20}) mbuf clusters in use\b/.exec(line);
    if (clusters) {
      result.clustersInUse = Number(clusters[3]);
      result.clustersMax = Number(clusters[4]);
      read += 1;
      continue;
    }
    // Before FreeBSD 5: current/peak/max, the peak showing whether the pool ever reached its limit.
    const peak = /^(\d{1,20})\/(\d{1,20})\/(\d{1,20}) mbuf clusters in use \(current\/peak\/max\)/.exec(line);
    if (peak) {
      result.clustersInUse = Number(peak[2]);
      result.clustersMax = Number(peak[3]);
      read += 1;
      continue;
    }
    const memory = /^(\d{1,20}) requests for memory (denied|delayed)\b/.exec(line);
    if (memory) {
      if (memory[2] === 'denied') result.mbufsDenied += Number(memory[1]);
      else result.delayed += Number(memory[1]);
      read += 1;
      continue;
    }
    const denied = /^(\d{1,20})\/(\d{1,20})\/(\d{1,20}) requests for mbufs denied\b/.exec(line);
    if (denied) {
      result.mbufsDenied = Number(denied[1]);
      result.clustersDenied = Number(denied[2]);
      result.mbufClustersDenied = Number(denied[3]);
      read += 1;
      continue;
    }
    const jumbo = /^(\d{1,20}(?:\/\d{1,20}){2}) requests for jumbo clusters denied\b/.exec(line);
    if (jumbo) {
      result.jumboDenied = sum(jumbo[1]!);
      read += 1;
      continue;
    }
    const delayed = /^(\d{1,20}(?:\/\d{1,20}){0,2}) requests for (?:mbufs|jumbo clusters) delayed\b/.exec(line);
    if (delayed) {
      result.delayed += sum(delayed[1]!);
      read += 1;
      continue;
    }
    const drain = /^(\d{1,20}) calls to protocol drain routines\b/.exec(line);
    if (drain) {
      result.drainCalls = Number(drain[1]);
      read += 1;
    }
  }
  if (read === 0)
    throw new ParseError('no mbuf line (`N/N/N/N mbuf clusters in use`, `requests for mbufs denied`) in the netstat -m output');
  return result;
}
