/**
 * What the caller's environment and current directory cannot change in a run (issue 18.4):
 * Node.js hooks in the environment, a tool planted where PATH looks first, a policy planted under
 * the README's own relative spelling. Runs the built CLI the way it is installed: the file itself,
 * through its #! line.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI, parseReport, runCli } from '../../lab/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from './helpers.js';

// Each test runs the built CLI several times: seconds apiece on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const HOST = path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded');
const QUICK = { timeoutMs: 60_000 };
let sandbox: string;
beforeAll(async () => {
  sandbox = await tempDir('nicdoctor-steering-');
});
afterAll(async () => {
  await promisify(execFile)('rm', ['-rf', sandbox]);
});

/** The installed CLI run as a program (its #! line decides how node starts). */
async function runInstalled(args: string[], env: Record<string, string>, cwd = sandbox) {
  try {
    const { stdout, stderr } = await promisify(execFile)(CLI, args, { cwd, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('Node.js environment hooks are ignored by dist/src/cli.js as installed', () => {
  it('NODE_OPTIONS=--require x.js nicdoctor --version does not run x.js', async () => {
    const marker = path.join(sandbox, 'x-ran');
    const hook = path.join(sandbox, 'x.js');
    writeFileSync(hook, `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    const run = await runInstalled(['--version'], { PATH: '/usr/local/bin:/usr/bin:/bin', NODE_OPTIONS: `--require ${hook}` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(existsSync(marker)).toBe(false);
  });

  it('NODE_V8_COVERAGE does not make a run write into that directory', async () => {
    const coverage = path.join(sandbox, 'coverage');
    mkdirSync(coverage);
    const run = await runInstalled(['checks'], { PATH: '/usr/local/bin:/usr/bin:/bin', NODE_V8_COVERAGE: coverage });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(coverage)).toEqual([]);
  });
});

describe('tools come from the system directories, never the caller PATH', () => {
  it('a ./ethtool with . first in PATH does not run', async () => {
    const marker = path.join(sandbox, 'ethtool-ran');
    for (const tool of ['ethtool', 'ip', 'lspci', 'sysctl']) {
      writeFileSync(path.join(sandbox, tool), `#!/bin/sh\ntouch '${marker}'\n`);
      chmodSync(path.join(sandbox, tool), 0o755);
    }
    const run = await runCli(['scan', '--only', 'link-speed', '--format', 'json'], {
      ...QUICK,
      cwd: sandbox,
      env: { PATH: `.:${sandbox}:/usr/bin:/bin` },
    });
    expect([0, 1], run.stderr).toContain(run.exitCode);
    expect(existsSync(marker)).toBe(false);
  });

  it('--tool-path takes only absolute directories nobody else can write', async () => {
    const open = path.join(sandbox, 'open-bin');
    mkdirSync(open);
    chmodSync(open, 0o777);
    for (const [dirs, why] of [
      ['.', /absolute/],
      ['bin', /absolute/],
      [open, /others can write/],
      [path.join(sandbox, 'missing'), /no such directory/],
    ] as const) {
      const run = await runCli(['--tool-path', dirs, 'checks'], QUICK);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^nicdoctor: --tool-path: /);
      expect(run.stderr).toMatch(why);
    }
  });
});

describe('--policy names resolve to the shipped policies; a local one needs ./ and trust', () => {
  const planted = 'name: planted\nmtu: 1500\n';

  it('--policy policies/25g.yaml is the shipped policy, whatever ./policies/25g.yaml holds', async () => {
    mkdirSync(path.join(sandbox, 'policies'), { recursive: true });
    writeFileSync(path.join(sandbox, 'policies', '25g.yaml'), planted);
    for (const spec of ['policies/25g.yaml', '25g', '25g.yaml']) {
      const run = await runCli(['analyze', HOST, '--policy', spec, '--format', 'json'], { ...QUICK, cwd: sandbox });
      expect(run.exitCode, run.stderr).toBe(1);
      const report = parseReport(run.stdout);
      expect(report.policy?.name, spec).toBe('25g');
      expect(report.policy?.pass).toBe(false);
    }
  });

  it('./ names a local policy, read when only the caller and root can change it', async () => {
    writeFileSync(path.join(sandbox, 'mine.yaml'), planted);
    chmodSync(path.join(sandbox, 'mine.yaml'), 0o644);
    const run = await runCli(['analyze', HOST, '--policy', './mine.yaml', '--format', 'json'], { ...QUICK, cwd: sandbox });
    expect([0, 1], run.stderr).toContain(run.exitCode);
    expect(parseReport(run.stdout).policy?.name).toBe('planted');
  });

  it('a bare name that is no shipped policy, or a local policy others can write, is exit 2', async () => {
    const shared = path.join(sandbox, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    writeFileSync(path.join(shared, 'p.yaml'), planted);
    writeFileSync(path.join(sandbox, 'writable.yaml'), planted);
    chmodSync(path.join(sandbox, 'writable.yaml'), 0o666);
    for (const [spec, why] of [
      ['mine.yaml', /no shipped policy .*explicit \.\/ or absolute path/],
      ['sub/p.yaml', /no shipped policy/],
      ['./shared/p.yaml', /others can write to .*shared/],
      ['./writable.yaml', /others can write to it/],
    ] as const) {
      const run = await runCli(['analyze', HOST, '--policy', spec], { ...QUICK, cwd: sandbox });
      expect(run.exitCode, `${spec}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`--policy: ${spec}`);
      expect(run.stderr).toMatch(why);
    }
  });
});
