/**
 * The built CLI on crafted offline inputs (issue 13): nothing outside the input is read, no
 * FIFO or device blocks, nothing huge is loaded, and bad usage is exit 2 with a user-level
 * message. Each case has a time limit far below a hang; everything lives in this test's own
 * temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../lab/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from './helpers.js';

const HOST = path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops');
const SOS = path.join(FIXTURES, 'sosreport', 'x710-e3-1271');
const SECRET = 'TOPSECRET-do-not-leak';
/** A hang would take the whole 120 s runCli timeout; these take a second or two. */
const QUICK = { timeoutMs: 20_000 };

let dir: string;
let secret: string;
beforeAll(async () => {
  dir = await tempDir();
  // Stands in for /etc/shadow: a file of the analyst's, outside every input.
  secret = path.join(dir, 'secret');
  await writeFile(secret, `${SECRET}\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function copy(source: string, name: string): Promise<string> {
  const target = path.join(dir, name);
  await cp(source, target, { recursive: true, verbatimSymlinks: true });
  return target;
}

describe('analyze: links out of the input are not followed', () => {
  it('a cmd/ output linked to a file outside the snapshot is not read, and a warning names it', async () => {
    const snap = await copy(HOST, 'snap-link');
    await unlink(path.join(snap, 'cmd', 'ethtool_-S_eth0'));
    await symlink(secret, path.join(snap, 'cmd', 'ethtool_-S_eth0'));
    await symlink(secret, path.join(snap, 'cmd', 'ethtool_-k_eth0'));
    const run = await runCli(['analyze', snap, '--format', 'json'], QUICK);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stderr).toMatch(/ethtool_-S_eth0.*leads outside/);
    expect([0, 1]).toContain(run.exitCode);
  });

  it("a sosreport's hostname linked outside is not read into host.hostname", async () => {
    const sos = await copy(SOS, 'sos-link');
    await rm(path.join(sos, 'hostname'));
    await symlink(secret, path.join(sos, 'hostname'));
    await symlink(secret, path.join(sos, 'sos_commands', 'networking', 'ethtool_-k_eth0'));
    const run = await runCli(['analyze', sos, '--format', 'json'], QUICK);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(JSON.parse(run.stdout).host.hostname).not.toContain('TOPSECRET');
  });
});

describe('analyze: FIFOs and devices never block, big files are not loaded', () => {
  it('snapshot.json as a FIFO is exit 2, at once', async () => {
    const snap = await copy(HOST, 'snap-fifo-manifest');
    await rm(path.join(snap, 'snapshot.json'));
    execFileSync('mkfifo', [path.join(snap, 'snapshot.json')]);
    const run = await runCli(['analyze', snap], QUICK);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/not a regular file \(a FIFO\)/);
  });

  it('a FIFO as a command output and a /dev/zero link as a file are skipped; the rest is analysed', async () => {
    const snap = await copy(HOST, 'snap-fifo-cmd');
    await rm(path.join(snap, 'cmd', 'ethtool_-g_eth0'));
    execFileSync('mkfifo', [path.join(snap, 'cmd', 'ethtool_-g_eth0')]);
    await rm(path.join(snap, 'fs', 'proc', 'interrupts'), { force: true });
    await mkdir(path.join(snap, 'fs', 'proc'), { recursive: true });
    await symlink('/dev/zero', path.join(snap, 'fs', 'proc', 'interrupts'));
    const run = await runCli(['analyze', snap, '--format', 'json'], QUICK);
    expect([0, 1]).toContain(run.exitCode);
    expect(run.durationMs).toBeLessThan(15_000);
    expect(JSON.parse(run.stdout).interfaces.map((iface: { name: string }) => iface.name)).toEqual(['eth0']);
  });

  it('a FIFO in a sosreport is skipped', async () => {
    const sos = await copy(SOS, 'sos-fifo');
    await rm(path.join(sos, 'sos_commands', 'networking', 'ethtool_-S_eth0'));
    execFileSync('mkfifo', [path.join(sos, 'sos_commands', 'networking', 'ethtool_-S_eth0')]);
    const run = await runCli(['analyze', sos, '--format', 'json'], QUICK);
    expect([0, 1]).toContain(run.exitCode);
  });

  it('--policy as a FIFO, or a 50 MB policy, is exit 2 at once', async () => {
    const fifo = path.join(dir, 'policy.fifo');
    execFileSync('mkfifo', [fifo]);
    const huge = path.join(dir, 'huge.yaml');
    await writeFile(huge, '');
    await truncate(huge, 50 * 1024 * 1024);
    for (const policy of [fifo, huge]) {
      const run = await runCli(['analyze', HOST, '--policy', policy], QUICK);
      expect(run.exitCode, policy).toBe(2);
      expect(run.stderr).toMatch(/--policy: .*(FIFO|limit)/);
    }
  });

  it('a malformed listing file is exit 2 with a user-level message', async () => {
    const snap = await copy(HOST, 'snap-listing');
    await writeFile(path.join(snap, 'fs', 'sys', 'class', 'net', '.nicdoctor-listing'), '{"not": "a list"');
    const run = await runCli(['analyze', snap], QUICK);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/\.nicdoctor-listing is not a JSON list/);
    expect(run.stderr).not.toMatch(/\.tmp|at .*\.js:\d+/);
  });
});

describe('sosreport recognition', () => {
  it('an extract with sos_commands/ but no version.txt or sos_reports/ is a sosreport; uname gives kernel and arch', async () => {
    const sos = await copy(SOS, 'sos-partial');
    await rm(path.join(sos, 'version.txt'), { force: true });
    await rm(path.join(sos, 'sos_reports'), { recursive: true, force: true });
    await mkdir(path.join(sos, 'sos_commands', 'kernel'), { recursive: true });
    await writeFile(
      path.join(sos, 'sos_commands', 'kernel', 'uname_-a'),
      'Linux h 5.14.0-70.el9.aarch64 #1 SMP PREEMPT_DYNAMIC Thu Feb 24 19:11:22 EST 2022 aarch64 aarch64 aarch64 GNU/Linux\n',
    );
    await rm(path.join(sos, 'uname'), { force: true });
    const run = await runCli(['analyze', sos, '--format', 'json'], QUICK);
    expect([0, 1]).toContain(run.exitCode);
    const host = JSON.parse(run.stdout).host;
    expect(host.kernel).toBe('5.14.0-70.el9.aarch64');
    expect(host.arch).toBe('arm64');
  });

  it('newer sos per-device folders are found', async () => {
    const sos = await copy(SOS, 'sos-devices');
    const networking = path.join(sos, 'sos_commands', 'networking');
    const devices = path.join(networking, 'devices', 'eth0');
    await mkdir(devices, { recursive: true });
    for (const name of ['ethtool_-S_eth0', 'ethtool_-g_eth0']) {
      await cp(path.join(networking, name), path.join(devices, name));
      await rm(path.join(networking, name));
    }
    const run = await runCli(['analyze', sos, '--format', 'json'], QUICK);
    const report = JSON.parse(run.stdout);
    const rings = report.checks.find((check: { id: string }) => check.id === 'rx-rings');
    expect(rings.status).not.toBe('unknown');
  });

  it('a directory that is neither says what was expected (exit 2)', async () => {
    const empty = path.join(dir, 'empty');
    await mkdir(empty);
    const run = await runCli(['analyze', empty], QUICK);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/snapshot\.json.*sos_commands\/.*\.tar\.gz/);
  });
});

describe('output paths and arguments', () => {
  it('refuses to overwrite the input, a directory or a missing directory (exit 2); /dev/full is exit 3; /dev/null stays a device', async () => {
    const bundle = path.join(dir, 'ev.tar.gz');
    const made = await runCli(['analyze', HOST, '--format', 'json', '--output', path.join(dir, 'first.json')], QUICK);
    expect([0, 1]).toContain(made.exitCode);
    execFileSync('tar', ['-czf', bundle, '-C', dir, 'first.json']);
    const before = await readFile(bundle);
    const same = await runCli(['analyze', bundle, '-o', bundle], QUICK);
    expect(same.exitCode).toBe(2);
    expect(await readFile(bundle)).toEqual(before);
    const inside = await runCli(['analyze', HOST, '-o', path.join(HOST, 'report.txt')], QUICK);
    expect(inside.exitCode).toBe(2);
    expect((await runCli(['analyze', HOST, '-o', dir], QUICK)).exitCode).toBe(2);
    const missing = await runCli(['analyze', HOST, '-o', path.join(dir, 'no', 'such', 'r.txt')], QUICK);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--output: .*does not exist/);
    expect(missing.stderr).not.toMatch(/\.tmp/);
    const full = await runCli(['analyze', HOST, '-o', '/dev/full'], QUICK);
    expect(full.exitCode).toBe(3);
    expect(full.stderr).toMatch(/no space left/);
    expect((await runCli(['analyze', HOST, '-o', '/dev/null'], QUICK)).exitCode).not.toBe(3);
    execFileSync('test', ['-c', '/dev/null']);
  });

  it.each([
    [['--log-level', 'nonsense', 'checks'], /--log-level/],
    [['analyze', HOST, '--iface', ''], /--iface <name>' argument '' is invalid\. An empty interface name/],
    [['bench', '--loopback', '--ports', '1000-1200,2000-2200'], /--ports <ports>' argument .* is invalid\. 402 ports; at most 256/],
    [['serve', '--bind', '127.0.0.1', '--ports', '1-300'], /--ports/],
  ])('bad arguments are exit 2 with a message naming them: %j', async (args, message) => {
    const run = await runCli(args, QUICK);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});
