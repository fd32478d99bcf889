/**
 * Every writer of the built CLI goes through the one safe writer (issue 18.1, 19.6): inputs are
 * never outputs, devices stay devices, links and shared directories are refused, and a bad
 * target is exit 2 naming the path as the user gave it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type CliRun } from '../../lab/cli.js';
import { collectScript } from '../../src/collect-script/generate.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from './helpers.js';

// Each test runs the built CLI several times: seconds apiece on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const HOST = path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops');
const QUICK = { timeoutMs: 60_000 };
let work: string;
let a: string;
let b: string;

beforeAll(async () => {
  work = await tempDir('nicdoctor-output-cli-');
  a = path.join(work, 'a.json');
  b = path.join(work, 'b.json');
  const report = await runCli(['analyze', HOST, '--format', 'json', '--output', a], QUICK);
  expect([0, 1], report.stderr).toContain(report.exitCode);
  cpSync(a, b);
  mkdirSync(path.join(work, 'fleet'));
  cpSync(a, path.join(work, 'fleet', 'one.json'));
  cpSync(a, path.join(work, 'fleet', 'two.json'));
});
afterAll(() => execFileSync('rm', ['-rf', work]));

function expectRefused(run: CliRun, userPath: string): void {
  expect(run.exitCode, run.stderr).toBe(2);
  expect(run.stderr).toContain(userPath);
  // The user's path, never a temporary or probe file's name.
  expect(run.stderr).not.toMatch(/\.tmp\b|nicdoctor-probe|nicdoctor-bundle-/);
}

describe('inputs are never outputs (issue 19.6)', () => {
  it('diff a.json b.json -o a.json is exit 2 and a.json is kept', async () => {
    const before = readFileSync(a, 'utf8');
    expectRefused(await runCli(['diff', a, b, '-o', a], QUICK), a);
    expect(readFileSync(a, 'utf8')).toBe(before);
  });

  it('fleet DIR -o DIR/one.json is exit 2 and one.json is kept', async () => {
    const one = path.join(work, 'fleet', 'one.json');
    const before = readFileSync(one, 'utf8');
    expectRefused(await runCli(['fleet', path.join(work, 'fleet'), '-o', one], QUICK), one);
    expect(readFileSync(one, 'utf8')).toBe(before);
  });

  it('fleet -o a directory, a missing directory or /proc/version is exit 2 naming that path', async () => {
    for (const target of [path.join(work, 'fleet'), path.join(work, 'missing', 'fleet.txt'), '/proc/version']) {
      expectRefused(await runCli(['fleet', a, b, '-o', target], QUICK), target);
    }
  });
});

describe('fleet and diff -o /dev/null and /dev/full stay devices (issue 18.1)', () => {
  it.each([['fleet'], ['diff']])('%s', async (command) => {
    const args = command === 'fleet' ? ['fleet', a, b] : ['diff', a, b];
    const discarded = await runCli([...args, '-o', '/dev/null'], QUICK);
    expect([0, 1], discarded.stderr).toContain(discarded.exitCode);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
    const full = await runCli([...args, '-o', '/dev/full'], QUICK);
    expect(full.exitCode, full.stderr).toBe(3);
    expect(full.stderr).toMatch(/\/dev\/full: no space left/);
    expect(lstatSync('/dev/full').isCharacterDevice()).toBe(true);
  });
});

describe('links and shared directories are refused by every writer (issue 18.1)', () => {
  it('--output, fleet -o, diff -o and fix -o refuse a planted link and leave its target alone', async () => {
    const victim = path.join(work, 'victim');
    writeFileSync(victim, 'precious');
    const link = path.join(work, 'planted.txt');
    symlinkSync(victim, link);
    for (const args of [
      ['analyze', HOST, '--output', link],
      ['fleet', a, b, '-o', link],
      ['diff', a, b, '-o', link],
      ['fix', '--from', HOST, '-o', link],
    ]) {
      const run = await runCli(args, QUICK);
      expectRefused(run, link);
      expect(run.stderr).toMatch(/symbolic link/);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readlinkSync(link)).toBe(victim);
  });

  it('a report into a directory others can write (sticky, like /tmp) is refused', async () => {
    const shared = path.join(work, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const target = path.join(shared, 'report.json');
    const run = await runCli(['analyze', HOST, '--format', 'json', '--output', target], QUICK);
    expectRefused(run, target);
    expect(run.stderr).toMatch(/others can write/);
    expect(readdirSync(shared)).toEqual([]);
  });
});

describe('collect -o DIR (issue 18.1)', () => {
  it('refuses a link, a directory others can write, and a non-empty one, before reading anything', async () => {
    const elsewhere = path.join(work, 'elsewhere');
    mkdirSync(elsewhere);
    const link = path.join(work, 'collect-link');
    symlinkSync(elsewhere, link);
    const open = path.join(work, 'collect-open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const full = path.join(work, 'collect-full');
    mkdirSync(full);
    writeFileSync(path.join(full, 'snapshot.json'), '{}');
    for (const [target, why] of [
      [link, /symbolic link/],
      [open, /others can write/],
      [full, /not empty/],
    ] as const) {
      const run = await runCli(['collect', '-o', target, '--iface', 'lo'], QUICK);
      expectRefused(run, target);
      expect(run.stderr).toMatch(why);
    }
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('makes its directory itself, mode 0700', async () => {
    const target = path.join(work, 'collected');
    // One real interface keeps it short (loopback is never examined).
    const iface = readdirSync('/sys/class/net').find((name) => name !== 'lo') ?? 'eth0';
    const run = await runCli(['collect', '-o', target, '--iface', iface], { timeoutMs: 120_000 });
    expect([0, 3], run.stderr).toContain(run.exitCode);
    expect(lstatSync(target).mode & 0o7777).toBe(0o700);
    expect(readdirSync(target)).toContain('snapshot.json');
  });
});

describe('collect.sh refuses a link at its output, under dash and bash (issue 18.1)', () => {
  it.each([['dash'], ['bash']])('%s', async (shell) => {
    const dir = await tempDir('nicdoctor-collect-sh-');
    const script = path.join(dir, 'collect.sh');
    writeFileSync(script, collectScript());
    const victim = path.join(dir, 'victim');
    writeFileSync(victim, 'precious');
    const existing = path.join(dir, 'existing.tar.gz');
    symlinkSync(victim, existing);
    const dangling = path.join(dir, 'dangling.tar.gz');
    symlinkSync(path.join(dir, 'created-through-link'), dangling);
    for (const out of [existing, dangling]) {
      let code = 0;
      let stderr = '';
      try {
        execFileSync(shell, [script, out], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
      } catch (error) {
        const failure = error as { status: number; stderr: string };
        code = failure.status;
        stderr = failure.stderr;
      }
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(`${out} is a symbolic link`);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(readdirSync(dir).sort()).toEqual(['collect.sh', 'dangling.tar.gz', 'existing.tar.gz', 'victim']);
    execFileSync('rm', ['-rf', dir]);
  });
});
