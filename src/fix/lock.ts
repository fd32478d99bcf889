/**
 * The lock of a fix state file: two `fix --apply` (or --revert) on the same state file would
 * each read the "before" values and one would save values the other had already changed, so
 * the original values would be lost.
 *
 * The lock is a kernel flock(2) on a file next to the state file, held by the open file
 * description this process keeps: the kernel gives it to one process at a time and drops it
 * when the process ends, even by kill -9. So there is no stale lock to take over, and no
 * read–remove–create race (issue 19 item 7: two takers of a stale pid-file lock both won 12
 * times in 80). Node has no flock, so util-linux's flock(1) locks our descriptor, passed as its
 * fd 3: the lock belongs to the shared description and outlives flock(1). The file holds the
 * holder's pid for messages only, and is never removed: unlinking a locked file would let a
 * newcomer lock a fresh inode beside a process still holding the old one.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, existsSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { untrustedBecause } from '../hostio/private-file.js';
import { onShutdown } from '../util/shutdown.js';

export class StateLockedError extends Error {
  override name = 'StateLockedError';
}

export function lockPathFor(stateFile: string): string {
  return `${stateFile}.lock`;
}

/** flock(1)'s exit code when the lock is held elsewhere (--conflict-exit-code). */
const CONFLICT = 75;

/** util-linux's flock from a system directory, never from the caller's PATH. */
function flockTool(): string {
  const found = ['/usr/bin/flock', '/bin/flock'].find((candidate) => existsSync(candidate));
  if (!found) throw new Error('flock (util-linux) is not installed in /usr/bin or /bin: cannot lock the fix state file');
  return found;
}

/** flock --nonblock on our descriptor: true when this process now holds it. */
function flockDescriptor(fd: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(flockTool(), ['--exclusive', '--nonblock', '--conflict-exit-code', String(CONFLICT), '3'], {
      stdio: ['ignore', 'ignore', 'pipe', fd],
      env: {},
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(true);
      else if (code === CONFLICT) resolve(false);
      else reject(new Error(`flock exited ${code}: ${stderr.trim()}`));
    });
  });
}

function holderOf(fd: number): string {
  const buffer = Buffer.alloc(32);
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  const pid = buffer.subarray(0, length).toString().trim();
  return /^[1-9][0-9]*$/.test(pid) ? ` (pid ${pid})` : '';
}

/** Takes the lock or throws StateLockedError naming the holder; returns the release function. */
export async function lockStateFile(stateFile: string): Promise<() => Promise<void>> {
  const lock = lockPathFor(stateFile);
  await mkdir(path.dirname(lock), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(lock, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new StateLockedError(`${lock} is a symbolic link; not used as a lock`);
    throw error;
  }
  try {
    const refused = untrustedBecause(fstatSync(fd), {});
    if (refused) throw new StateLockedError(`${lock}: ${refused}; not used as a lock`);
    if (!(await flockDescriptor(fd)))
      throw new StateLockedError(`${stateFile} is in use by another nicdoctor fix${holderOf(fd)}; wait for it to finish`);
    ftruncateSync(fd, 0);
    writeSync(fd, `${process.pid}\n`, 0);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    unregister();
    // Emptied first: a pid left behind would name a process that no longer holds anything.
    ftruncateSync(fd, 0);
    closeSync(fd);
  };
  const unregister = onShutdown(release);
  return release;
}
