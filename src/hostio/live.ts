import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { readFile, readdir, readlink } from 'node:fs/promises';
import os from 'node:os';
import { isAbsolute } from 'node:path';
import { execFile } from 'node:child_process';
import pLimit from 'p-limit';
import { shutdownSignal } from '../util/shutdown.js';
import { commandBatcher } from './command-batch.js';
import { resolveTool, toolSearchPath } from './tool-path.js';
import { HostIOError, type ExecOptions, type ExecResult, type HostIO, type HostInventory } from './types.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

/** Spawning hundreds of ethtool processes at once on a 2-core host is slower than a small pool. */
const DEFAULT_CONCURRENCY = Math.max(4, Math.min(16, os.availableParallelism() * 4));

/**
 * sysfs and procfs contents are made in memory by the kernel when read, so a synchronous read
 * takes microseconds, while the thread-pool round trip of an async read costs several times
 * more (measured: 1536 statistics files in 28 ms synchronously, 150 ms asynchronously). A scan
 * reads thousands of them.
 */
function isKernelPseudoFile(path: string): boolean {
  return path.startsWith('/sys/') || path.startsWith('/proc/');
}

export function fsErrorToHostIOError(error: unknown, path: string): HostIOError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new HostIOError('not-found', `${path}: no such file or directory`);
  if (code === 'EACCES' || code === 'EPERM') return new HostIOError('permission-denied', `${path}: permission denied`);
  if (code === 'EINVAL' && error instanceof Error && /readlink/.test(error.message)) {
    return new HostIOError('not-found', `${path}: not a symbolic link`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new HostIOError('io', `${path}: ${message}`);
}

/**
 * NICDOCTOR_EXEC_BATCH=0 runs every command in a child process of its own, as before batching:
 * the lab test compares a scan made each way. It selects between two built-in paths only.
 */
function batchingEnabled(): boolean {
  return process.env.NICDOCTOR_EXEC_BATCH !== '0';
}

export class LiveHostIO implements HostIO {
  readonly mode: 'live' | 'recording' = 'live';
  private readonly limit = pLimit(DEFAULT_CONCURRENCY);
  private readonly batching = batchingEnabled();

  /**
   * Short diagnostic commands go through child_process.execFile rather than execa: a scan runs
   * hundreds of them, and execa costs about twice as much per process (measured: 5.6 vs 2.4 ms
   * per `ethtool -i` on a 2-core VM). Still an argv array (no shell), LC_ALL=C, a timeout, and
   * killed on Ctrl-C through the shared abort signal.
   */
  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const [name, ...args] = argv;
    if (!name) throw new HostIOError('io', 'empty command');
    // An absolute path is the caller's choice; a bare name is found once in the trusted directories.
    const file = isAbsolute(name) ? name : resolveTool(name);
    if (!file) throw new HostIOError('tool-missing', `${name}: command not found`);
    const timeout = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    // Parsers rely on the C locale's number and message formats.
    const env = { PATH: toolSearchPath(), LC_ALL: 'C', LANG: 'C' };
    if (options.batch && this.batching) return commandBatcher().run({ argv, resolved: [file, ...args], timeoutMs: timeout, env });
    return this.limit(
      () =>
        new Promise<ExecResult>((resolve, reject) => {
          const started = performance.now();
          execFile(
            file,
            args,
            {
              timeout,
              killSignal: 'SIGKILL',
              ...(options.survivesShutdown ? {} : { signal: shutdownSignal }),
              maxBuffer: 64 * 1024 * 1024,
              encoding: 'utf8',
              env,
            },
            (error, stdout, stderr) => {
              const durationMs = performance.now() - started;
              if (!error) return resolve({ argv, exitCode: 0, stdout, stderr, durationMs });
              const failure = error as NodeJS.ErrnoException & { code?: string | number; killed?: boolean; signal?: string };
              if (failure.name === 'AbortError')
                return reject(new HostIOError('io', `${argv.join(' ')}: cancelled (nicdoctor is stopping)`));
              if (failure.code === 'ENOENT') return reject(new HostIOError('tool-missing', `${file}: command not found`));
              if (failure.code === 'EACCES') return reject(new HostIOError('permission-denied', `${file}: permission denied`));
              if (failure.killed && failure.signal === 'SIGKILL')
                return reject(new HostIOError('timeout', `${argv.join(' ')}: timed out after ${timeout} ms`));
              if (failure.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
                return reject(new HostIOError('io', `${argv.join(' ')}: output larger than 64 MiB`));
              if (typeof failure.code === 'number') return resolve({ argv, exitCode: failure.code, stdout, stderr, durationMs });
              reject(new HostIOError('io', `${argv.join(' ')}: ${failure.signal ? `killed by ${failure.signal}` : failure.message}`));
            },
          );
        }),
    );
  }

  async readFile(path: string): Promise<string> {
    try {
      return isKernelPseudoFile(path) ? readFileSync(path, 'utf8') : await readFile(path, 'utf8');
    } catch (error) {
      throw fsErrorToHostIOError(error, path);
    }
  }

  async readDir(path: string): Promise<string[]> {
    try {
      return (isKernelPseudoFile(path) ? readdirSync(path) : await readdir(path)).sort();
    } catch (error) {
      throw fsErrorToHostIOError(error, path);
    }
  }

  async readLink(path: string): Promise<string> {
    try {
      return isKernelPseudoFile(path) ? readlinkSync(path) : await readlink(path);
    } catch (error) {
      throw fsErrorToHostIOError(error, path);
    }
  }

  private inventoryPromise: Promise<HostInventory> | undefined;

  inventory(): Promise<HostInventory> {
    this.inventoryPromise ??= collectInventory();
    return this.inventoryPromise;
  }
}

/**
 * The live host's inventory from systeminformation (the design card's package for it). Its three
 * calls start about 35 short processes between them (lscpu, cat, dmidecode...): the price of one
 * well-kept reader instead of a second one of our own. They run once per scan, concurrently.
 */
async function collectInventory(): Promise<HostInventory> {
  const { default: si } = await import('systeminformation');
  const [cpu, osInfo, system] = await Promise.all([
    si.cpu().catch(() => undefined),
    si.osInfo().catch(() => undefined),
    si.system().catch(() => undefined),
  ]);
  const virtual = system?.virtual ? system.virtualHost || 'virtual machine' : null;
  return {
    hostname: os.hostname(),
    kernel: os.release(),
    os: osInfo ? `${osInfo.distro} ${osInfo.release}`.trim() : `${os.type()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpu ? `${cpu.manufacturer} ${cpu.brand}`.trim() : (os.cpus()[0]?.model ?? 'unknown'),
    logicalCpus: os.availableParallelism(),
    physicalCores: cpu?.physicalCores || os.availableParallelism(),
    virtualization: virtual,
    uid: process.getuid?.() ?? -1,
  };
}
