import { cp, lstat, mkdtemp, readFile, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commandKey } from '../../src/hostio/types.js';

/** A kernel-valid interface name that a shell would run: the attack from issue 13. */
// 15 bytes, the kernel's limit; `ip link add` accepts it.
export const HOSTILE_NAME = '$(touch${IFS}P)';

export async function tempDir(prefix = 'nicdoctor-hostile-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/**
 * Copies a snapshot and renames one interface everywhere: directory and file names, link
 * targets, file contents, and the cmd/ keys (commandKey of the argv with the new name).
 */
export async function copyWithInterfaceRenamed(source: string, from: string, to: string): Promise<string> {
  const dir = await tempDir();
  const root = path.join(dir, 'snap');
  await cp(source, root, { recursive: true, verbatimSymlinks: true });
  const fromKey = commandKey([from]);
  const toKey = commandKey([to]);
  async function walk(current: string): Promise<void> {
    for (const name of await readdir(current)) {
      const full = path.join(current, name);
      const info = await lstat(full);
      let renamed = name;
      if (path.basename(current) === 'cmd' && path.dirname(current) === root) renamed = name.split(fromKey).join(toKey);
      else renamed = name.split(from).join(to);
      const target = path.join(current, renamed);
      if (info.isSymbolicLink()) {
        const link = (await readlink(full)).split(`/${from}`).join(`/${to}`);
        await rm(full);
        await symlink(link, target);
      } else if (info.isDirectory()) {
        if (renamed !== name) await rename(full, target);
        await walk(target);
      } else {
        const text = await readFile(full, 'utf8');
        await writeFile(
          full,
          text.replace(new RegExp(`\\b${from}\\b`, 'g'), () => to),
        );
        if (renamed !== name) await rename(full, target);
      }
    }
  }
  await walk(root);
  return root;
}
