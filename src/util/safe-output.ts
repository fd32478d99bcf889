import { constants } from 'node:fs';
import { lstat, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { RunError, UsageError } from './errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { shutdownSignal } from './shutdown.js';

/**
 * Where a command writes what the user asked for (`--output`, `fix -o`, `--bundle`):
 * - `-` is standard output;
 * - a regular file (or a new name) is replaced atomically (see writeFileAtomic), keeping its mode;
 * - a character device or FIFO (/dev/null, /dev/stdout, a named pipe) is written as a stream,
 *   never renamed over;
 * - a symbolic link is followed: the file it names is replaced, the link stays;
 * - a directory, a socket, a missing directory or a dangling link is bad usage (exit 2);
 * - a target that is one of the command's inputs, or inside one, is refused (exit 2), so that
 *   `analyze ev.tar.gz -o ev.tar.gz` cannot destroy the evidence;
 * - a write that fails (/dev/full, disk full) is exit 3 with the reason.
 */
export interface OutputTarget {
  /** The option, for messages ("--output"). */
  flag: string;
  /** Paths the command reads: the output must not be one of them or inside one. */
  inputs?: readonly string[];
}

/** Waits this long between attempts to open a FIFO that has no reader yet. */
const FIFO_POLL_MS = 100;

export async function writeOutput(target: string, content: string | Uint8Array, options: OutputTarget): Promise<void> {
  const { flag } = options;
  if (target === '') throw new UsageError(`${flag}: empty file name`);
  if (target === '-') return writeStream(process.stdout, content, flag, 'standard output');
  const plan = await planOutput(target, options);
  if (plan.kind === 'stream') return writeDevice(plan.path, content, flag, plan.fifo);
  try {
    await writeFileAtomic(plan.path, content, plan.keep);
  } catch (error) {
    throw new RunError(`${flag}: cannot write ${target}: ${reason(error)}`);
  }
}

type Plan =
  { kind: 'stream'; path: string; fifo: boolean } | { kind: 'replace'; path: string; keep?: { mode: number; uid: number; gid: number } };

/** Decides how to write target, or throws a UsageError that says why it cannot be written. */
export async function planOutput(target: string, options: OutputTarget): Promise<Plan> {
  const { flag } = options;
  const absolute = path.resolve(target);
  const own = await lstat(absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw new UsageError(`${flag}: ${target}: ${reason(error)}`);
  });
  let real = absolute;
  if (own?.isSymbolicLink()) {
    real = await realpath(absolute).catch(() => {
      throw new UsageError(`${flag}: ${target} is a symbolic link to nothing (dangling)`);
    });
  }
  const info = own === null ? null : own.isSymbolicLink() ? await stat(real) : own;
  if (info === null) {
    const dir = path.dirname(absolute);
    const dirInfo = await stat(dir).catch(() => null);
    if (!dirInfo) throw new UsageError(`${flag}: ${target}: the directory ${dir} does not exist`);
    if (!dirInfo.isDirectory()) throw new UsageError(`${flag}: ${target}: ${dir} is not a directory`);
    real = path.join(await realpath(dir), path.basename(absolute));
  } else if (info.isDirectory()) {
    throw new UsageError(`${flag}: ${target} is a directory; give a file name`);
  } else if (info.isSocket() || info.isBlockDevice()) {
    throw new UsageError(`${flag}: ${target} is a ${info.isSocket() ? 'socket' : 'block device'}; give a file name`);
  }
  await refuseInputs(real, info ? { dev: info.dev, ino: info.ino } : null, options);
  if (info && (info.isCharacterDevice() || info.isFIFO())) return { kind: 'stream', path: real, fifo: info.isFIFO() };
  return info ? { kind: 'replace', path: real, keep: { mode: info.mode, uid: info.uid, gid: info.gid } } : { kind: 'replace', path: real };
}

async function refuseInputs(real: string, identity: { dev: number; ino: number } | null, options: OutputTarget): Promise<void> {
  for (const input of options.inputs ?? []) {
    const inputReal = await realpath(path.resolve(input)).catch(() => path.resolve(input));
    const inside = real === inputReal || real.startsWith(inputReal + path.sep);
    const inputInfo = identity ? await stat(inputReal).catch(() => null) : null;
    const sameFile = identity !== null && inputInfo !== null && inputInfo.dev === identity.dev && inputInfo.ino === identity.ino;
    if (inside || sameFile) {
      const where = real !== inputReal && inside ? 'inside the input' : 'the input';
      throw new UsageError(`${options.flag}: ${real} is ${where} ${input}; it would be overwritten. Write the output elsewhere`);
    }
  }
}

/** Opens a character device or FIFO for writing, without O_CREAT or O_TRUNC, and streams to it. */
async function writeDevice(file: string, content: string | Uint8Array, flag: string, fifo: boolean): Promise<void> {
  // The probe stays open until the real descriptor is: closing it first would give the reader EOF.
  const probe = fifo ? await waitForFifoReader(file, flag) : undefined;
  let handle;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_NOCTTY);
  } catch (error) {
    throw new RunError(`${flag}: cannot open ${file}: ${reason(error)}`);
  } finally {
    await probe?.close().catch(() => undefined);
  }
  try {
    await handle.writeFile(content);
  } catch (error) {
    throw new RunError(`${flag}: cannot write ${file}: ${reason(error)}`);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * A blocking open of a FIFO with no reader would hang where no signal can stop it (libuv's
 * thread pool): probe with O_NONBLOCK, which fails with ENXIO until a reader is there.
 */
async function waitForFifoReader(file: string, flag: string): Promise<FileHandle> {
  for (;;) {
    if (shutdownSignal.aborted) throw new RunError(`${flag}: interrupted while waiting for a reader on ${file}`);
    try {
      return await open(file, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw new RunError(`${flag}: cannot open ${file}: ${reason(error)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, FIFO_POLL_MS));
  }
}

function writeStream(stream: NodeJS.WriteStream, content: string | Uint8Array, flag: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(content, (error) => (error ? reject(new RunError(`${flag}: cannot write ${name}: ${reason(error)}`)) : resolve()));
  });
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const messages: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    EISDIR: 'is a directory',
    ENOTDIR: 'a part of the path is not a directory',
    ENOENT: 'no such file or directory',
    EPIPE: 'the reader went away (broken pipe)',
  };
  return (code && messages[code] ? `${messages[code]} (${code})` : undefined) ?? (error instanceof Error ? error.message : String(error));
}
