/**
 * Issue 19 item 4: one set of limits for every archive, enforced while it streams, and only
 * regular files read. Measured before: a 3 MB .tar.gz holding one 3 GB entry reached 3.1 GB of
 * RSS (a `tar.list` of the whole archive ran before the capped validation); a collect-script
 * archive had no limits at all and its error named the internal temp directory; a FIFO as an
 * archive, a diff input or a fix --state file blocked forever.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../lab/cli.js';
import { ARCHIVE_LIMITS } from '../../src/hostio/archive.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from './helpers.js';

const GB3 = 3 * 1024 ** 3;
let dir: string;

/**
 * A .tar.gz of a few MB whose one entry (`name`, below `top`) declares and holds 3 GB of zeros:
 * gzip members concatenated (one 64 MB block of zeros compressed once, repeated), as valid as
 * one stream to any gunzip.
 */
async function zeroBomb(file: string, top: string, name: string): Promise<void> {
  const block = 64 * 1024 * 1024;
  const header = (entryPath: string, type: 'Directory' | 'File', size: number) => {
    const data = Buffer.alloc(512);
    new Header({ path: entryPath, type, size, mode: type === 'Directory' ? 0o755 : 0o644, mtime: new Date(0) }).encode(data, 0);
    return data;
  };
  const zeros = gzipSync(Buffer.alloc(block));
  const parts = [gzipSync(Buffer.concat([header(`${top}/`, 'Directory', 0), header(`${top}/${name}`, 'File', GB3)]))];
  for (let written = 0; written < GB3; written += block) parts.push(zeros);
  parts.push(gzipSync(Buffer.alloc(1024)));
  await writeFile(file, Buffer.concat(parts));
}

/** Runs the CLI, polling its peak resident set (VmHWM) until it exits. */
async function runMeasured(args: string[]) {
  const child = execa(process.execPath, [CLI, ...args], { reject: false, timeout: 300_000 });
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // exited
    }
  }, 20);
  const started = performance.now();
  const result = await child.finally(() => clearInterval(poll));
  return { result, peakMb: peakKb / 1024, ms: performance.now() - started };
}

beforeAll(async () => {
  dir = await tempDir('nicdoctor-archive-limits-');
  await zeroBomb(path.join(dir, 'bundle-bomb.tar.gz'), 'nicdoctor-bundle', 'snapshot/zeros');
  await zeroBomb(path.join(dir, 'collect-bomb.tar.gz'), 'nicdoctor-collect-web1-20260101', 'fs/zeros');
  execFileSync('mkfifo', [path.join(dir, 'pipe.tar.gz'), path.join(dir, 'pipe.json'), path.join(dir, 'state.json')]);
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('archives are refused while they stream, after reading at most the limit', () => {
  it.each([
    ['bundle-bomb.tar.gz', /refusing a bundle with nicdoctor-bundle\/snapshot\/zeros is 3221225472 bytes \(limit \d+\)/],
    ['collect-bomb.tar.gz', /refusing an archive with nicdoctor-collect-web1-20260101\/fs\/zeros is 3221225472 bytes/],
  ])(
    'analyze %s (3 GB of zeros in a few MB): exit 2 naming the file, RSS stays small',
    async (name, message) => {
      const file = path.join(dir, name);
      const { result, peakMb } = await runMeasured(['analyze', file]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain(file);
      // The user's file, never the temporary directory it was being extracted into.
      expect(result.stderr).not.toMatch(/nicdoctor-(?:run|analyze|collect)-[A-Za-z0-9]{6}/);
      expect(peakMb).toBeLessThan(400);
    },
    300_000,
  );

  it('the limits are one set, shared by every archive', () => {
    expect(ARCHIVE_LIMITS.entryBytes).toBeLessThan(ARCHIVE_LIMITS.totalBytes);
    expect(Object.keys(ARCHIVE_LIMITS).sort()).toEqual(['compressedBytes', 'entries', 'entryBytes', 'pathBytes', 'totalBytes']);
  });
});

describe('only regular files are read: a FIFO is refused at once, not waited on', () => {
  const analyzeInput = path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops');
  it.each([
    ['a .tar.gz input to analyze', () => ['analyze', path.join(dir, 'pipe.tar.gz')], /pipe\.tar\.gz: not a regular file \(a FIFO\)/],
    ['a diff input', () => ['diff', path.join(dir, 'pipe.json'), analyzeInput], /pipe\.json: not a regular file/],
    ['fix --state', () => ['fix', '--revert', '-y', '--state', path.join(dir, 'state.json')], /state\.json: not a regular file/],
  ])(
    '%s: exit 2',
    async (_what, args, message) => {
      const { result, ms } = await runMeasured(args());
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(message);
      // Refused, not blocked until the 300 s timeout.
      expect(result.timedOut).toBe(false);
      expect(ms).toBeLessThan(60_000);
    },
    300_000,
  );
});
