import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { extract, list, type ReadEntry } from 'tar';

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

/** Whether a .tar.gz is a collect.sh archive (its first entry is a nicdoctor-collect-* directory). */
export async function isSnapshotArchive(file: string): Promise<boolean> {
  let first: string | undefined;
  try {
    await list({
      file,
      onReadEntry: (entry) => {
        first ??= entry.path;
        entry.resume();
      },
    });
  } catch {
    return false;
  }
  return first !== undefined && TOP.test(first.split('/')[0]!);
}

export async function openSnapshotArchive(file: string): Promise<{ snapshotDir: string; cleanup: () => Promise<void> }> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new SnapshotArchiveError(`${file}: no such file`);
  const problems: string[] = [];
  const tops = new Set<string>();
  try {
    await list({
      file,
      onReadEntry: (entry) => {
        const problem = entryProblem(entry);
        if (problem) problems.push(problem);
        tops.add(entry.path.split('/')[0]!);
        entry.resume();
      },
    });
  } catch (error) {
    throw new SnapshotArchiveError(`${file}: not a readable .tar.gz (${(error as Error).message})`);
  }
  if (problems.length) throw new SnapshotArchiveError(`${file}: refusing an unsafe archive: ${problems.slice(0, 3).join('; ')}`);
  if (tops.size !== 1) throw new SnapshotArchiveError(`${file}: expected one nicdoctor-collect-* directory, found ${tops.size}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-collect-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    await extract({
      file,
      cwd: dir,
      strict: true,
      preservePaths: false,
      filter: (_path, entry) => 'type' in entry && entryProblem(entry) === undefined,
    });
  } catch (error) {
    await cleanup();
    throw new SnapshotArchiveError(`${file}: extraction failed (${(error as Error).message})`);
  }
  return { snapshotDir: path.join(dir, [...tops][0]!), cleanup };
}
