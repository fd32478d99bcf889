import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from here as test/helpers/*.ts. */
function repositoryRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'fixtures'))) return dir;
  }
  throw new Error('cannot find the nicdoctor repository root');
}

export const FIXTURES = path.join(repositoryRoot(), 'fixtures');
export const REAL = path.join(FIXTURES, 'real');

/** A real capture from fixtures/real (provenance: fixtures/real/SOURCES.md). */
export function realCapture(relative: string): string {
  return readFileSync(path.join(REAL, relative), 'utf8');
}

/** Names of the real captures in a category whose file name matches, sorted. */
export function realCaptures(category: string, match: RegExp = /./): string[] {
  return readdirSync(path.join(REAL, category))
    .filter((name) => match.test(name))
    .sort()
    .map((name) => `${category}/${name}`);
}
