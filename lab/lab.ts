/**
 * The network-namespace lab (design/LAB.md): real hosts on one machine, made of network
 * namespaces joined by veth pairs, with the fault helpers the lab offers. Used by lab tests
 * and by `npm run bench:scan`, so it imports no test framework.
 *
 * Everything it creates lives inside namespaces it created (veths are born there, never in the
 * root namespace), so deleting the namespaces removes veths, addresses, qdiscs and iptables
 * rules with them. Names carry a per-run tag and the owner's pid, so parallel runs never
 * collide and cleanupStale() can tell a crashed run's leftovers from a live one.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { forbidSkipOnCi } from './no-skip-on-ci.js';

export type Side = 'a' | 'b';

export interface Endpoint {
  side: Side;
  /** Network namespace that holds this end. */
  ns: string;
  iface: string;
  /** IPv4 address without prefix length. */
  address: string;
  /** Address with prefix length, as given to `ip addr add`. */
  cidr: string;
}

export interface Pair {
  a: Endpoint;
  b: Endpoint;
}

export interface LabOptions {
  /** veth pairs to create (default 1, at most 63). */
  pairs?: number;
  /**
   * 2 (default): side a of every pair in one namespace, side b in another, two hosts.
   * 1: both ends of every pair in one namespace (many interfaces on one host, for scans).
   */
  namespaces?: 1 | 2;
  /** Family prefix of the names (default `nd`); cleanupStale() takes the same prefix. */
  prefix?: string;
}

export interface LabExecOptions {
  /** Kill the command after this long (default 30 s). */
  timeoutMs?: number;
  /** Throw when the command exits non-zero (default true). */
  reject?: boolean;
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
}

export interface LabExecResult {
  argv: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

export interface SideOptions {
  /** Which pair (default 0). */
  pair?: number;
}

export interface Lab {
  /** Per-run tag, the start of every interface name (`nd1k3fa`). */
  readonly tag: string;
  /** Every namespace of this lab (one or two). */
  readonly namespaces: readonly string[];
  /** Namespace of side a and of side b (the same one with `namespaces: 1`). */
  readonly ns: Readonly<Record<Side, string>>;
  readonly pairs: readonly Pair[];
  /** Pair 0's ends. */
  readonly a: Endpoint;
  readonly b: Endpoint;
  /** Runs argv inside a namespace (`ip netns exec`); ns is a side or a namespace name. */
  exec(ns: string, argv: string[], options?: LabExecOptions): Promise<LabExecResult>;
  /** Starts a long-running process (iperf3 -s) in a namespace; destroy() kills it. */
  spawn(ns: string, argv: string[], options?: Omit<LabExecOptions, 'reject' | 'input'>): ResultPromise;
  /** tbf rate cap on the egress of that end (`2gbit`, or bits per second). */
  rateCap(side: Side, rate: string | number, options?: SideOptions & { burst?: string; latency?: string }): Promise<void>;
  /** Removes the root qdisc of that end (back to the default). */
  clearQdisc(side: Side, options?: SideOptions): Promise<void>;
  /** Drops incoming TCP segments to `port` at random, in the receiving side's namespace. */
  dropRandom(side: Side, port: number, probability: number, options?: SideOptions): Promise<void>;
  offloads(side: Side, settings: { tso?: boolean; gso?: boolean; gro?: boolean }, options?: SideOptions): Promise<void>;
  /** rx and tx channels (veth allows at most 2). */
  channels(side: Side, count: number, options?: SideOptions): Promise<void>;
  mtu(side: Side, bytes: number, options?: SideOptions): Promise<void>;
  /** Registers an extra cleanup (a cgroup, a temp dir) that destroy() runs first, last in first out. */
  defer(cleanup: () => void | Promise<void>): void;
  /** Removes everything the lab created; safe to call more than once. */
  destroy(): Promise<void>;
  /** destroy() for exit and signal handlers: synchronous, skips the deferred async cleanups. */
  destroySync(): void;
}

const DEFAULT_PREFIX = 'nd';
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_PAIRS = 63; // 4 addresses per /30 pair in one /24
export const LAB_TOOLS = ['ip', 'ethtool', 'iperf3', 'tc', 'iptables'] as const;
const TOOL_PACKAGE: Record<string, string> = { ip: 'iproute2', tc: 'iproute2', ethtool: 'ethtool', iperf3: 'iperf3', iptables: 'iptables' };

/** Where root's tools live even when PATH lacks the sbin directories. */
const SBIN = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

export function findTool(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...SBIN];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function ipBinary(): string {
  return findTool('ip') ?? 'ip';
}

/** Namespace name: `<tag>-<owner pid>-<a|b|n>`; the pid lets cleanupStale() spare live runs. */
function namespaceName(tag: string, slot: 'a' | 'b' | 'n'): string {
  return `${tag}-${process.pid}-${slot}`;
}

function namespacePattern(prefix: string): RegExp {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}[0-9a-z]+-(\\d+)-[abn]$`);
}

function listNamespaces(): string[] {
  const out = execFileSync(ipBinary(), ['netns', 'list'], { encoding: 'utf8', timeout: 10_000 });
  // Lines look like "name" or "name (id: 3)".
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills what still runs in a namespace, then deletes it. Synchronous, so it also works on exit. */
function removeNamespaceSync(ns: string): void {
  const ip = ipBinary();
  let pids: number[] = [];
  try {
    pids = execFileSync(ip, ['netns', 'pids', ns], { encoding: 'utf8', timeout: 10_000 })
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 1 && pid !== process.pid);
  } catch {
    // The namespace is already gone.
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  try {
    execFileSync(ip, ['netns', 'delete', ns], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    // already gone
  }
}

/**
 * Removes namespaces left by earlier runs that crashed: those named with this prefix whose
 * owner process no longer exists. Returns the names removed.
 */
export function cleanupStale(prefix = DEFAULT_PREFIX): string[] {
  const pattern = namespacePattern(prefix);
  const removed: string[] = [];
  for (const ns of listNamespaces()) {
    const owner = Number(pattern.exec(ns)?.[1]);
    if (!owner || processAlive(owner)) continue;
    removeNamespaceSync(ns);
    removed.push(ns);
  }
  return removed;
}

let availability: { tools: string; reason: string | undefined } | undefined;

/**
 * Why the lab cannot run here, or undefined when it can: not root, a missing tool, or a kernel
 * that refuses network namespaces. Tests use it with `describe.skipIf(reason)` and print it.
 */
export function labAvailable(tools: readonly string[] = LAB_TOOLS): string | undefined {
  const key = tools.join(',');
  if (availability?.tools === key) return availability.reason;
  const reason = probe(tools);
  availability = { tools: key, reason };
  return forbidSkipOnCi('the network-namespace lab', reason);
}

function probe(tools: readonly string[]): string | undefined {
  if (process.platform !== 'linux') return `the lab needs Linux network namespaces (this is ${process.platform})`;
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) return `the lab needs root to create network namespaces (running as uid ${uid})`;
  const missing = tools.filter((tool) => !findTool(tool));
  if (missing.length) {
    return `the lab needs ${missing.join(', ')}: apt-get install ${[...new Set(missing.map((tool) => TOOL_PACKAGE[tool] ?? tool))].join(' ')}`;
  }
  const ns = namespaceName(`${DEFAULT_PREFIX}probe`, 'n');
  try {
    execFileSync(ipBinary(), ['netns', 'add', ns], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  } catch (error) {
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '').trim();
    return `cannot create a network namespace: ${stderr || (error as Error).message}`;
  } finally {
    removeNamespaceSync(ns);
  }
  return undefined;
}

/** Labs not yet destroyed, torn down synchronously if the process exits or is interrupted. */
const liveLabs = new Set<LabImpl>();
let exitHooksInstalled = false;

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', () => {
    for (const lab of liveLabs) lab.destroySync();
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      for (const lab of liveLabs) lab.destroySync();
      // Listening replaced the default "terminate"; when we were the only listener, restore it.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
}

let labsCreated = 0;

/** A per-run tag: prefix + 4 base-36 characters from the pid + one for the lab's sequence number. */
function runTag(prefix: string, sequence: number): string {
  const fromPid = (process.pid % 36 ** 4).toString(36).padStart(4, '0');
  return `${prefix}${fromPid}${(sequence % 36).toString(36)}`;
}

export async function createLab(options: LabOptions = {}): Promise<Lab> {
  const pairs = options.pairs ?? 1;
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (!Number.isInteger(pairs) || pairs < 1 || pairs > MAX_PAIRS) throw new Error(`createLab: pairs must be 1..${MAX_PAIRS}, got ${pairs}`);
  if (!/^[a-z]{1,4}$/.test(prefix)) throw new Error(`createLab: prefix must be 1-4 lowercase letters, got "${prefix}"`);
  const reason = labAvailable(['ip']);
  if (reason) throw new Error(`createLab: ${reason}`);

  const existing = new Set(listNamespaces());
  let tag = '';
  for (let attempt = 0; attempt < 36; attempt++) {
    tag = runTag(prefix, labsCreated++);
    if (!existing.has(namespaceName(tag, 'a')) && !existing.has(namespaceName(tag, 'n'))) break;
  }
  const lab = new LabImpl(tag, options.namespaces ?? 2, pairs);
  liveLabs.add(lab);
  installExitHooks();
  try {
    await lab.build();
  } catch (error) {
    await lab.destroy();
    throw error;
  }
  return lab;
}

function describeFailure(argv: string[], exitCode: number | undefined, stderr: string, timedOut: boolean): string {
  const what = timedOut ? 'timed out' : `exited ${exitCode ?? '(killed)'}`;
  return `\`${argv.join(' ')}\` ${what}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`;
}

class LabImpl implements Lab {
  readonly namespaces: string[];
  readonly ns: Record<Side, string>;
  readonly pairs: Pair[];
  private readonly children = new Set<ResultPromise>();
  private readonly cleanups: (() => void | Promise<void>)[] = [];
  private destroying: Promise<void> | undefined;

  constructor(
    readonly tag: string,
    namespaceCount: 1 | 2,
    pairCount: number,
  ) {
    this.ns =
      namespaceCount === 1
        ? { a: namespaceName(tag, 'n'), b: namespaceName(tag, 'n') }
        : { a: namespaceName(tag, 'a'), b: namespaceName(tag, 'b') };
    this.namespaces = [...new Set([this.ns.a, this.ns.b])];
    // 10.213.<third>.0/24 per run (pid-based), one /30 per pair.
    const third = (process.pid % 250) + 1;
    this.pairs = Array.from({ length: pairCount }, (_, index) => {
      const end = (side: Side, host: number): Endpoint => {
        const address = `10.213.${third}.${index * 4 + host}`;
        return { side, ns: this.ns[side], iface: `${tag}${side}${index}`, address, cidr: `${address}/30` };
      };
      return { a: end('a', 1), b: end('b', 2) };
    });
  }

  get a(): Endpoint {
    return this.pairs[0]!.a;
  }

  get b(): Endpoint {
    return this.pairs[0]!.b;
  }

  /** One `ip -batch` per namespace: 32 pairs take milliseconds, not hundreds of processes. */
  async build(): Promise<void> {
    const ip = ipBinary();
    for (const ns of this.namespaces) await this.run([ip, 'netns', 'add', ns]);
    const configure = (end: Endpoint) => [`addr add ${end.cidr} dev ${end.iface}`, `link set ${end.iface} up`];
    // Both ends are born in their namespaces, so nothing ever appears in the root namespace.
    const inA = [
      'link set lo up',
      ...this.pairs.flatMap(({ a, b }) => [`link add ${a.iface} type veth peer name ${b.iface} netns ${b.ns}`, ...configure(a)]),
    ];
    const inB = this.pairs.flatMap(({ b }) => configure(b));
    if (this.ns.a === this.ns.b) {
      await this.batch(this.ns.a, [...inA, ...inB]);
    } else {
      await this.batch(this.ns.a, inA);
      await this.batch(this.ns.b, ['link set lo up', ...inB]);
    }
    await this.waitUp();
  }

  private async batch(ns: string, commands: string[]): Promise<void> {
    await this.run([ipBinary(), '-n', ns, '-batch', '-'], { input: commands.join('\n') + '\n' });
  }

  /** veth carrier comes up asynchronously; scans should see both ends up. */
  private async waitUp(): Promise<void> {
    const deadline = Date.now() + 5_000;
    const wanted = this.pairs.flatMap((pair) => [pair.a, pair.b]);
    for (;;) {
      const up = new Set<string>();
      for (const ns of this.namespaces) {
        const { stdout } = await this.run([ipBinary(), '-n', ns, '-o', 'link', 'show', 'up']);
        for (const match of stdout.matchAll(/^\d+:\s+([^:@\s]+)[@:][^\n]*state UP/gm)) up.add(match[1]!);
      }
      const down = wanted.filter((end) => !up.has(end.iface));
      if (down.length === 0) return;
      if (Date.now() > deadline) throw new Error(`createLab: ${down.map((end) => end.iface).join(', ')} did not come up within 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private nsName(ns: string): string {
    if (ns === 'a' || ns === 'b') return this.ns[ns];
    if (!this.namespaces.includes(ns))
      throw new Error(`lab ${this.tag}: ${ns} is not one of its namespaces (${this.namespaces.join(', ')})`);
    return ns;
  }

  private end(side: Side, options: SideOptions = {}): Endpoint {
    const pair = this.pairs[options.pair ?? 0];
    if (!pair) throw new Error(`lab ${this.tag}: no pair ${options.pair} (it has ${this.pairs.length})`);
    return pair[side];
  }

  /** Runs argv in the root namespace (only `ip` itself needs that). */
  private async run(argv: string[], options: LabExecOptions = {}): Promise<LabExecResult> {
    const [file, ...args] = argv;
    const started = performance.now();
    const result = await execa(file!, args, {
      reject: false,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      forceKillAfterDelay: 1_000,
      stripFinalNewline: false,
      ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const outcome: LabExecResult = {
      argv,
      exitCode: result.exitCode ?? -1,
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      timedOut: Boolean(result.timedOut),
      durationMs: performance.now() - started,
    };
    if ((options.reject ?? true) && (outcome.exitCode !== 0 || outcome.timedOut)) {
      throw new Error(`lab ${this.tag}: ${describeFailure(argv, result.exitCode, outcome.stderr, outcome.timedOut)}`);
    }
    return outcome;
  }

  exec(ns: string, argv: string[], options: LabExecOptions = {}): Promise<LabExecResult> {
    if (argv.length === 0) throw new Error('lab.exec: empty argv');
    return this.run([ipBinary(), 'netns', 'exec', this.nsName(ns), ...argv], options);
  }

  spawn(ns: string, argv: string[], options: Omit<LabExecOptions, 'reject' | 'input'> = {}): ResultPromise {
    if (this.destroying) throw new Error(`lab ${this.tag} is destroyed`);
    const child = execa(ipBinary(), ['netns', 'exec', this.nsName(ns), ...argv], {
      reject: false,
      stdin: 'ignore',
      forceKillAfterDelay: 1_000,
      ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    this.children.add(child);
    void child.finally(() => this.children.delete(child));
    return child;
  }

  async rateCap(side: Side, rate: string | number, options: SideOptions & { burst?: string; latency?: string } = {}): Promise<void> {
    const end = this.end(side, options);
    const rateText = typeof rate === 'number' ? `${Math.round(rate)}bit` : rate;
    await this.exec(end.ns, [
      'tc',
      'qdisc',
      'replace',
      'dev',
      end.iface,
      'root',
      'tbf',
      'rate',
      rateText,
      'burst',
      options.burst ?? '1mb',
      'latency',
      options.latency ?? '10ms',
    ]);
  }

  async clearQdisc(side: Side, options: SideOptions = {}): Promise<void> {
    const end = this.end(side, options);
    // "No such file" when there is no root qdisc: already the default.
    await this.exec(end.ns, ['tc', 'qdisc', 'del', 'dev', end.iface, 'root'], { reject: false });
  }

  async dropRandom(side: Side, port: number, probability: number, options: SideOptions = {}): Promise<void> {
    if (!(probability > 0 && probability < 1)) throw new Error(`dropRandom: probability must be in (0, 1), got ${probability}`);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`dropRandom: bad port ${port}`);
    const end = this.end(side, options);
    await this.exec(end.ns, [
      'iptables',
      '-w',
      '5',
      '-A',
      'INPUT',
      '-i',
      end.iface,
      '-p',
      'tcp',
      '--dport',
      String(port),
      '-m',
      'statistic',
      '--mode',
      'random',
      '--probability',
      String(probability),
      '-j',
      'DROP',
    ]);
  }

  async offloads(side: Side, settings: { tso?: boolean; gso?: boolean; gro?: boolean }, options: SideOptions = {}): Promise<void> {
    const end = this.end(side, options);
    const args = Object.entries(settings).flatMap(([feature, on]) => (on === undefined ? [] : [feature, on ? 'on' : 'off']));
    if (args.length === 0) return;
    await this.exec(end.ns, ['ethtool', '-K', end.iface, ...args]);
  }

  async channels(side: Side, count: number, options: SideOptions = {}): Promise<void> {
    const end = this.end(side, options);
    await this.exec(end.ns, ['ethtool', '-L', end.iface, 'rx', String(count), 'tx', String(count)]);
  }

  async mtu(side: Side, bytes: number, options: SideOptions = {}): Promise<void> {
    const end = this.end(side, options);
    await this.exec(end.ns, ['ip', 'link', 'set', 'dev', end.iface, 'mtu', String(bytes)]);
  }

  defer(cleanup: () => void | Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  destroy(): Promise<void> {
    this.destroying ??= (async () => {
      const errors: unknown[] = [];
      for (const cleanup of this.cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          errors.push(error);
        }
      }
      for (const child of this.children) child.kill('SIGKILL');
      await Promise.allSettled([...this.children]);
      for (const ns of this.namespaces) removeNamespaceSync(ns);
      liveLabs.delete(this);
      if (errors.length) throw new AggregateError(errors, `lab ${this.tag}: ${errors.length} deferred cleanup(s) failed`);
    })();
    return this.destroying;
  }

  /** Exit-time fallback: deferred async cleanups cannot run here, the namespaces still go. */
  destroySync(): void {
    for (const child of this.children) child.kill('SIGKILL');
    for (const ns of this.namespaces) removeNamespaceSync(ns);
    liveLabs.delete(this);
  }
}
