import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository root, found from here both as lab/*.ts and as dist/lab/*.js. */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'nicdoctor') return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nicdoctor package.json above ${start}`);
  }
}

export const REPO_ROOT = findRepoRoot(import.meta.dirname);
