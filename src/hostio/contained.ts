import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { readlink } from 'node:fs/promises';
import path from 'node:path';
import { HostIOError } from './types.js';

/**
 * The one reader for offline inputs (snapshots, sosreports, extracted bundles, policies): they
 * come from customers and may be crafted. Rules:
 * - a path is resolved, and must stay inside the input's root; a symbolic link is followed only
 *   when its target stays inside (sysfs-style relative links keep working). A link that
 *   escapes reads as "not captured", a warning names it, and its target is never opened;
 * - only regular files are read: checked with lstat before opening, opened O_NONBLOCK (a FIFO
 *   swapped in cannot block) and O_NOFOLLOW, then checked again with fstat;
 * - every read has a size cap by kind of file: a /dev/zero link or a 50 MB "snapshot.json"
 *   cannot take the memory.
 *
 * The reads are synchronous: they are small regular files on a local disk (O_NONBLOCK makes
 * sure nothing waits), and a thread-pool round trip per syscall made a 1,000-interface
 * snapshot take seconds. Directories' real paths are cached, so a path costs one realpath per
 * directory, not per file.
 */

/** Caps by kind of file, in bytes. Chosen well above the largest real capture seen (see README). */
export const READ_LIMITS = {
  /** sysfs/procfs copies and command output: /proc/interrupts of a 256-CPU host is ~2 MB, lspci -nnvv of a big host ~1 MB. */
  capture: 32 * 1024 * 1024,
  /** snapshot.json, cmd/<key>.json, manifests: a few KB. */
  metadata: 1024 * 1024,
  /** A directory listing recorded by `collect`. */
  listing: 4 * 1024 * 1024,
  /** A --policy file: a checklist is a few KB. */
  policy: 1024 * 1024,
  /** A JSON report given to fleet, diff or analyze: 10,000 interfaces make tens of MB. */
  report: 256 * 1024 * 1024,
  /** A pasted ticket or mail thread given to analyze (file or stdin): the longest real ones are tens of KB. */
  text: 16 * 1024 * 1024,
  /** fix's state file: one entry per applied operation. */
  state: 4 * 1024 * 1024,
} as const;
export type ReadKind = keyof typeof READ_LIMITS;

/** Most entries one directory may list (a host with 10,000 interfaces stays well inside). */
export const MAX_DIR_ENTRIES = 100_000;

export type Warn = (message: string) => void;

/** Reads between two turns of the event loop. */
const YIELD_EVERY = 50;

export class ContainedReader {
  private readonly warned = new Set<string>();
  private reads = 0;
  /** Real path of each directory (inside the root) resolved so far. */
  private readonly realDirs = new Map<string, string | undefined>();

  private constructor(
    /** Real path of the input's root: every path read resolves inside it. */
    readonly root: string,
    private readonly warn: Warn,
  ) {}

  static async open(root: string, warn: Warn = defaultWarn): Promise<ContainedReader> {
    return new ContainedReader(realpathSync(path.resolve(root)), warn);
  }

  /**
   * realpath, with directories cached: a plain file below a known directory costs one lstat,
   * whose result is kept so that reading the file does not lstat it again.
   */
  private realpathOf(joined: string): { real: string; info?: Stats } | undefined {
    const realDir = this.realDirOf(path.dirname(joined));
    if (realDir === undefined) return undefined;
    const candidate = path.join(realDir, path.basename(joined));
    let info: Stats | undefined;
    try {
      // A missing file is common (optional sysfs attributes): no exception is built for it.
      info = lstatSync(candidate, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (info === undefined) return undefined;
    if (!info.isSymbolicLink()) return { real: candidate, info };
    const target = safeRealpath(candidate);
    return target === undefined ? undefined : { real: target };
  }

  /**
   * The real path of a directory, from its parent's (cached): one lstat per directory below the
   * root, where realpath would lstat every component of every directory again. A directory that
   * is a link (sysfs-style) is resolved whole; where it leads is checked by the caller.
   */
  private realDirOf(dir: string): string | undefined {
    if (dir === this.root) return this.root;
    if (this.realDirs.has(dir)) return this.realDirs.get(dir);
    const parent = path.dirname(dir);
    let real: string | undefined;
    if (parent === dir || !dir.startsWith(this.root + path.sep)) real = safeRealpath(dir);
    else {
      const realParent = this.realDirOf(parent);
      const candidate = realParent === undefined ? undefined : path.join(realParent, path.basename(dir));
      const info = candidate === undefined ? undefined : safeLstat(candidate);
      if (candidate === undefined || info === undefined) real = undefined;
      else if (info.isSymbolicLink()) real = safeRealpath(candidate);
      else real = info.isDirectory() ? candidate : undefined;
    }
    this.realDirs.set(dir, real);
    return real;
  }

  /**
   * The real path of `relative` (a path inside the root), or undefined when it does not exist.
   * Throws not-captured, after a warning, when it resolves outside the root.
   */
  async resolve(relative: string, label = relative): Promise<string | undefined> {
    return this.resolveEntry(relative, label)?.real;
  }

  /** resolve(), with the lstat of the real path when it was taken (a file that is not a link). */
  private resolveEntry(relative: string, label: string): { real: string; info?: Stats } | undefined {
    const joined = path.join(this.root, relative);
    const entry = joined === this.root ? { real: this.root } : this.realpathOf(joined);
    if (entry === undefined) return undefined;
    const { real } = entry;
    if (real !== this.root && !real.startsWith(this.root + path.sep)) {
      // The link target is named, but never opened.
      const key = `${joined}`;
      if (!this.warned.has(key)) {
        this.warned.add(key);
        this.warn(`${printable(label)}: a link in the input leads outside it; not read (treated as not captured)`);
      }
      throw new HostIOError('not-captured', `${label}: the input links outside itself; not read`);
    }
    return entry;
  }

  /** Reads a regular file inside the root, within the cap of its kind. */
  async readText(relative: string, kind: ReadKind = 'capture', label = relative): Promise<string> {
    const text = await this.readTextIfExists(relative, kind, label);
    if (text === undefined) throw new HostIOError('not-found', `${label}: no such file or directory`);
    return text;
  }

  /**
   * readText, but undefined when the file does not exist: a capture misses many optional
   * attributes, and an exception for each made a 10,000-interface analysis spend seconds
   * building stack traces.
   */
  async readTextIfExists(relative: string, kind: ReadKind = 'capture', label = relative): Promise<string | undefined> {
    // Synchronous reads resolve as microtasks: without a turn of the event loop now and then, a
    // 10,000-interface snapshot would not let Ctrl-C or SIGTERM in until it was all read.
    if (++this.reads % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    const entry = this.resolveEntry(relative, label);
    if (entry === undefined) return undefined;
    try {
      return readRegularFileSync(entry.real, READ_LIMITS[kind], label, entry.info);
    } catch (error) {
      // Removed between the lstat and the open: absent all the same.
      if (error instanceof HostIOError && error.kind === 'not-found') return undefined;
      throw error;
    }
  }

  async readDir(relative: string, label = relative): Promise<string[]> {
    const real = await this.resolve(relative, label);
    if (real === undefined) throw new HostIOError('not-found', `${label}: no such file or directory`);
    let entries: string[];
    try {
      // Synchronous, like the file reads (see above): a listing of a local directory does not wait.
      entries = readdirSync(real);
    } catch (caught) {
      const error = caught as NodeJS.ErrnoException;
      throw new HostIOError(
        error.code === 'ENOTDIR' ? 'not-found' : 'io',
        `${label}: ${error.code === 'ENOTDIR' ? 'not a directory' : error.message}`,
      );
    }
    if (entries.length > MAX_DIR_ENTRIES) throw new HostIOError('io', `${label}: more than ${MAX_DIR_ENTRIES} entries; not read`);
    return entries;
  }

  /** The target of a link inside the root, as recorded (often relative), without following it. */
  async readLink(relative: string, label = relative): Promise<string> {
    const parent = await this.resolve(path.dirname(relative), label);
    if (parent === undefined) throw new HostIOError('not-found', `${label}: no such file or directory`);
    const link = path.join(parent, path.basename(relative));
    if (!lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) throw new HostIOError('not-found', `${label}: not a symbolic link`);
    return readlink(link);
  }
}

/**
 * Reads a file that must be a regular file of at most maxBytes: lstat, then open non-blocking
 * without following a link, then fstat (the same file, still regular), then read at most
 * maxBytes + 1 bytes, so a file that grows while read is caught too.
 */
export async function readRegularFile(file: string, maxBytes: number, label = file): Promise<string> {
  return readRegularFileSync(file, maxBytes, label);
}

/** `lstatOfFile`: the lstat of `file` the caller already took (the contained reader's resolve), not taken again. */
export function readRegularFileSync(file: string, maxBytes: number, label = file, lstatOfFile?: Stats): string {
  let before = lstatOfFile;
  try {
    before ??= lstatSync(file);
  } catch (error) {
    throw fsError(error as NodeJS.ErrnoException, label);
  }
  if (!before.isFile()) throw new HostIOError('io', `${label}: not a regular file (${fileType(before)}); not read`);
  if (before.size > maxBytes)
    throw new HostIOError('io', `${label}: ${before.size} bytes, more than the ${maxBytes}-byte limit for this kind of file; not read`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    throw fsError(error as NodeJS.ErrnoException, label);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.ino !== before.ino || info.dev !== before.dev)
      throw new HostIOError('io', `${label}: changed while being read; not read`);
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(info.size, 0) + 1));
    let length = 0;
    while (length < buffer.length) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
      length += bytesRead;
      // A regular file's size is known: once it is read there is no need for the read that
      // returns 0 (half the syscalls of a snapshot of small files). Growth past the cap is still
      // caught, as the buffer holds one byte more than the cap allows.
      if (bytesRead === 0 || length === info.size) break;
    }
    if (length > maxBytes) throw new HostIOError('io', `${label}: more than the ${maxBytes}-byte limit for this kind of file; not read`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function safeLstat(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** What a non-regular file is, for messages ("a FIFO"). */
export function fileType(info: {
  isFIFO(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a directory';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a file';
}

function fsError(error: NodeJS.ErrnoException, label: string): HostIOError {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return new HostIOError('not-found', `${label}: no such file or directory`);
  if (error.code === 'EACCES' || error.code === 'EPERM') return new HostIOError('permission-denied', `${label}: permission denied`);
  if (error.code === 'ELOOP') return new HostIOError('io', `${label}: a symbolic link where a file was expected; not read`);
  return new HostIOError('io', `${label}: ${error.code ?? error.message}`);
}

/** Control characters from a crafted path are shown as escapes in warnings. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function defaultWarn(message: string): void {
  process.stderr.write(`nicdoctor: warning: ${message}\n`);
}
