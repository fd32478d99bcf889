import { execFileSync, spawn } from 'node:child_process';
import { chmod, link, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunError, UsageError } from '../../src/util/errors.js';
import { planOutput, writeOutput } from '../../src/util/safe-output.js';

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

  it('/dev/stdout and /dev/stderr are the process descriptors, not the file the link names', async () => {
    const plan = await planOutput('/dev/stdout', out);
    expect(plan).toEqual({ kind: 'stdio', fd: 1 });
    expect(await planOutput('/dev/stderr', out)).toEqual({ kind: 'stdio', fd: 2 });
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

  it('a hard link to the input (same device and inode) is the input', async () => {
    const evidence = path.join(dir, 'a.json');
    await writeFile(evidence, 'evidence');
    await link(evidence, path.join(dir, 'b.json'));
    await expect(writeOutput(path.join(dir, 'b.json'), 'x', { flag: '-o', inputs: [evidence] })).rejects.toThrow(
      /^-o: .*b\.json is the input .*a\.json/,
    );
    expect(await readFile(evidence, 'utf8')).toBe('evidence');
  });

  it('/proc/version and a missing directory are usage errors naming the path as given, never a temp file', async () => {
    for (const target of ['/proc/version', path.join(dir, 'nope', 'r.txt')]) {
      const error = (await writeOutput(target, 'x', out).catch((caught: unknown) => caught)) as Error;
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toContain(`--output: ${target}:`);
      expect(error.message).not.toMatch(/\.tmp|nicdoctor-probe/);
    }
  });
});

describe('writeOutput: nothing another user planted is written through (issue 18.1)', () => {
  it('a symbolic link is refused and its target untouched, the link kept', async () => {
    const victim = path.join(dir, 'victim');
    await writeFile(victim, 'precious');
    await symlink(victim, path.join(dir, 'report.txt'));
    await expect(writeOutput(path.join(dir, 'report.txt'), 'report', out)).rejects.toThrow(/report\.txt is a symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect(await readlink(path.join(dir, 'report.txt'))).toBe(victim);
  });

  it('a dangling link is refused and nothing is created where it points', async () => {
    await symlink(path.join(dir, 'created-by-link'), path.join(dir, 'report.txt'));
    await expect(writeOutput(path.join(dir, 'report.txt'), 'report', out)).rejects.toThrow(/dangling/);
    expect(await readdir(dir)).toEqual(['report.txt']);
  });

  it('a directory others can write, sticky or not, is refused', async () => {
    for (const mode of [0o1777, 0o777, 0o775]) {
      const shared = path.join(dir, `shared-${mode.toString(8)}`);
      await mkdir(shared);
      await chmod(shared, mode);
      await expect(writeOutput(path.join(shared, 'report.txt'), 'x', out)).rejects.toThrow(/others can write/);
      expect(await readdir(shared)).toEqual([]);
    }
  });
});
