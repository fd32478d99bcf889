import { readFile, readdir, readlink } from 'node:fs/promises';
import os from 'node:os';
import { execa } from 'execa';
import pLimit from 'p-limit';
import si from 'systeminformation';
import { shutdownSignal } from '../util/shutdown.js';
import { HostIOError, type ExecOptions, type ExecResult, type HostIO, type HostInventory } from './types.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

/** Spawning hundreds of ethtool processes at once on a 2-core host is slower than a small pool. */
const DEFAULT_CONCURRENCY = Math.max(4, Math.min(16, os.availableParallelism() * 4));

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

export class LiveHostIO implements HostIO {
  readonly mode: 'live' | 'recording' = 'live';
  private readonly limit = pLimit(DEFAULT_CONCURRENCY);

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const [file, ...args] = argv;
    if (!file) throw new HostIOError('io', 'empty command');
    const timeout = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    return this.limit(async () => {
      const started = performance.now();
      const result = await execa(file, args, {
        reject: false,
        timeout,
        cancelSignal: shutdownSignal,
        forceKillAfterDelay: 1000,
        stdin: 'ignore',
        stripFinalNewline: false,
        // Parsers rely on the C locale's number and message formats.
        env: { LC_ALL: 'C', LANG: 'C' },
      });
      const durationMs = performance.now() - started;
      if (result.timedOut) throw new HostIOError('timeout', `${argv.join(' ')}: timed out after ${timeout} ms`);
      if (result.isCanceled) throw new HostIOError('io', `${argv.join(' ')}: cancelled (nicdoctor is stopping)`);
      if (result.code === 'ENOENT') throw new HostIOError('tool-missing', `${file}: command not found`);
      if (result.code === 'EACCES') throw new HostIOError('permission-denied', `${file}: permission denied`);
      if (result.exitCode === undefined) {
        throw new HostIOError('io', `${argv.join(' ')}: ${result.originalMessage ?? result.shortMessage}`);
      }
      return {
        argv,
        exitCode: result.exitCode,
        stdout: String(result.stdout ?? ''),
        stderr: String(result.stderr ?? ''),
        durationMs,
      };
    });
  }

  async readFile(path: string): Promise<string> {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw fsErrorToHostIOError(error, path);
    }
  }

  async readDir(path: string): Promise<string[]> {
    try {
      return (await readdir(path)).sort();
    } catch (error) {
      throw fsErrorToHostIOError(error, path);
    }
  }

  async readLink(path: string): Promise<string> {
    try {
      return await readlink(path);
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

async function collectInventory(): Promise<HostInventory> {
  // Only the cheap systeminformation calls: osInfo and system() spawn dmidecode and friends.
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
