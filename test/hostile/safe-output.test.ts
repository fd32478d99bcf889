import { execFileSync, spawn } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunError, UsageError } from '../../src/util/errors.js';
import { writeOutput } from '../../src/util/safe-output.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'nicdoctor-output-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const out = { flag: '--output' };

describe('writeOutput: special files are written, never replaced', () => {
  it('/dev/null stays a character device', async () => {
    await writeOutput('/dev/null', 'report\n', out);
    expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
  });

  it('/dev/full is a run error (exit 3) that names the reason', async () => {
    const error = await writeOutput('/dev/full', 'report\n', out).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunError);
    expect(String((error as Error).message)).toMatch(/no space left.*ENOSPC/);
    expect((await stat('/dev/full')).isCharacterDevice()).toBe(true);
  });

  it('a FIFO is written as a stream to its reader and stays a FIFO', async () => {
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo]);
    let received = '';
    reader.stdout.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    await writeOutput(fifo, 'through the pipe\n', out);
    await closed;
    expect(received).toBe('through the pipe\n');
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('a symbolic link is kept and the file it names is replaced', async () => {
    const real = path.join(dir, 'real.txt');
    const link = path.join(dir, 'link.txt');
    await writeFile(real, 'old');
    await symlink('real.txt', link);
    await writeOutput(link, 'new', out);
    expect(await readlink(link)).toBe('real.txt');
    expect(await readFile(real, 'utf8')).toBe('new');
  });

  it('a replaced regular file keeps its mode; no temp file is left', async () => {
    const file = path.join(dir, 'report.txt');
    await writeFile(file, 'old');
    await chmod(file, 0o640);
    await writeOutput(file, 'new', out);
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['report.txt']);
  });

  it('a link planted at the old predictable temp name is not written through', async () => {
    const victim = path.join(dir, 'victim');
    await writeFile(victim, 'precious');
    const file = path.join(dir, 'report.txt');
    for (let ms = Date.now() - 5; ms < Date.now() + 1000; ms += 1)
      await symlink(victim, path.join(dir, `.report.txt.${process.pid}.${ms}.tmp`));
    await writeOutput(file, 'report', out);
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect(await readFile(file, 'utf8')).toBe('report');
  });
});

describe('writeOutput: bad targets are usage errors (exit 2) that say why', () => {
  it('a directory', async () => {
    await expect(writeOutput(dir, 'x', out)).rejects.toThrow(UsageError);
    await expect(writeOutput(dir, 'x', out)).rejects.toThrow(/is a directory/);
  });

  it('a missing directory', async () => {
    await expect(writeOutput(path.join(dir, 'nope', 'r.txt'), 'x', out)).rejects.toThrow(/--output: .*does not exist/);
  });

  it('the input itself, or a file inside the input directory', async () => {
    const evidence = path.join(dir, 'ev.tar.gz');
    await writeFile(evidence, 'evidence');
    await expect(writeOutput(evidence, 'x', { flag: '--output', inputs: [evidence] })).rejects.toThrow(/is the input/);
    const snapshot = path.join(dir, 'snap');
    await mkdir(snapshot);
    await expect(writeOutput(path.join(snapshot, 'report.txt'), 'x', { flag: '--output', inputs: [snapshot] })).rejects.toThrow(
      /inside the input/,
    );
    // through a symbolic link to the input, too
    await symlink(evidence, path.join(dir, 'alias'));
    await expect(writeOutput(path.join(dir, 'alias'), 'x', { flag: '--output', inputs: [evidence] })).rejects.toThrow(UsageError);
    expect(await readFile(evidence, 'utf8')).toBe('evidence');
  });
});
