import { realpath } from 'node:fs/promises';
import type { Logger } from 'pino';
import { checks as registry } from '../../checks/index.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { hostFactStore } from '../pipeline/host-facts.js';
import { scan } from '../pipeline/scan.js';
import { LiveHostIO } from '../hostio/live.js';
import { closeInfoEndpoint, fetchServerInfo, startInfoEndpoint } from '../bench/info-endpoint.js';
import type { Direction } from '../bench/iperf3-client.js';
import { planCpus } from '../bench/cpu-plan.js';
import { runBench, type BenchOptions } from '../bench/run-bench.js';
import { Iperf3ServerPool } from '../bench/server-pool.js';
import { clientAuthFromEnv } from '../bench/iperf3-auth.js';
import { readPrivateFile } from '../hostio/private-file.js';
import { onShutdown, shutdownSignal } from '../util/shutdown.js';
import { VERSION } from '../util/version.js';
import { checkOutputs, emit, exitCodeFor, policyInput, scanInputs, withBundle, type ReportOptions } from './commands.js';
import { UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { Policy } from '../policy/schema.js';
import { createProgress } from './progress.js';

/** Values as the argParsers of cli.ts/options.ts give them: checked and parsed. */
export interface BenchCliOptions {
  peer?: string;
  loopback?: boolean;
  ports: number[];
  controlPort: number;
  /** Seconds. */
  duration: number;
  stepDuration: number;
  omit: number;
  maxProcs?: number;
  reverse?: boolean;
  bidir?: boolean;
  udp?: boolean;
  rate?: string;
  /** Mb/s. */
  linkSpeed?: number;
}

/** Validates every bench option before anything runs. */
export function benchPlan(options: BenchCliOptions, io: LiveHostIO, log: Logger): Omit<BenchOptions, 'store' | 'freshStore'> {
  if (options.peer && options.loopback) throw new UsageError('--peer and --loopback: choose one');
  if (!options.peer && !options.loopback) throw new UsageError('give --peer HOST (nicdoctor serve on the far end) or --loopback');
  if (options.reverse && options.bidir) throw new UsageError('--reverse and --bidir: choose one');
  if (options.rate && !options.udp) throw new UsageError('--rate goes with --udp');
  if (options.udp && !options.rate) throw new UsageError('--udp needs --rate, e.g. --rate 5G');
  const direction: Direction = options.bidir ? 'bidir' : options.reverse ? 'reverse' : 'forward';
  return {
    io,
    log,
    peer: options.peer ?? null,
    ports: options.ports,
    controlPort: options.controlPort,
    durationSeconds: options.duration,
    stepSeconds: options.stepDuration,
    omitSeconds: options.omit,
    ...(options.maxProcs ? { maxProcesses: options.maxProcs } : {}),
    direction,
    ...(options.udp && options.rate ? { udpRate: options.rate } : {}),
    ...(options.linkSpeed ? { linkSpeedMbps: options.linkSpeed } : {}),
  };
}

/**
 * `bench` and `scan --peer`: the checks (all of them for scan, the iperf3 and throughput checks
 * for bench) and the bench, in one report. Partial results are printed on error and Ctrl-C.
 */
export async function benchReportCommand(options: ReportOptions & BenchCliOptions, log: Logger, which: 'bench' | 'scan'): Promise<number> {
  // Every option is checked, and the policy loaded, before anything runs.
  scanInputs(options);
  const auth = clientAuthFromEnv();
  if (!auth.ok) throw new UsageError(auth.reason);
  await checkOutputs(options, options.policy ? [options.policy] : []);
  const policy = await policyInput(options);
  benchPlan(options, new LiveHostIO(), log);
  if (options.bundle) {
    const code = await withBundle(options, log, (io) => benchScan(options, io, log, which, policy));
    return shutdownSignal.aborted ? EXIT.interrupted : code;
  }
  const outcome = await benchScan(options, new LiveHostIO(), log, which, policy);
  await emit(outcome.report, options);
  if (shutdownSignal.aborted) return EXIT.interrupted;
  return exitCodeFor(outcome, options.failOn);
}

async function benchScan(
  options: ReportOptions & BenchCliOptions,
  io: LiveHostIO,
  log: Logger,
  which: 'bench' | 'scan',
  policy: { policy?: Policy },
) {
  const inputs = scanInputs(options);
  const plan = benchPlan(options, io, log);
  const only = which === 'bench' && inputs.only.length === 0 ? ['iperf3', 'throughput'] : inputs.only;
  const progress = createProgress('nicdoctor bench');
  const outcome = await scan({
    io,
    checks: registry,
    log,
    ...inputs,
    ...policy,
    only,
    beforeChecks: async (store) => {
      try {
        const measurement = await runBench({
          ...plan,
          store,
          freshStore: () => hostFactStore(io, log),
          onProgress: (text) => progress.step(text),
        });
        store.provide('bench.result', measurement);
      } finally {
        progress.done();
      }
    },
  });
  return outcome;
}

/** Values as the argParsers give them: --bind a checked host, --iface a checked name, numbers parsed. */
export interface ServeCliOptions {
  bind?: string;
  iface?: string;
  ports: number[];
  controlPort: number;
  /** Seconds. */
  idleTimeout?: number;
  maxTestDuration: number;
  rsaPrivateKey?: string;
  authorizedUsers?: string;
  tokenFile?: string;
}

/** The first address of an interface (IPv4 first, then a global IPv6), or null. */
async function addressOfInterface(io: LiveHostIO, iface: string): Promise<string | null> {
  try {
    const result = await io.exec(['ip', '-o', 'addr', 'show', 'dev', iface], { timeoutMs: 5000 });
    const v4 = /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(result.stdout)?.[1];
    const v6 = /\binet6 ([0-9a-f:]+)\/\d+ scope global/.exec(result.stdout)?.[1];
    return v4 ?? v6 ?? null;
  } catch {
    return null;
  }
}

/**
 * A file serve trusts (--token-file, iperf3's key and users): refused when another user owns it
 * or may write it, and a secret also when others may read it. A token others can read
 * protects nothing; one they can write is theirs.
 */
async function readTrusted(flag: string, file: string, secret: boolean, maxBytes: number): Promise<string> {
  let text: string | null;
  try {
    text = readPrivateFile(await realpath(file), { maxBytes, secret });
  } catch (error) {
    const message = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`${flag}: ${file}: ${message.replace(/^\S+: /, '')}`);
  }
  if (text === null) throw new UsageError(`${flag}: ${file}: no such file`);
  return text;
}

/** --token-file: its first line is the token. */
async function readToken(file: string): Promise<string> {
  const token = (await readTrusted('--token-file', file, true, 4096)).split('\n')[0]!.trim();
  if (token.length < 16 || /\s/.test(token))
    throw new UsageError(`--token-file: ${file}: the first line must be a token of at least 16 characters, no spaces`);
  return token;
}

/** Address → the interface that holds it (`ip -o addr show to ADDR`). */
async function interfaceOfAddress(io: LiveHostIO, address: string): Promise<string | null> {
  try {
    const result = await io.exec(['ip', '-o', 'addr', 'show', 'to', address], { timeoutMs: 5000 });
    return /^\d+:\s+([^\s:@]+)/m.exec(result.stdout)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The least time serve waits for its first client, whatever --idle-timeout says. */
const FIRST_CLIENT_GRACE_S = 60;

export async function serveCommand(options: ServeCliOptions, log: Logger): Promise<number> {
  const { ports, controlPort } = options;
  if (ports.includes(controlPort)) throw new UsageError(`--control-port: ${controlPort} is also in --ports`);
  const idleSeconds = options.idleTimeout ?? null;
  const maxTestSeconds = options.maxTestDuration;
  if (Boolean(options.rsaPrivateKey) !== Boolean(options.authorizedUsers))
    throw new UsageError('--rsa-private-key and --authorized-users go together (iperf3 authentication)');
  const token = options.tokenFile ? await readToken(options.tokenFile) : undefined;
  if (options.rsaPrivateKey && options.authorizedUsers) {
    await readTrusted('--rsa-private-key', options.rsaPrivateKey, true, 64 * 1024);
    await readTrusted('--authorized-users', options.authorizedUsers, false, 1024 * 1024);
  }
  const io = new LiveHostIO();
  if (options.bind && options.iface) throw new UsageError('--bind and --iface: choose one');
  // Never all addresses by accident: the address given, or the one of the interface under test.
  let bind: string;
  if (options.bind) bind = options.bind;
  else if (options.iface) {
    const address = await addressOfInterface(io, options.iface);
    if (!address) throw new UsageError(`--iface: ${options.iface} has no address to listen on; give --bind ADDRESS`);
    bind = address;
  } else
    throw new UsageError(
      'give --bind ADDRESS (or --iface NAME, to listen on its address); serve does not listen on every address unless told to (--bind 0.0.0.0)',
    );
  const store = hostFactStore(io, log);
  const iface = bind ? await interfaceOfAddress(io, bind) : null;
  const [topology, device, version] = await Promise.all([
    store.get('cpu.topology'),
    iface ? store.get('net.device', iface) : null,
    store.get('iperf3.version'),
  ]);
  const local = device?.ok && device.value.localCpuList ? parseCpuList(device.value.localCpuList) : null;
  const plan = planCpus(topology.ok ? topology.value : null, local);
  const pool = new Iperf3ServerPool(bind, log, {
    maxTestSeconds,
    ...(options.rsaPrivateKey && options.authorizedUsers
      ? { auth: { rsaPrivateKey: options.rsaPrivateKey, authorizedUsers: options.authorizedUsers } }
      : {}),
  });
  await pool.start(ports.map((port, index) => ({ port, cpu: plan.cpus.length ? plan.cpus[index % plan.cpus.length]! : null })));
  // Until the first client, the wait is at least FIRST_CLIENT_GRACE_S: an Ansible play starts serve,
  // then needs a few tasks (seconds each on a loaded host) before its bench asks for the plan.
  let clientSeen = false;
  const info = await startInfoEndpoint(
    bind,
    controlPort,
    () => ({
      nicdoctor: VERSION,
      iperf3: version.ok ? version.value.version : null,
      cores: plan.physicalCores,
      nicLocalCpus: plan.cpus,
      ports: pool.ports,
      bind,
    }),
    () => {
      pool.lastActivity = Date.now();
      clientSeen = true;
    },
    token,
  ).catch(async (error: NodeJS.ErrnoException) => {
    await pool.stop();
    throw new UsageError(
      `--control-port: cannot listen on ${controlPort}: ${error.code === 'EADDRINUSE' ? 'already in use' : error.message}`,
    );
  });
  onShutdown(() => closeInfoEndpoint(info));
  if (!options.rsaPrivateKey)
    process.stderr.write(
      `nicdoctor serve: warning: the iperf3 servers are open: anyone who reaches ${bind} on ports ${ports.join(', ')} can run tests (give --rsa-private-key and --authorized-users for iperf3's own authentication)\n`,
    );
  process.stderr.write(
    `nicdoctor serve: iperf3 servers on ${bind === '0.0.0.0' || bind === '::' ? 'all addresses' : bind} ports ${ports.join(', ')} (CPUs ${plan.cpus.join(',') || 'unpinned'}); plan at http://${bind.includes(':') ? `[${bind}]` : bind}:${controlPort}/nicdoctor/info${token ? ' (token required)' : ''}${options.rsaPrivateKey ? '; iperf3 requires RSA authentication' : ''}; Ctrl-C stops\n`,
  );
  const reason = await new Promise<'signal' | 'idle'>((resolve) => {
    shutdownSignal.addEventListener('abort', () => resolve('signal'), { once: true });
    if (idleSeconds) {
      const timer = setInterval(() => {
        // Idle: no test running and no bench client for the whole period.
        if (pool.busy) clientSeen = true;
        const limitSeconds = clientSeen ? idleSeconds : Math.max(idleSeconds, FIRST_CLIENT_GRACE_S);
        if (!pool.busy && Date.now() - pool.lastActivity > limitSeconds * 1000) {
          clearInterval(timer);
          resolve('idle');
        }
      }, 1000);
      shutdownSignal.addEventListener('abort', () => clearInterval(timer), { once: true });
    }
  });
  await Promise.all([pool.stop(), closeInfoEndpoint(info)]);
  process.stderr.write(`nicdoctor serve: stopped (${reason === 'idle' ? `idle for ${idleSeconds} s` : 'signal'})\n`);
  return reason === 'idle' ? EXIT.ok : EXIT.interrupted;
}

/** Used by tests and `bench --peer`: is there a nicdoctor serve? */
export { fetchServerInfo };
