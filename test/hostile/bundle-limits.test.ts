import { execFileSync } from 'node:child_process';
import { mkdir, readdir, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_LIMITS, BundleError, openBundle } from '../../src/bundle/open.js';
import { tempDir } from './helpers.js';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('bundle extraction caps', () => {
  it('refuses a small archive that inflates past the per-entry cap, before extracting anything', async () => {
    const dir = await tempDir();
    temps.push(dir);
    const root = path.join(dir, 'nicdoctor-bundle', 'snapshot');
    await mkdir(root, { recursive: true });
    const big = path.join(root, 'zeros');
    await writeSparse(big, BUNDLE_LIMITS.entryBytes + 1);
    const archive = path.join(dir, 'bomb.tar.gz');
    execFileSync('tar', ['-czf', archive, '-C', dir, 'nicdoctor-bundle']);
    const before = await readdir(tmpdir());
    const started = performance.now();
    await expect(openBundle(archive)).rejects.toThrow(BundleError);
    await expect(openBundle(archive)).rejects.toThrow(/refusing a bundle with .*zeros is \d+ bytes/);
    expect(performance.now() - started).toBeLessThan(10_000);
    // Nothing was extracted into the temp directory.
    expect((await readdir(tmpdir())).filter((name) => name.startsWith('nicdoctor-analyze-') && !before.includes(name))).toEqual([]);
  });
});

async function writeSparse(file: string, size: number): Promise<void> {
  execFileSync('touch', [file]);
  await truncate(file, size);
}
