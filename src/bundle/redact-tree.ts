import { lstat, readFile, readdir, readlink, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Redactor } from './redact.js';

/**
 * Redacts a snapshot directory in place: the content of every file, every link target, and
 * every file and directory name. Files are processed as latin1 so that each byte that is not
 * part of a replaced value is written back unchanged (binary sysfs files such as `vpd` too).
 *
 * `alsoCollect` are texts redacted later by the caller with the returned Redactor (the report,
 * the bench JSON): their values are collected first so that tokens are consistent everywhere.
 */
export async function redactSnapshot(
  dir: string,
  options: { alsoCollect?: readonly string[]; hostnames?: readonly string[] } = {},
): Promise<Redactor> {
  const redactor = new Redactor();
  for (const name of options.hostnames ?? []) redactor.addHostname(name);
  const inventoryHost = await readFile(path.join(dir, 'snapshot.json'), 'utf8')
    .then((text) => (JSON.parse(text) as { inventory?: { hostname?: unknown } }).inventory?.hostname)
    .catch(() => undefined);
  if (typeof inventoryHost === 'string') redactor.addHostname(inventoryHost);
  // /etc/hostname or a sosreport's `hostname` file, when the tree holds one.
  for (const file of ['fs/etc/hostname', 'hostname']) {
    const text = await readFile(path.join(dir, file), 'utf8').catch(() => undefined);
    if (text?.trim()) redactor.addHostname(text.trim());
  }

  const entries = await walk(dir);
  for (const entry of entries) {
    redactor.collect(entry.relative);
    if (entry.kind === 'link') redactor.collect(entry.target);
    if (entry.kind === 'file') {
      const content = await readFile(entry.absolute, 'latin1');
      if (path.basename(entry.absolute) === 'vpd') redactor.collectVpd(content);
      redactor.collect(content);
    }
  }
  for (const text of options.alsoCollect ?? []) redactor.collect(text);

  for (const entry of entries) {
    if (entry.kind === 'file') {
      const content = await readFile(entry.absolute, 'latin1');
      const redacted = redactor.apply(content);
      if (redacted !== content) await writeFile(entry.absolute, redacted, 'latin1');
    } else if (entry.kind === 'link') {
      const target = redactor.apply(entry.target);
      if (target !== entry.target) {
        await unlink(entry.absolute);
        await symlink(target, entry.absolute);
      }
    }
  }
  // Deepest first, so that renaming a directory does not move entries still to be renamed.
  for (const entry of [...entries].sort((a, b) => b.relative.split(path.sep).length - a.relative.split(path.sep).length)) {
    const name = path.basename(entry.absolute);
    const redactedName = redactor.apply(name);
    if (redactedName !== name) await rename(entry.absolute, path.join(path.dirname(entry.absolute), redactedName));
  }
  return redactor;
}

export type TreeEntry =
  | { kind: 'file'; absolute: string; relative: string }
  | { kind: 'dir'; absolute: string; relative: string }
  | { kind: 'link'; absolute: string; relative: string; target: string };

/** Every entry below root, links not followed, in a stable order. */
export async function walk(root: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const absolute = path.join(dir, name);
      const relative = path.relative(root, absolute);
      const info = await lstat(absolute);
      if (info.isSymbolicLink()) out.push({ kind: 'link', absolute, relative, target: await readlink(absolute) });
      else if (info.isDirectory()) {
        out.push({ kind: 'dir', absolute, relative });
        await visit(absolute);
      } else if (info.isFile()) out.push({ kind: 'file', absolute, relative });
    }
  };
  await visit(root);
  return out;
}
