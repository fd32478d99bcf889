/**
 * Reads a small file that a root command trusts (a fix state file, a serve token): it must be a
 * regular file reached without following a link, owned by the caller (or root), and not
 * writable by anyone else, or another local user could steer what root does. A secret must
 * also be unreadable by others. Opened with O_NOFOLLOW|O_NONBLOCK, so a FIFO never blocks, and
 * checked on the open descriptor, so the file checked is the file read.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface PrivateFileOptions {
  maxBytes: number;
  /** A secret: refused when group or others may read it as well. */
  secret?: boolean;
}

/** Why the file may not be trusted, or null. Exported for the callers' own messages and tests. */
export function untrustedBecause(
  info: { uid: number; mode: number; isFile(): boolean },
  options: Pick<PrivateFileOptions, 'secret'>,
): string | null {
  if (!info.isFile()) return 'not a regular file';
  const me = process.getuid?.() ?? 0;
  if (info.uid !== me && info.uid !== 0) return `owned by uid ${info.uid}, not by uid ${me} or root`;
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
  if (info.mode & 0o022) return `mode ${mode}: group or others may write it (chmod go-w)`;
  if (options.secret && info.mode & 0o044) return `mode ${mode}: group or others may read it (chmod 600)`;
  return null;
}

/** The file's text; null when it does not exist; throws an Error saying why it is refused. */
export function readPrivateFile(file: string, options: PrivateFileOptions): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new Error(`${file} is a symbolic link; not read`);
    throw new Error(`${file}: ${(error as Error).message.replace(/^[A-Z]+: /, '')}`);
  }
  try {
    const info = fstatSync(fd);
    const refused = untrustedBecause(info, options);
    if (refused) throw new Error(`${file}: ${refused}; not read`);
    if (info.size > options.maxBytes)
      throw new Error(`${file}: ${info.size} bytes, more than the ${options.maxBytes}-byte limit; not read`);
    const buffer = Buffer.alloc(options.maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > options.maxBytes) throw new Error(`${file}: more than the ${options.maxBytes}-byte limit; not read`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
