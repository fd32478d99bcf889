import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * Who can change what a path names. nicdoctor runs as root in directories other users share
 * (/tmp, a prometheus textfile directory): a file there can be swapped for a link between a
 * check and a write. So output goes only where nobody but the caller and root can change it:
 * - the directory that receives the file is owned by the caller or root and writable by no one
 *   else (group or others), sticky or not: a sticky /tmp still lets a user plant a name first;
 * - each directory above it is owned by the caller or root and either writable by no one else
 *   or sticky (then nobody else can rename the caller's directory inside it).
 */

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

export function callerUid(): number {
  return process.geteuid?.() ?? -1;
}

/** Owned by the caller or by root: root can change anything anyway. */
export function ownedByCallerOrRoot(info: Stats): boolean {
  return info.uid === callerUid() || info.uid === 0;
}

export function othersCanWrite(info: Stats): boolean {
  return (info.mode & GROUP_OR_OTHER_WRITE) !== 0;
}

function owner(info: Stats): string {
  return info.uid === 0 ? 'root' : `uid ${info.uid}`;
}

/**
 * Why another user could change files in dir (its real path), or null when only the caller and
 * root can. The reason names the directory that lets them. `stickyOk` is for a directory that
 * only receives a new directory of the caller's (collect -o): in a sticky one nobody else can
 * rename or remove it.
 */
export async function untrustedDirectory(dir: string, stickyOk = false): Promise<string | null> {
  const real = await realpath(dir);
  const own = await lstat(real);
  if (!own.isDirectory()) return `${real} is not a directory`;
  let current = real;
  for (let info = own; ; info = await lstat(current)) {
    if (!ownedByCallerOrRoot(info)) return `${current} belongs to another user (${owner(info)})`;
    const sticky = (info.mode & STICKY) !== 0 && (current !== real || stickyOk);
    if (othersCanWrite(info) && !sticky) return `others can write to ${current} (mode ${(info.mode & 0o7777).toString(8)})`;
    if (current === path.dirname(current)) return null;
    current = path.dirname(current);
  }
}
