/**
 * An unprivileged local user against root's nicdoctor (issue 18): as the user `wtwriter` (made
 * with useradd when missing, removed again afterwards), plant links, directories, tools and
 * policies in a shared sticky directory and in a directory of the user's own; then run nicdoctor
 * as root around them. Every plant is refused or ignored, and the root-owned victim file is
 * untouched. Needs root (CI runs as root: there a missing root fails instead of skipping).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbidSkipOnCi } from '../../lab/no-skip-on-ci.js';
import { parseReport, runCli, type CliRun } from '../../lab/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';

const USER = 'wtwriter';
const HOST = path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded');
const QUICK = { timeoutMs: 90_000 };
const skipReason = forbidSkipOnCi('the unprivileged-user test', process.getuid?.() === 0 ? undefined : 'it needs root');
if (skipReason) console.warn(`hostile-user lab test skipped: ${skipReason}`);

let created = false;
let uid = -1;
let root: string;
/** Like /tmp: mode 1777, owned by root. */
let shared: string;
/** The user's own directory. */
let theirs: string;
let victim: string;

function id(): number | null {
  try {
    return Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' }).trim());
  } catch {
    return null;
  }
}

/** Runs a shell command as the user, the way a local attacker would plant things. */
function asUser(script: string): void {
  execFileSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'sh', '-c', script], { stdio: 'pipe' });
}

function expectRefused(run: CliRun, named: string, why: RegExp): void {
  expect(run.exitCode, run.stderr).toBe(2);
  expect(run.stderr).toContain(named);
  expect(run.stderr).toMatch(why);
}

beforeAll(() => {
  if (skipReason) return;
  if (id() === null) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', USER]);
    created = true;
  }
  uid = id()!;
  root = mkdtempSync(path.join(tmpdir(), 'wtwriter-hostile-'));
  chmodSync(root, 0o755);
  shared = path.join(root, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  victim = path.join(root, 'victim');
  writeFileSync(victim, 'precious root data\n', { mode: 0o600 });
});

afterAll(() => {
  if (skipReason) return;
  rmSync(root, { recursive: true, force: true });
  if (created) execFileSync('userdel', [USER]);
});

describe.skipIf(skipReason)('root nicdoctor among plants of an unprivileged user', () => {
  beforeAll(() => {
    // The user cannot create directories in root's 0755 one; they make theirs inside the shared one.
    theirs = path.join(shared, 'theirs');
    asUser(`mkdir '${theirs}' && chmod 755 '${theirs}'`);
  });

  it('links planted in a shared sticky directory: --output, --bundle, fleet -o, diff -o refuse them; the victim is untouched', async () => {
    asUser(`ln -s '${victim}' '${shared}/report.json' && ln -s '${root}/created-through-link' '${shared}/evidence.tar.gz'`);
    const reportA = path.join(root, 'a.json');
    const made = await runCli(['analyze', HOST, '--format', 'json', '--output', reportA], QUICK);
    expect([0, 1], made.stderr).toContain(made.exitCode);
    for (const [args, named] of [
      [['analyze', HOST, '--format', 'json', '--output', `${shared}/report.json`], `${shared}/report.json`],
      [['scan', '--only', 'link-speed', '--bundle', `${shared}/evidence.tar.gz`], `${shared}/evidence.tar.gz`],
      [['fleet', reportA, '-o', `${shared}/report.json`], `${shared}/report.json`],
      [['diff', reportA, reportA, '-o', `${shared}/report.json`], `${shared}/report.json`],
    ] as const) {
      expectRefused(await runCli([...args], QUICK), named, /symbolic link/);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious root data\n');
    expect(statSync(victim).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(root, 'created-through-link'))).toBe(false);
  });

  it('a new name in a shared directory, or in a directory of the user, is refused (they could swap it)', async () => {
    for (const target of [`${shared}/new-report.json`, `${theirs}/report.json`]) {
      expectRefused(await runCli(['analyze', HOST, '--output', target], QUICK), target, /others can write|belongs to another user/);
    }
    expect(readdirSync(theirs)).toEqual([]);
  });

  it('a file of the user in a root directory is not replaced (fix -o)', async () => {
    const file = path.join(root, 'their-file.sh');
    writeFileSync(file, 'theirs\n');
    execFileSync('chown', [`${uid}:${uid}`, file]);
    expectRefused(await runCli(['fix', '--from', HOST, '-o', file], QUICK), file, /belongs to another user/);
    expect(readFileSync(file, 'utf8')).toBe('theirs\n');
  });

  it('collect -o a directory the user made first is refused; a new one is root-owned 0700', async () => {
    const planted = path.join(shared, 'collect-dir');
    asUser(`mkdir '${planted}' && chmod 700 '${planted}'`);
    expectRefused(await runCli(['collect', '-o', planted], QUICK), planted, /belongs to another user/);
    const fresh = path.join(shared, 'collect-root');
    const iface = readdirSync('/sys/class/net').find((name) => name !== 'lo') ?? 'eth0';
    const run = await runCli(['collect', '-o', fresh, '--iface', iface], { timeoutMs: 180_000 });
    expect([0, 3], run.stderr).toContain(run.exitCode);
    const info = statSync(fresh);
    expect([info.uid, info.mode & 0o7777]).toEqual([0, 0o700]);
  });

  it('a tool planted in the current directory with . first in PATH, or through --tool-path, never runs', async () => {
    const marker = path.join(root, 'tool-ran');
    asUser(
      ['ethtool', 'ip', 'lspci', 'sysctl']
        .map((tool) => `printf '#!/bin/sh\\ntouch ${marker}\\n' > '${theirs}/${tool}' && chmod 755 '${theirs}/${tool}'`)
        .join(' && '),
    );
    const run = await runCli(['scan', '--only', 'link-speed', '--format', 'json'], {
      ...QUICK,
      cwd: theirs,
      env: { PATH: `.:${theirs}:/usr/bin:/bin` },
    });
    expect([0, 1], run.stderr).toContain(run.exitCode);
    expectRefused(await runCli(['--tool-path', theirs, 'checks'], QUICK), theirs, /belongs to another user/);
    expect(existsSync(marker)).toBe(false);
  });

  it('a policy planted under the README spelling is ignored; the user policy named with ./ is refused', async () => {
    asUser(`mkdir '${theirs}/policies' && printf 'name: planted\\nmtu: 1500\\n' > '${theirs}/policies/25g.yaml'`);
    const shipped = await runCli(['analyze', HOST, '--policy', 'policies/25g.yaml', '--format', 'json'], { ...QUICK, cwd: theirs });
    expect(shipped.exitCode, shipped.stderr).toBe(1);
    expect(parseReport(shipped.stdout).policy).toMatchObject({ name: '25g', pass: false });
    const local = await runCli(['analyze', HOST, '--policy', './policies/25g.yaml'], { ...QUICK, cwd: theirs });
    expectRefused(local, '--policy: ./policies/25g.yaml', /belongs to another user/);
  });
});
