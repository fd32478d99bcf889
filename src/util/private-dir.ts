import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { refusalOf } from './errors.js';
import { callerUid, othersCanWrite, untrustedDirectory } from './path-trust.js';

/**
 * A directory that nicdoctor fills with many files (`collect -o DIR`): made by nicdoctor itself,
 * mode 0700, or an existing empty one that is the caller's and nobody else can write; in a
 * place where nobody else can rename it (path-trust.ts). Returns whether it was created, so a
 * run refused early can remove what it made.
 */
export async function claimOutputDirectory(target: string, flag: string): Promise<{ dir: string; created: boolean }> {
  const dir = path.resolve(target);
  const refuse = refusalOf(flag, target);
  const parent = path.dirname(dir);
  const parentInfo = await lstat(parent).catch(() => null);
  if (!parentInfo) refuse(`the directory ${parent} does not exist`);
  // A new directory inside a sticky one (/tmp) is fine: nobody else can rename it there.
  const untrusted = await untrustedDirectory(parent, true).catch(
    (error: NodeJS.ErrnoException) => `${parent}: ${error.code ?? error.message}`,
  );
  if (untrusted) refuse(`refusing to write there: ${untrusted}`);
  try {
    await mkdir(dir, { mode: 0o700 });
    return { dir, created: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') refuse(`cannot create it: ${code === 'EACCES' ? 'permission denied' : (code ?? String(error))}`);
  }
  const info = await lstat(dir);
  if (info.isSymbolicLink()) refuse('is a symbolic link; give a new directory');
  if (!info.isDirectory()) refuse('not a directory');
  if (info.uid !== callerUid()) refuse(`belongs to another user (uid ${info.uid}); give a new directory`);
  if (othersCanWrite(info)) refuse(`others can write to it (mode ${(info.mode & 0o7777).toString(8)}); give a new directory`);
  if ((await readdir(dir)).length > 0) refuse('is not empty; choose a new directory');
  return { dir, created: false };
}

/**
 * Creates a file that must not exist yet (O_EXCL) and writes it; O_NOFOLLOW with O_EXCL means a
 * link planted at the name, dangling or not, is never written through.
 */
export async function writeNewFile(file: string, content: string | Uint8Array): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}
