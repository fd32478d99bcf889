/**
 * Usage errors of the built CLI (`node dist/src/cli.js`), as a user meets them: a bad option
 * value or argument is exit 2 with one line naming it, before anything runs. None of this needs
 * root or namespaces, so it runs in the unit project (the lab suite keeps what needs a lab).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOL_PACKAGES } from '../../src/contracts/collector.js';
import { cliArgv } from '../../lab/executable.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CLI, REPO_ROOT, hasStackTrace, runCli, toolPath, type CliRun } from '../../lab/cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-usage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SNAPSHOT = path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops');
const ONE_HOST_TEXT = path.join(FIXTURES, 'text', 'ice-e810xxv-epyc-rxdrops-dollar-prompts.txt');
const TWO_HOST_TEXT = path.join(FIXTURES, 'text', 'seed-003-udp-26pct-loss.txt');
const QUICK = { timeoutMs: 20_000 };

/** Stand-ins for every tool nicdoctor runs: each leaves a mark when called. */
const fakeBin = path.join(work, 'fakebin');
const marks = path.join(fakeBin, 'marks');
mkdirSync(fakeBin);
for (const tool of new Set([
  ...Object.keys(TOOL_PACKAGES),
  'ethtool',
  'lspci',
  'ip',
  'tc',
  'sysctl',
  'iperf3',
  'dmidecode',
  'lscpu',
  'udevadm',
])) {
  writeFileSync(path.join(fakeBin, tool), `#!/bin/sh\necho "${tool} $*" >> '${marks}'\n`);
  chmodSync(path.join(fakeBin, tool), 0o755);
}
const withFakeTools = { ...QUICK, env: { PATH: `${fakeBin}:${toolPath()}` } };

function expectUsageError(run: CliRun, names: RegExp): void {
  expect(run.exitCode, `${run.argv.join(' ')}: ${run.stderr}`).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr).toMatch(/^nicdoctor: /);
  expect(run.stderr).toMatch(names);
  expect(hasStackTrace(run.stderr)).toBe(false);
}

/** The CLI with text on stdin (runCli gives none). */
async function withStdin(args: string[], input: string): Promise<CliRun> {
  const [file, ...rest] = cliArgv(CLI, args);
  const result = await execa(file!, rest, {
    input,
    reject: false,
    timeout: 20_000,
    cwd: REPO_ROOT,
    extendEnv: false,
    env: { PATH: toolPath(), LANG: 'C', NO_COLOR: '1' },
  });
  return {
    argv: [file!, ...rest],
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    durationMs: 0,
  };
}

describe('a bad option value is exit 2 naming the option, before anything runs', () => {
  const cases: [string[], RegExp][] = [
    // A valid kernel name that names no interface: still refused before any tool runs.
    [['scan', '--iface', 'a;b', '--format', 'json'], /--iface: no interface named a;b/],
    [['scan', '--iface', 'a:b'], /'-i, --iface <name>' argument 'a:b' is invalid\. "a:b" is not a valid interface name/],
    [['scan', '--iface', 'eth0,'], /--iface.*empty interface name/],
    [['scan', '--duration', 'abc'], /'--duration <seconds>' argument 'abc' is invalid\. Expected a whole number of seconds from 1 to 3600/],
    [['scan', '--ports', '70000'], /'--ports <ports>' argument '70000' is invalid/],
    [['scan', '--peer', 'a;b'], /'--peer <host>' argument 'a;b'/],
    [['scan', '--link-speed', 'fast'], /'--link-speed <speed>' argument 'fast'/],
    [['bench', '--loopback', '--control-port', '0'], /'--control-port <port>' argument '0'.*from 1 to 65535/],
    [['bench', '--loopback', '--step-duration', '601'], /'--step-duration <seconds>'/],
    [['bench', '--loopback', '--omit', '-1'], /'--omit <seconds>' argument '-1'/],
    [['bench', '--loopback', '--max-procs', '257'], /'--max-procs <n>'.*from 1 to 256/],
    [['bench', '--loopback', '--udp', '--rate', 'fast'], /'--rate <rate>' argument 'fast'/],
    [['bench', '--loopback', '--ports', '5101-6000'], /'--ports <ports>'.*more than 256 ports/],
    [['analyze', SNAPSHOT, '--link-speed', '0'], /'--link-speed <speed>' argument '0'/],
    [['fix', '--link-speed', '25x'], /'--link-speed <speed>' argument '25x'/],
    [['fix', '--iface', '../x'], /--iface <name>' argument '\.\.\/x'/],
    [['collect', '--output', path.join(work, 'never'), '--iface', ''], /--iface <name>' argument ''/],
    [['serve', '--bind', '10.0.0.256'], /'--bind <addr>' argument '10\.0\.0\.256'/],
    [['serve', '--iface', 'a b'], /'--iface <name>' argument 'a b'/],
    [['serve', '--bind', '127.0.0.1', '--idle-timeout', 'soon'], /'--idle-timeout <seconds>'/],
    [['serve', '--bind', '127.0.0.1', '--max-test-duration', '0'], /'--max-test-duration <seconds>'/],
    [['--log-level', 'loud', 'checks'], /'--log-level <level>' argument 'loud' is invalid\. Allowed choices are/],
    [['checks', '--log-level', 'loud'], /'--log-level <level>' argument 'loud'/],
    [['scan', '--unknown-option'], /unknown option '--unknown-option'/],
    [['fix', '--apply', '--verify', '--runs', '1'], /'--runs <n>' argument '1'.*from 2 to 20/],
    [['fix', '--verify'], /--verify: goes with --apply/],
    [['fix', '--keep-all'], /--keep-all: only with --apply --verify/],
    [['fix', '--apply', '--allow-disruptive'], /--allow-disruptive: only with --apply --verify/],
    [['fix', '--format', 'json'], /--format: only with --apply --verify/],
    [['fix', '--apply', '--verify', '--yes', '--state', path.join(work, 'verify-state.json')], /give --peer HOST .* or --loopback/],
    [
      ['fix', '--apply', '--verify', '--yes', '--loopback', '--peer', '10.0.0.2', '--state', path.join(work, 'verify-state.json')],
      /--peer and --loopback: choose one/,
    ],
    [['fix', '--apply', '--verify', '--loopback', '--state', path.join(work, 'verify-state.json')], /--yes/],
    // Options that go together, checked before anything runs.
    [['bench'], /give --peer HOST .* or --loopback/],
    [['scan', '--loopback', '--peer', '10.0.0.2'], /--peer and --loopback: choose one/],
    [['bench', '--loopback', '--udp'], /--udp needs --rate/],
    [['serve', '--ports', '5301'], /give --bind ADDRESS/],
    [['serve', '--bind', '127.0.0.1', '--ports', '5100-5101'], /--control-port: 5100 is also in --ports/],
  ];
  it.each(cases)('%j', async (args, names) => {
    // The stand-ins are where nicdoctor would look first: --tool-path (it never uses PATH).
    expectUsageError(await runCli(['--tool-path', fakeBin, ...args], withFakeTools), names);
  });

  it('NICDOCTOR_LOG_LEVEL is validated like --log-level, naming the variable', async () => {
    const run = await runCli(['checks'], { ...withFakeTools, env: { ...withFakeTools.env, NICDOCTOR_LOG_LEVEL: 'loud' } });
    expectUsageError(run, /'--log-level <level>' value 'loud' from env 'NICDOCTOR_LOG_LEVEL' is invalid/);
  });

  it('no tool ran for any of them, and nothing was written', () => {
    expect(existsSync(marks), existsSync(marks) ? readFileSync(marks, 'utf8') : '').toBe(false);
    expect(existsSync(path.join(work, 'never'))).toBe(false);
  });
});

describe('bad input is exit 2 with a one-line error', () => {
  it('--iface naming no interface of this host', async () => {
    const run = await runCli(['scan', '--iface', 'doesnotexist0'], QUICK);
    expectUsageError(run, /--iface.*doesnotexist0/);
  });

  it('analyze of a directory that does not exist', async () => {
    const run = await runCli(['analyze', '/nonexistent', '--format', 'json'], QUICK);
    expectUsageError(run, /\/nonexistent/);
  });

  it('analyze of a snapshot whose snapshot.json is corrupt', async () => {
    const dir = path.join(work, 'corrupt');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'snapshot.json'), '{"format": "nicdoctor-snapshot", "version": 1, "inventory": {');
    const run = await runCli(['analyze', dir, '--format', 'json'], QUICK);
    expectUsageError(run, /snapshot\.json/);
  });
});

describe('fix takes its input like analyze', () => {
  const binary = path.join(work, 'binary.txt');
  const neither = path.join(work, 'neither');
  writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
  mkdirSync(neither);

  it.each([['/nonexistent'], [binary], [neither], [path.join(work, 'missing.tar.gz')]])(
    '%s: the same exit 2 and the same message as analyze',
    async (input) => {
      const analyze = await runCli(['analyze', input], QUICK);
      const fix = await runCli(['fix', input], QUICK);
      const fromOption = await runCli(['fix', '--from', input], QUICK);
      expectUsageError(analyze, /./);
      expect(fix.exitCode).toBe(2);
      expect(fix.stderr).toBe(analyze.stderr);
      expect(fromOption.stderr).toBe(analyze.stderr);
    },
  );

  it('a snapshot directory, a text file and stdin each give a script', async () => {
    for (const run of [
      await runCli(['fix', SNAPSHOT], QUICK),
      await runCli(['fix', ONE_HOST_TEXT], QUICK),
      await withStdin(['fix', '-'], readFileSync(ONE_HOST_TEXT, 'utf8')),
    ]) {
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^#!\/usr\/bin\/env bash\n/);
    }
    const text = await runCli(['fix', ONE_HOST_TEXT], QUICK);
    expect(text.stdout).toContain(`(text ${ONE_HOST_TEXT})`);
  });

  it('a text of several hosts, an input given twice, and --apply with an input are refused (exit 2)', async () => {
    expectUsageError(await runCli(['fix', TWO_HOST_TEXT], QUICK), /holds 2 hosts/);
    expectUsageError(await runCli(['fix', SNAPSHOT, '--from', SNAPSHOT], QUICK), /give the input once/);
    expectUsageError(await runCli(['fix', '--apply', '--yes', '--from', SNAPSHOT], QUICK), /--apply works on this host's state.*--from/);
    expectUsageError(await runCli(['fix', '--revert', SNAPSHOT], QUICK), /--revert works on this host's state.*INPUT or --from/);
    // Text has no host to choose interfaces on, as for analyze.
    expectUsageError(await runCli(['fix', ONE_HOST_TEXT, '--iface', 'eth0'], QUICK), /--iface: not available for text input/);
  });
});

describe('collect fails like scan', () => {
  it('an output that cannot be used is exit 2 for both, and a refused --iface leaves no directory', async () => {
    const full = path.join(work, 'full');
    mkdirSync(full);
    writeFileSync(path.join(full, 'file'), 'x');
    expectUsageError(await runCli(['collect', '--output', full], QUICK), /--output: .*full is not empty/);
    expectUsageError(await runCli(['scan', '--output', full], QUICK), /--output: .*full is a directory/);
    expectUsageError(await runCli(['collect', '--output', path.join(full, 'file')], QUICK), /--output: .*file: not a directory/);
    expectUsageError(await runCli(['scan', '--output', path.join(full, 'nodir', 'report')], QUICK), /--output: .*does not exist/);
    const fresh = path.join(work, 'fresh');
    expectUsageError(
      await runCli(['collect', '--output', fresh, '--iface', 'doesnotexist0'], QUICK),
      /--iface: no interface named doesnotexist0/,
    );
    expectUsageError(await runCli(['scan', '--iface', 'doesnotexist0'], QUICK), /--iface: no interface named doesnotexist0/);
    expect(existsSync(fresh)).toBe(false);
  });
});

describe('--verbose reaches every command', () => {
  it('checks and rules show more with it', async () => {
    for (const command of ['checks', 'rules']) {
      const plain = await runCli([command], QUICK);
      const verbose = await runCli([command, '--verbose'], QUICK);
      expect(verbose.exitCode, verbose.stderr).toBe(0);
      expect(verbose.stdout.split('\n').length).toBeGreaterThan(plain.stdout.split('\n').length);
      expect(verbose.stdout.startsWith(plain.stdout.split('\n')[0]!)).toBe(true);
    }
  });

  it('analyze gives the long report with it, before or after the command name', async () => {
    const plain = await runCli(['analyze', SNAPSHOT], QUICK);
    const after = await runCli(['analyze', SNAPSHOT, '-v'], QUICK);
    const before = await runCli(['--verbose', 'analyze', SNAPSHOT], QUICK);
    expect(after.stdout.length).toBeGreaterThan(plain.stdout.length);
    expect(before.stdout.split('\n').length).toBe(after.stdout.split('\n').length);
  });

  it('no command refuses it', async () => {
    const runs = [
      ['scan', '--verbose', '--iface', 'doesnotexist0'],
      ['bench', '--verbose'],
      ['serve', '--verbose'],
      ['fix', '--verbose', '/nonexistent'],
      ['collect', '--verbose'],
      ['fleet', '--verbose', '/nonexistent'],
      ['diff', '--verbose', '/nonexistent', '/nonexistent'],
    ];
    for (const args of runs) {
      const run = await runCli(args, QUICK);
      expect(run.exitCode, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).not.toMatch(/unknown option/);
    }
    const script = await runCli(['collect', '--script', '--verbose'], QUICK);
    expect(script.exitCode).toBe(0);
    expect(script.stdout).toMatch(/^#!/);
  });
});

describe('explain prints a reference page, or names what it did not find', () => {
  it('prints the page of a cause, a check, a rule, a symptom and a known issue', async () => {
    for (const [args, heading] of [
      [['explain', 'cause', '7'], /^# Cause 7\. Rings too small/],
      [['explain', 'rx-rings'], /^# Check `rx-rings`/],
      [['explain', 'rings-below-max'], /^# Rule `rings-below-max`/],
      [['explain', 'rx-rings/rx-ring-below-max'], /^# Symptom `rx-rings\/rx-ring-below-max`/],
      [['explain', 'ice-ddp-package-missing-safe-mode'], /^# Known issue: ice runs in Safe Mode/],
    ] as const) {
      const run = await runCli([...args], QUICK);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout).toMatch(heading);
      expect(run.stdout).not.toContain('&lt;');
    }
  });

  it('an unknown name is exit 2 naming it and the close names', async () => {
    const run = await runCli(['explain', 'rx-ring'], QUICK);
    expectUsageError(run, /explain: nothing is called "rx-ring"; did you mean: .*rx-rings/);
    expectUsageError(await runCli(['explain', 'cause', '99'], QUICK), /nothing is called "cause 99"/);
  });
});
