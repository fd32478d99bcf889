import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a regular file so that a reader never sees it half-written: a temp file in the same
 * directory, then rename. The temp name is unpredictable and created with O_CREAT|O_EXCL, mode
 * 0600, so a user who can write to the directory cannot plant a symlink or file there for us to
 * write through. The mode (and, as root, the owner) of the file being replaced is kept.
 */
export async function writeFileAtomic(
  file: string,
  content: string | Uint8Array,
  keep?: { mode: number; uid: number; gid: number },
): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file).slice(0, 200)}.${randomBytes(12).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  let created = false;
  try {
    // O_EXCL also refuses to follow a symlink at the temp name.
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    created = true;
    await handle.writeFile(content);
    // A new file gets the usual 0666 & ~umask; a replaced one keeps its mode.
    const mode = keep ? keep.mode & 0o7777 : 0o666 & ~currentUmask();
    if (keep && process.getuid?.() === 0) await handle.chown(keep.uid, keep.gid).catch(() => undefined);
    await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, file);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    // Only our own temp file is removed, never one someone else planted at that name.
    if (created) await rm(temp, { force: true });
    throw error;
  }
}

function currentUmask(): number {
  // process.umask() without an argument is deprecated but still the only read-only way.
  return typeof process.umask === 'function' ? process.umask() : 0o022;
}
