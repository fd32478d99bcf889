import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, realpath, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { refusalOf, RunError, UsageError } from './errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { callerUid, ownedByCallerOrRoot, othersCanWrite, untrustedDirectory } from './path-trust.js';
import { shutdownSignal } from './shutdown.js';

/**
 * The one writer for what the user asked for (`--output`, `--bundle`, `fix -o`, `fleet -o`,
 * `diff -o`). nicdoctor runs as root where other users share directories, so a target is
 * written only when nobody else could have chosen what it names:
 * - `-`, /dev/stdout and /dev/stderr are the process's own descriptors, written in place;
 * - a character device the caller named (/dev/null, /dev/full), or a FIFO of the caller's, is
 *   opened without O_CREAT and with O_NOFOLLOW, and written as a stream: never replaced by a file;
 * - a regular file, or a new name, is replaced atomically (a temp file created O_EXCL in the same
 *   directory, then rename, which replaces the name and never follows it), and only in a
 *   directory that the caller or root owns and nobody else can write (path-trust.ts), and only
 *   when an existing file there is the caller's own;
 * - a symbolic link is refused (a link in a root-only directory such as /dev, naming a character
 *   device, is that device), and so are a directory, a socket, a block device, a missing
 *   directory and a directory where files cannot be created (/proc): bad usage, exit 2;
 * - a target that is one of the command's inputs, or inside an input directory, is refused
 *   (exit 2), so that `diff a.json b.json -o a.json` cannot destroy the evidence;
 * - a write that fails (/dev/full, disk full) is exit 3 with the reason.
 * Every message names the path as the user gave it, never a temporary name.
 */
export interface OutputTarget {
  /** The option, for messages ("--output"). */
  flag: string;
  /** Paths the command reads: the output must not be one of them or inside one. */
  inputs?: readonly string[];
}

/** Waits this long between attempts to open a FIFO that has no reader yet. */
const FIFO_POLL_MS = 100;

/** The process's own standard streams, by the names people give them. */
const STANDARD_STREAMS: Record<string, 1 | 2> = {
  '/dev/stdout': 1,
  '/dev/stderr': 2,
  '/dev/fd/1': 1,
  '/dev/fd/2': 2,
  '/proc/self/fd/1': 1,
  '/proc/self/fd/2': 2,
};

type Keep = { mode: number; uid: number; gid: number };
type Plan = { kind: 'stdio'; fd: 1 | 2 } | { kind: 'stream'; path: string; fifo: boolean } | { kind: 'replace'; path: string; keep?: Keep };

export async function writeOutput(target: string, content: string | Uint8Array, options: OutputTarget): Promise<void> {
  const plan = await planOutput(target, options);
  const { flag } = options;
  if (plan.kind === 'stdio')
    return writeStream(plan.fd === 1 ? process.stdout : process.stderr, content, flag, target === '-' ? 'standard output' : target);
  if (plan.kind === 'stream') return writeDevice(plan.path, target, content, flag, plan.fifo);
  try {
    await writeFileAtomic(plan.path, content, plan.keep);
  } catch (error) {
    throw new RunError(`${flag}: cannot write ${target}: ${reason(error)}`);
  }
}

/** Decides how to write target, or throws a UsageError that says why it cannot be written. */
export async function planOutput(target: string, options: OutputTarget): Promise<Plan> {
  const { flag } = options;
  if (target === '') throw new UsageError(`${flag}: empty file name`);
  if (target === '-') return { kind: 'stdio', fd: 1 };
  const absolute = path.resolve(target);
  const standard = STANDARD_STREAMS[absolute];
  if (standard) return { kind: 'stdio', fd: standard };
  const refuse = refusalOf(flag, target);
  const own = await lstat(absolute).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : refuse(reason(error))));
  if (own?.isSymbolicLink()) return planLink(absolute, target, options);
  if (own?.isDirectory()) refuse('is a directory; give a file name');
  if (own?.isSocket() || own?.isBlockDevice()) refuse(`is a ${own.isSocket() ? 'socket' : 'block device'}; give a file name`);
  if (own?.isCharacterDevice()) {
    // Only root can make a device node, so one the caller named is what they meant.
    await refuseInputs(absolute, own, target, options);
    return { kind: 'stream', path: absolute, fifo: false };
  }
  if (own?.isFIFO()) {
    if (!ownedByCallerOrRoot(own)) refuse(`is a FIFO of another user (uid ${own.uid}); nicdoctor writes only to its own`);
    await refuseInputs(absolute, own, target, options);
    return { kind: 'stream', path: absolute, fifo: true };
  }
  const dir = path.dirname(absolute);
  const dirInfo = await stat(dir).catch(() => null);
  if (!dirInfo) refuse(`the directory ${dir} does not exist`);
  if (!dirInfo!.isDirectory()) refuse(`${dir} is not a directory`);
  const untrusted = await untrustedDirectory(dir);
  if (untrusted) refuse(`refusing to write there: ${untrusted}, so another user could redirect the file. Write it elsewhere`);
  if (own && own.uid !== callerUid())
    refuse(`the existing file belongs to another user (uid ${own.uid}); nicdoctor replaces only the caller's own files`);
  const real = path.join(await realpath(dir), path.basename(absolute));
  await refuseInputs(real, own, target, options);
  await probeCreate(path.dirname(real), refuse);
  return own ? { kind: 'replace', path: real, keep: { mode: own.mode, uid: own.uid, gid: own.gid } } : { kind: 'replace', path: real };
}

/**
 * A link is written through only when nobody but root could have made it: in a directory only
 * root can write (/dev), naming a character device. Anything else may be a plant.
 */
async function planLink(absolute: string, target: string, options: OutputTarget): Promise<Plan> {
  const { flag } = options;
  const pointed = await stat(absolute).catch(() => null);
  if (!pointed) throw new UsageError(`${flag}: ${target} is a symbolic link to nothing (dangling); nicdoctor does not write through links`);
  const linkDir = await lstat(path.dirname(absolute));
  if (pointed.isCharacterDevice() && linkDir.uid === 0 && !othersCanWrite(linkDir)) {
    await refuseInputs(absolute, pointed, target, options);
    return { kind: 'stream', path: await realpath(absolute), fifo: false };
  }
  throw new UsageError(
    `${flag}: ${target} is a symbolic link; nicdoctor does not write through links (another user may have planted it): name the file itself`,
  );
}

/** The directory takes new files (not /proc, not a read-only mount): found before any work starts. */
async function probeCreate(dir: string, refuse: (why: string) => never): Promise<void> {
  const probe = path.join(dir, `.nicdoctor-probe.${randomBytes(12).toString('hex')}`);
  const handle = await open(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600).catch(
    (error: unknown) => refuse(`cannot create files in ${dir}: ${reason(error)}`),
  );
  await handle.close();
  await rm(probe, { force: true });
}

async function refuseInputs(real: string, identity: Stats | null, target: string, options: OutputTarget): Promise<void> {
  for (const input of options.inputs ?? []) {
    if (input === '-') continue;
    const inputReal = await realpath(path.resolve(input)).catch(() => path.resolve(input));
    const inside = real.startsWith(inputReal + path.sep);
    const inputInfo = identity ? await stat(inputReal).catch(() => null) : null;
    const sameFile =
      real === inputReal || (identity !== null && inputInfo !== null && inputInfo.dev === identity.dev && inputInfo.ino === identity.ino);
    if ((inside || sameFile) && !identity?.isCharacterDevice()) {
      const where = sameFile ? 'the input' : 'inside the input';
      throw new UsageError(`${options.flag}: ${target} is ${where} ${input}; it would be overwritten. Write the output elsewhere`);
    }
  }
}

/**
 * Opens a character device or FIFO for writing, without O_CREAT or O_TRUNC and with O_NOFOLLOW,
 * checks that it still is one, and streams to it.
 */
async function writeDevice(file: string, target: string, content: string | Uint8Array, flag: string, fifo: boolean): Promise<void> {
  // The probe stays open until the real descriptor is: closing it first would give the reader EOF.
  const probe = fifo ? await waitForFifoReader(file, target, flag) : undefined;
  let handle;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_NOCTTY | constants.O_NOFOLLOW);
  } catch (error) {
    throw new RunError(`${flag}: cannot open ${target}: ${reason(error)}`);
  } finally {
    await probe?.close().catch(() => undefined);
  }
  try {
    const info = await handle.stat();
    if (!(info.isCharacterDevice() || info.isFIFO())) throw new UsageError(`${flag}: ${target} changed while it was opened; not written`);
    await handle.writeFile(content);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new RunError(`${flag}: cannot write ${target}: ${reason(error)}`);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * A blocking open of a FIFO with no reader would hang where no signal can stop it (libuv's
 * thread pool): probe with O_NONBLOCK, which fails with ENXIO until a reader is there.
 */
async function waitForFifoReader(file: string, target: string, flag: string): Promise<FileHandle> {
  for (;;) {
    if (shutdownSignal.aborted) throw new RunError(`${flag}: interrupted while waiting for a reader on ${target}`);
    try {
      return await open(file, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw new RunError(`${flag}: cannot open ${target}: ${reason(error)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, FIFO_POLL_MS));
  }
}

function writeStream(stream: NodeJS.WriteStream, content: string | Uint8Array, flag: string, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(content, (error) => (error ? reject(new RunError(`${flag}: cannot write ${name}: ${reason(error)}`)) : resolve()));
  });
}

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no such file or directory',
  EPIPE: 'the reader went away (broken pipe)',
  ELOOP: 'is a symbolic link',
  EEXIST: 'a file appeared at that name meanwhile',
  EXDEV: 'on another file system',
  ENAMETOOLONG: 'the name is too long',
};

/** The reason from the error code only: Node's messages name the paths involved, temp files included. */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code) return `${REASONS[code] ?? 'system error'} (${code})`;
  return error instanceof Error ? error.message : String(error);
}
