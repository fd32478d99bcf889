import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Writes a file so that a reader never sees it half-written: temp file, then rename. */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await writeFile(temp, content);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
