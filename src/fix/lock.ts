/**
 * The lock of a fix state file: two `fix --apply` (or --revert) on the same state file would
 * each read the "before" values and one would save values the other had already changed, so
 * the original values would be lost. The lock is a file next to the state file, created
 * exclusively (O_EXCL), holding the owner's pid. A lock whose process is gone (kill -9) is
 * stale and taken over, so a crash never blocks the revert that must follow it.
 */
import { readFileSync } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { onShutdown } from '../util/shutdown.js';

export class StateLockedError extends Error {
  override name = 'StateLockedError';
}

export function lockPathFor(stateFile: string): string {
  return `${stateFile}.lock`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A reused pid that is not a node process is not our lock holder.
  try {
    return /node|nicdoctor/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true;
  }
}

/** Takes the lock or throws StateLockedError naming the holder; returns the release function. */
export async function lockStateFile(stateFile: string): Promise<() => Promise<void>> {
  const lock = lockPathFor(stateFile);
  await mkdir(path.dirname(lock), { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await open(lock, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      let released = false;
      const release = async () => {
        if (released) return;
        released = true;
        unregister();
        await rm(lock, { force: true });
      };
      const unregister = onShutdown(release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt((await readFile(lock, 'utf8').catch(() => '')).trim(), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new StateLockedError(`${stateFile} is in use by another nicdoctor fix (pid ${holder}); wait for it to finish`);
    }
    // Stale: its process is gone. Removed, then taken with O_EXCL again (a racing taker wins once).
    await rm(lock, { force: true });
  }
  throw new StateLockedError(`${stateFile}: could not take the lock ${lock}`);
}
