import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { checks } from '../../checks/index.js';
import { aggregateStep, alignIntervals, type ClientOutcome } from '../../src/bench/aggregate.js';
import type { BenchMeasurement } from '../../src/collectors/bench-result.js';
import { scan, type ScanOutcome } from '../../src/pipeline/scan.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import type { Iperf3Result } from '../../src/parsers/iperf3-json.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from './fixtures.js';

export const HOSTS_DIR = path.join(FIXTURES, 'hosts');

/** Every recorded host scenario (fixtures/hosts/<name> with a snapshot.json). */
export const scenarioNames: string[] = existsSync(HOSTS_DIR)
  ? readdirSync(HOSTS_DIR)
      .filter((name) => existsSync(path.join(HOSTS_DIR, name, 'snapshot.json')))
      .sort()
  : [];

/** A scenario through the whole pipeline (snapshot → collectors → checks → validated report). */
export async function scanScenario(name: string, bench?: BenchMeasurement): Promise<ScanOutcome> {
  const dir = path.join(HOSTS_DIR, name);
  const io = await SnapshotHostIO.open(dir);
  return scan({
    io,
    checks,
    log: silentLogger(),
    sourcePath: dir,
    ...(bench ? { beforeChecks: async (store) => store.provide('bench.result', bench) } : {}),
  });
}

const G = 1e9;

/** One client's iperf3 result running at the given Gb/s per interval. */
function clientResult(rates: number[], retransmits: number): Iperf3Result {
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  return {
    version: '3.12',
    protocol: 'TCP',
    streams: 1,
    error: null,
    senderBitsPerSecond: mean * G,
    receiverBitsPerSecond: mean * G,
    reverseSenderBitsPerSecond: null,
    reverseReceiverBitsPerSecond: null,
    retransmits,
    seconds: rates.length,
    hostCpuPercent: 55,
    remoteCpuPercent: 30,
    lostPercent: null,
    sndbufActual: null,
    rcvbufActual: null,
    intervals: rates.map((rate, index) => ({ start: index, end: index + 1, bitsPerSecond: rate * G, retransmits: 0, omitted: false })),
  };
}

/**
 * A peer bench measured without any network (no loopback, no iperf3): `processes` clients at
 * `perProcessGbps` each, through the real aggregation code, as `scan --peer` would provide it.
 */
export function syntheticBench(options: {
  processes: number;
  perProcessGbps: number;
  retransmits?: number;
  linkSpeedMbps?: number;
  interface?: string;
  complete?: boolean;
}): BenchMeasurement {
  const outcomes = (count: number): ClientOutcome[] =>
    Array.from({ length: count }, (_, index) => ({
      label: `p${index + 1}`,
      port: 5101 + index,
      cpu: index,
      pid: 1000 + index,
      result: clientResult([options.perProcessGbps, options.perProcessGbps, options.perProcessGbps], options.retransmits ?? 0),
      error: null,
      measuredCpuPercent: 60,
      cpuQuotaPercent: null,
      throttledPeriods: null,
      serverVersion: '3.12',
      cpuSeconds: 2,
    }));
  const ramp = [1, options.processes]
    .filter((count, index, all) => all.indexOf(count) === index)
    .map((count) => aggregateStep(outcomes(count), 1, 3));
  const final = outcomes(options.processes);
  const last = aggregateStep(final, 1, 10);
  const linkSpeedMbps = options.linkSpeedMbps ?? 10_000;
  return {
    mode: 'peer',
    peer: '192.0.2.7',
    direction: 'forward',
    protocol: 'tcp',
    iperf3: { client: '3.12', server: '3.12' },
    interface: options.interface ?? 'eth0',
    linkSpeedMbps,
    mtu: 1500,
    ceilingBitsPerSecond: (linkSpeedMbps * 1e6 * 1448) / 1538,
    pcieBitsPerSecond: null,
    ports: final.map((o) => o.port),
    cpus: final.map((o) => o.cpu!),
    steps: ramp,
    stopReason: 'gain below 5 %',
    result: {
      bitsPerSecond: last.bitsPerSecond,
      senderBitsPerSecond: last.senderBitsPerSecond,
      reverseBitsPerSecond: null,
      retransmits: last.retransmits,
      durationSeconds: 10,
      processes: final.length,
      streamsPerProcess: 1,
      intervals: alignIntervals(final.map((o) => o.result)),
      perProcess: last.perProcess,
    },
    counters: { softnetDropped: 0, softnetTimeSqueeze: 0, nicDrops: {}, interruptsPerCpu: [10, 12] },
    complete: options.complete ?? true,
    error: options.complete === false ? 'interrupted' : null,
    cpuSeconds: { nicdoctor: 0.2, iperf3: 30 },
    durationMs: 25_000,
  };
}
