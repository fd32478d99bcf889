import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures');
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
