/**
 * The folders form layers: a module imports only from its own folder or from a lower layer, so
 * there are no import cycles between folders and nothing of the tests ships in dist/.
 * Contracts (src/contracts) sit below what implements them (collectors, checks); orchestration
 * (pipeline) above both; entry points (cli) at the top.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Lowest first. Folders on one line are peers: they may not import each other. */
export const LAYERS: readonly (readonly string[])[] = [
  ['src/util'],
  ['src/report'],
  ['src/parsers'],
  ['src/domain'],
  ['src/hostio'],
  ['src/contracts'],
  ['src/collectors'],
  ['checks'],
  ['src/rules'],
  ['src/policy'],
  ['src/bench'],
  ['src/pipeline'],
  ['src/reporters', 'src/bundle', 'src/fix', 'src/collect-script'],
  ['src/text', 'src/fleet', 'src/docs'],
  ['src/diff', 'src/eval'],
  ['src/cli'],
  ['src'],
  ['lab', 'fuzz'],
  ['benchmarks'],
];

function walk(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return walk(rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The folder a file belongs to: the deepest listed folder that contains it. */
function folderOf(file: string): string | undefined {
  const folders = LAYERS.flat().sort((a, b) => b.length - a.length);
  return folders.find((folder) => file.startsWith(`${folder}/`));
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((match) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), (match[1] ?? match[2])!)),
  );
}

const sources = ['src', 'checks', 'lab', 'fuzz', 'benchmarks'].flatMap((dir) => walk(dir));

describe('layout: one-way imports between folders', () => {
  it('places every source file in a listed folder', () => {
    const unplaced = sources.filter((file) => folderOf(file) === undefined);
    expect(unplaced, 'add the new folder to LAYERS in test/layout.test.ts').toEqual([]);
  });

  it('imports only from the same folder or a lower layer', () => {
    const violations: string[] = [];
    for (const file of sources) {
      const from = folderOf(file)!;
      for (const target of importsOf(file)) {
        if (target.startsWith('test/')) {
          violations.push(`${file} imports test code ${target} (it would ship in dist/)`);
          continue;
        }
        const to = folderOf(target);
        if (to === undefined || to === from) continue;
        if (layerOf(to) >= layerOf(from))
          violations.push(`${file} (${from}) imports ${target} (${to}): ${layerOf(to) === layerOf(from) ? 'a peer' : 'a higher layer'}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('compiles no test code into dist/', () => {
    const config = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    expect(config.include.filter((entry) => entry === 'test' || entry.startsWith('test/'))).toEqual([]);
  });

  it('finds the imports it checks (the scan is not vacuous)', () => {
    expect(sources.length).toBeGreaterThan(100);
    expect(importsOf('src/pipeline/scan.ts').some((target) => target.startsWith('src/collectors/'))).toBe(true);
  });
});
