import type { Logger } from 'pino';
import type { BenchMeasurement } from '../collectors/bench-result.js';
import { FactStore } from '../engine/collector.js';
import { RunError } from '../engine/errors.js';
import type { HostIO } from '../hostio/types.js';
import type { BenchStep } from '../report/schema.js';
import { collectors } from '../collectors/index.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { compareVersions, parseVersionTriple } from '../parsers/iperf3-version.js';
import { tcpGoodputMbps } from '../domain/goodput.js';
import { usableGbps } from '../domain/pcie.js';
import { shutdownSignal } from '../util/shutdown.js';
import { aggregateStep, alignIntervals, type ClientOutcome } from './aggregate.js';
import { captureCounters, counterDeltas } from './counters.js';
import { planCpus } from './cpu-plan.js';
import { fetchServerInfo } from './info-endpoint.js';
import { runClient, type Direction } from './iperf3-client.js';
import { DEFAULT_RAMP_POLICY, decideAfterStep, rampCounts } from './ramp.js';
import { Iperf3ServerPool } from './server-pool.js';

export interface BenchOptions {
  io: HostIO;
  log: Logger;
  /** Facts already collected by a scan (reused); a fresh store otherwise. */
  store?: FactStore;
  peer: string | null; // null = loopback
  ports: number[];
  controlPort: number;
  durationSeconds: number;
  stepSeconds: number;
  omitSeconds: number;
  maxProcesses?: number;
  direction: Direction;
  udpRate?: string;
  /** Overrides the link speed used for the goodput ceiling (e.g. a tbf-capped lab link). */
  linkSpeedMbps?: number;
  onProgress?: (text: string) => void;
}

const LOOPBACK = '127.0.0.1';

/** "3.17.1", "3.12+" or null against a minimum such as "3.16". */
function versionAtLeast(version: string | null, minimum: string): boolean {
  const numbers = /^\d+\.\d+(?:\.\d+)?/.exec(version ?? '')?.[0];
  return numbers !== undefined && compareVersions(parseVersionTriple(numbers), parseVersionTriple(minimum)) >= 0;
}

/** The interface traffic to the peer leaves by (`ip route get`), null for loopback. */
async function egressInterface(io: HostIO, peer: string): Promise<string | null> {
  try {
    const result = await io.exec(['ip', '-o', 'route', 'get', peer], { timeoutMs: 5000 });
    const dev = /\bdev (\S+)/.exec(result.stdout)?.[1];
    return dev && dev !== 'lo' ? dev : null;
  } catch {
    return null;
  }
}

/**
 * The calibrated multi-process iperf3 test: ramp 1, 2, 4, ... processes (one port and one
 * NIC-local core each) until the sum stops rising or reaches the link's goodput ceiling, then one
 * measurement run at the best step. Partial results survive errors and Ctrl-C.
 */
export async function runBench(options: BenchOptions): Promise<BenchMeasurement> {
  const started = performance.now();
  const store = options.store ?? new FactStore(options.io, collectors, options.log);
  const progress = options.onProgress ?? (() => undefined);
  const host = options.peer ?? LOOPBACK;
  const mode = options.peer ? 'peer' : 'loopback';

  const clientVersionFact = await store.get('iperf3.version');
  if (!clientVersionFact.ok) throw new RunError(`iperf3 is needed for the bench: ${clientVersionFact.error.message}${clientVersionFact.error.hint ? ` (${clientVersionFact.error.hint})` : ''}`);
  const clientVersion = clientVersionFact.value.version;

  const iface = options.peer ? await egressInterface(options.io, options.peer) : null;
  const device = iface ? await store.get('net.device', iface) : null;
  const topology = await store.get('cpu.topology');
  const deviceValue = device?.ok ? device.value : null;
  const local = deviceValue?.localCpuList ? parseCpuList(deviceValue.localCpuList) : null;
  const plan = planCpus(topology.ok ? topology.value : null, local);
  const linkSpeedMbps = options.linkSpeedMbps ?? deviceValue?.speedMbps ?? null;
  const mtu = deviceValue?.mtu ?? null;
  const ceilingBitsPerSecond = linkSpeedMbps ? tcpGoodputMbps(linkSpeedMbps, mtu ?? 1500) * 1e6 : null;
  let pcieBitsPerSecond: number | null = null;
  if (iface) {
    const pcie = await store.get('pcie.link', iface);
    if (pcie.ok && pcie.value.present && pcie.value.link?.speedGts && pcie.value.link.width) {
      pcieBitsPerSecond = (usableGbps(pcie.value.link.speedGts, pcie.value.link.width) ?? 0) * 1e9 || null;
    }
  }

  let ports = options.ports;
  let serverVersion: string | null = null;
  let pool: Iperf3ServerPool | null = null;
  if (options.peer) {
    const info = await fetchServerInfo(options.peer, options.controlPort);
    if (info) {
      serverVersion = info.iperf3;
      const offered = ports.filter((port) => info.ports.includes(port));
      if (offered.length) ports = offered;
      options.log.info({ info }, 'peer runs nicdoctor serve');
    } else {
      options.log.warn({ peer: options.peer, port: options.controlPort }, 'no nicdoctor serve info endpoint on the peer; using the given ports');
    }
  } else {
    pool = new Iperf3ServerPool(LOOPBACK, options.log);
    // Servers take the CPUs from the far end of the plan, clients from the near end.
    const reversed = [...plan.cpus].reverse();
    await pool.start(ports.map((port, index) => ({ port, cpu: reversed.length ? reversed[index % reversed.length]! : null })));
    serverVersion = clientVersion;
  }

  const physical = Math.max(1, plan.physicalCores || 1);
  // One process per physical core, unless the user says otherwise (--max-procs) or the processes
  // turn out to run under a CPU quota (a container limit): then more of them fit on a core.
  let maxProcesses = Math.max(1, Math.min(ports.length, options.maxProcesses ?? physical));
  let counts = rampCounts(maxProcesses);
  const steps: BenchStep[] = [];
  const measurement: BenchMeasurement = {
    mode,
    peer: host,
    direction: options.direction,
    protocol: options.udpRate ? 'udp' : 'tcp',
    iperf3: { client: clientVersion, server: serverVersion },
    interface: iface,
    linkSpeedMbps,
    mtu,
    ceilingBitsPerSecond,
    pcieBitsPerSecond,
    ports,
    cpus: plan.cpus,
    steps,
    stopReason: '',
    result: null,
    counters: { softnetDropped: null, softnetTimeSqueeze: null, nicDrops: {}, interruptsPerCpu: [] },
    complete: false,
    error: null,
    cpuSeconds: { nicdoctor: 0, iperf3: 0 },
    durationMs: 0,
  };
  let iperfCpuSeconds = 0;
  const jsonStream = versionAtLeast(clientVersion, '3.17');

  const runStep = async (processes: number, streams: number, seconds: number, label: string): Promise<ClientOutcome[]> => {
    const outcomes = await Promise.all(
      Array.from({ length: processes }, (_, index) =>
        runClient({
          host,
          port: ports[index]!,
          // One process per core is pinned; more processes than cores (CPU-quota'd iperf3) are
          // left to the scheduler, which balances an oversubscribed host better than fixed pins.
          cpu: plan.cpus.length && processes <= Math.max(1, plan.physicalCores) ? plan.cpus[index % plan.cpus.length]! : null,
          durationSeconds: seconds,
          omitSeconds: options.omitSeconds,
          streams,
          direction: options.direction,
          ...(options.udpRate ? { udpRate: options.udpRate } : {}),
          label: `${label}-p${index + 1}`,
          jsonStream,
        }),
      ),
    );
    iperfCpuSeconds += outcomes.reduce((total, outcome) => total + outcome.cpuSeconds, 0);
    return outcomes;
  };

  const failIfUnreachable = (outcomes: ClientOutcome[]) => {
    const refused = outcomes.filter((o) => o.error && /unable to connect|Connection refused|No route|timed out|Name or service/i.test(o.error));
    if (refused.length === outcomes.length) throw new RunError(`cannot reach iperf3 on ${host} port ${outcomes.map((o) => o.port).join(', ')}: ${refused[0]!.error} (is \`nicdoctor serve\` running there?)`);
  };

  const before = await captureCounters(options.io, options.log, iface);
  // nicdoctor's own CPU while iperf3 runs (ramp and measurement), not its set-up and counters.
  const cpuAtStart = process.cpuUsage();
  let cpuDuringRun: NodeJS.CpuUsage | null = null;
  try {
    for (let index = 0; index < counts.length; index += 1) {
      const count = counts[index]!;
      if (shutdownSignal.aborted) throw new RunError('interrupted');
      progress(`ramp step ${index + 1}/${counts.length}: ${count} process${count > 1 ? 'es' : ''} x ${options.stepSeconds} s`);
      const outcomes = await runStep(count, 1, options.stepSeconds, `ramp${count}`);
      if (shutdownSignal.aborted) throw new RunError('interrupted');
      failIfUnreachable(outcomes);
      steps.push(aggregateStep(outcomes, 1, options.stepSeconds));
      const quota = outcomes[0]?.cpuQuotaPercent ?? null;
      if (index === 0 && options.maxProcesses === undefined && quota !== null && quota < 100) {
        maxProcesses = Math.max(maxProcesses, Math.min(ports.length, Math.floor((physical * 100) / quota)));
        counts = rampCounts(maxProcesses);
        options.log.info({ quota, maxProcesses }, 'iperf3 runs under a CPU quota: more processes fit per core');
      }
      const decision = decideAfterStep(steps, ceilingBitsPerSecond, counts.length - index - 1, DEFAULT_RAMP_POLICY);
      if (decision.action === 'stop') {
        measurement.stopReason = decision.reason;
        break;
      }
    }
    // iperf3 3.16+ on both ends runs each stream in its own thread: try threads in one process too.
    if (versionAtLeast(clientVersion, '3.16') && versionAtLeast(serverVersion, '3.16') && maxProcesses > 1) {
      progress(`threads: 1 process x ${maxProcesses} streams x ${options.stepSeconds} s`);
      const outcomes = await runStep(1, maxProcesses, options.stepSeconds, 'threads');
      steps.push(aggregateStep(outcomes, maxProcesses, options.stepSeconds));
    }
    const best = steps.reduce((a, b) => (b.bitsPerSecond > a.bitsPerSecond ? b : a));
    progress(`measurement: ${best.processes} process${best.processes > 1 ? 'es' : ''} x ${best.streamsPerProcess} stream(s) x ${options.durationSeconds} s`);
    const outcomes = await runStep(best.processes, best.streamsPerProcess, options.durationSeconds, 'final');
    if (shutdownSignal.aborted) throw new RunError('interrupted');
    failIfUnreachable(outcomes);
    const final = aggregateStep(outcomes, best.streamsPerProcess, options.durationSeconds);
    const reverse = outcomes.reduce((total, o) => total + (o.result?.reverseReceiverBitsPerSecond ?? 0), 0);
    measurement.result = {
      bitsPerSecond: final.bitsPerSecond,
      senderBitsPerSecond: final.senderBitsPerSecond,
      reverseBitsPerSecond: options.direction === 'bidir' ? reverse : null,
      retransmits: final.retransmits,
      durationSeconds: options.durationSeconds,
      processes: final.processes,
      streamsPerProcess: final.streamsPerProcess,
      intervals: alignIntervals(outcomes.map((o) => o.result)),
      perProcess: final.perProcess,
    };
    const versions = outcomes.map((o) => o.serverVersion).find(Boolean);
    if (versions) measurement.iperf3.server = versions;
    cpuDuringRun = process.cpuUsage(cpuAtStart);
    measurement.complete = true;
    if (!measurement.stopReason) measurement.stopReason = `tried every step up to ${maxProcesses} processes`;
  } catch (error) {
    measurement.error = shutdownSignal.aborted ? 'interrupted' : error instanceof Error ? error.message : String(error);
    if (!(error instanceof RunError) && !shutdownSignal.aborted) throw error;
  } finally {
    await pool?.stop();
    const after = await captureCounters(options.io, options.log, iface).catch(() => null);
    if (after) measurement.counters = counterDeltas(before, after);
    const cpu = cpuDuringRun ?? process.cpuUsage(cpuAtStart);
    measurement.cpuSeconds = { nicdoctor: (cpu.user + cpu.system) / 1e6, iperf3: iperfCpuSeconds };
    measurement.durationMs = Math.round(performance.now() - started);
  }
  return measurement;
}

