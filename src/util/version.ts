import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { embeddedAssets } from './embedded.js';

/**
 * The project root, found from this file whether it runs from src/ (tests) or dist/src/; null in
 * the single executable, which reads nothing from a package directory.
 */
export const PROJECT_ROOT: string | null = (() => {
  if (embeddedAssets()) return null;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth += 1) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'nicdoctor') return dir;
    } catch {
      // not here; go up
    }
    dir = path.dirname(dir);
  }
  throw new Error('cannot find the nicdoctor package root');
})();

export const VERSION: string =
  embeddedAssets()?.version ?? (JSON.parse(readFileSync(path.join(PROJECT_ROOT!, 'package.json'), 'utf8')) as { version: string }).version;
