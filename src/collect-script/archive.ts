import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ReadEntry } from 'tar';
import { ArchiveError, extractArchive, firstEntryPath } from '../hostio/archive.js';

/**
 * The archive `collect.sh` writes: one directory holding a snapshot (snapshot.json, fs/, cmd/).
 * Opened like a bundle — every entry checked before anything is written — into a temporary
 * directory that `cleanup` removes.
 */

export class SnapshotArchiveError extends Error {
  override name = 'SnapshotArchiveError';
}

const TOP = /^nicdoctor-collect-[A-Za-z0-9._-]+$/;

function entryProblem(entry: ReadEntry): string | undefined {
  const name = entry.path.replace(/\/$/, '');
  const parts = name.split('/');
  if (path.isAbsolute(entry.path) || parts.includes('..')) return `${entry.path}: a path outside the archive`;
  if (!TOP.test(parts[0]!)) return `${entry.path}: not below a nicdoctor-collect-* directory`;
  if (!['File', 'OldFile', 'Directory', 'SymbolicLink'].includes(entry.type)) return `${entry.path}: ${entry.type} entries are not allowed`;
  if (entry.type === 'SymbolicLink') {
    const target = entry.linkpath ?? '';
    // sysfs links are relative; they must stay inside the archive's fs/ tree.
    if (path.isAbsolute(target)) return `${entry.path}: an absolute link`;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(name), target));
    if (resolved.startsWith('..') || !resolved.startsWith(`${parts[0]}/fs/`)) return `${entry.path}: a link outside the snapshot`;
  }
  return undefined;
}

/**
 * Whether a .tar.gz is a collect.sh archive: its first entry is a nicdoctor-collect-* directory.
 * Only the first header is read (an input that is not a regular file is refused here).
 */
export async function isSnapshotArchive(file: string): Promise<boolean> {
  const first = await firstEntryPath(file).catch((error: unknown) => {
    throw error instanceof ArchiveError ? new SnapshotArchiveError(error.message) : error;
  });
  return first !== undefined && TOP.test(first.split('/')[0]!);
}

/**
 * Extracts the archive in one pass under the limits every archive gets (src/hostio/archive.ts),
 * each entry checked before it is written; any failure removes the directory and names `file`.
 */
export async function openSnapshotArchive(file: string): Promise<{ snapshotDir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-collect-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const extracted = await extractArchive({ file, cwd: dir, entryProblem, what: 'an archive' }).catch((error: unknown) => {
      throw error instanceof ArchiveError ? new SnapshotArchiveError(error.message) : error;
    });
    if (extracted.problems.length)
      throw new SnapshotArchiveError(`${file}: refusing an unsafe archive: ${extracted.problems.slice(0, 3).join('; ')}`);
    if (extracted.tops.size !== 1)
      throw new SnapshotArchiveError(`${file}: expected one nicdoctor-collect-* directory, found ${extracted.tops.size}`);
    return { snapshotDir: path.join(dir, [...extracted.tops][0]!), cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
