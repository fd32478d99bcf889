/**
 * What `npm run package` built (dist/package/): the single executable and the .deb. Run after
 * `npm run package` (scripts/test-all.sh does): `npx vitest run --project package`. The CLI
 * suite itself also runs against the executable with no node on PATH (NICDOCTOR_EXECUTABLE).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRules } from '../../src/rules/loader.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { nodeFreePath, removeNodeFreePath } from '../../lab/executable.js';
import { interruptAtPhase, largePastedText } from '../helpers/interrupt.js';

const ROOT = path.resolve(FIXTURES, '..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const OUT = path.join(ROOT, 'dist', 'package');
const EXECUTABLE = path.join(OUT, `nicdoctor-${VERSION}-linux-x64`);
const DEB = path.join(OUT, `nicdoctor_${VERSION}_amd64.deb`);
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-package-'));
const extracted = path.join(work, 'root');
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  removeNodeFreePath();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with a PATH that has every tool but node, from a directory outside the repository. */
async function run(file: string, args: string[], cwd = work): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, {
      cwd,
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: nodeFreePath(), LANG: 'C', NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    if (typeof failure.code !== 'number') throw error;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

beforeAll(() => {
  if (!existsSync(EXECUTABLE) || !existsSync(DEB))
    throw new Error(`${OUT} lacks the executable or the .deb: run \`npm run package\` first`);
  mkdirSync(extracted);
});

describe('the single executable', () => {
  it('matches its sha256 file', () => {
    const [sum, name] = readFileSync(`${EXECUTABLE}.sha256`, 'utf8').trim().split(/\s+/);
    expect(name).toBe(path.basename(EXECUTABLE));
    expect(sum).toBe(createHash('sha256').update(readFileSync(EXECUTABLE)).digest('hex'));
  });

  it('runs where no node is on PATH', async () => {
    expect((await run('/bin/sh', ['-c', 'command -v node || echo none'])).stdout.trim()).toBe('none');
    const version = await run(EXECUTABLE, ['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('carries the rule catalogue and the policies inside it', async () => {
    const rules = await run(EXECUTABLE, ['rules', '--format', 'json']);
    expect(rules.code).toBe(0);
    expect((JSON.parse(rules.stdout) as { kind: string }[]).filter((entry) => entry.kind === 'rule').length).toBe(loadRules().length);
    // "25g" is the shipped policy: there is no policies/ directory beside the executable.
    const judged = await run(EXECUTABLE, [
      'analyze',
      path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded'),
      '--policy',
      '25g',
      '--format',
      'json',
    ]);
    expect(judged.code).toBe(1);
    const report = JSON.parse(judged.stdout) as {
      policy: { name: string; pass: boolean };
      diagnoses: { ruleId: string }[];
      tool: { version: string };
    };
    expect(report.policy).toMatchObject({ name: '25g', pass: false });
    expect(report.tool.version).toBe(VERSION);
    expect(report.diagnoses[0]?.ruleId).toBe('pcie-bandwidth-below-port');
  });

  it('serve reads its token file (no dynamic import of a builtin, which a single executable lacks)', async () => {
    const token = path.join(work, 'token');
    writeFileSync(token, 'abcdefghijklmnopqrstuvwxyz012345\n', { mode: 0o644 });
    chmodSync(token, 0o644);
    const result = await run(EXECUTABLE, [
      'serve',
      '--bind',
      '127.0.0.1',
      '--ports',
      '5391',
      '--control-port',
      '5390',
      '--token-file',
      token,
    ]);
    expect(result.stderr).toContain('mode 0644: group or others may read it');
    expect(result.code).toBe(2);
  });

  it('analyze runs in a worker there too: SIGTERM during a long text analysis ends it within a second (issue 19.3)', async () => {
    // On the main thread this analysis runs for seconds before a signal handler could run.
    const text = path.join(work, 'large-ticket.txt');
    writeFileSync(text, largePastedText());
    const { result, sentAt, latencyMs } = await interruptAtPhase(EXECUTABLE, ['--log-level', 'debug', 'analyze', text], 'text', 'SIGTERM');
    expect(sentAt, String(result.stderr).slice(-500)).toBeDefined();
    expect(result.exitCode).toBe(143);
    expect(latencyMs).toBeLessThan(1500);
  }, 300_000);

  it('bad usage still names the argument and exits 2', async () => {
    const result = await run(EXECUTABLE, ['scan', '--policy', 'no-such-policy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--policy: no-such-policy');
  });
});

describe('the .deb', () => {
  it('declares its package, dependencies and size (dpkg-deb -I)', async () => {
    const info = (await run('dpkg-deb', ['-I', DEB])).stdout;
    expect(info).toMatch(/^ Package: nicdoctor$/m);
    expect(info).toMatch(new RegExp(`^ Version: ${VERSION.replace(/\./g, '\\.')}$`, 'm'));
    expect(info).toMatch(/^ Depends: .*\bethtool\b.*\bpciutils\b.*\biproute2\b/m);
    expect(info).toMatch(/^ Recommends: iperf3, numactl, irqbalance$/m);
    expect(info).toMatch(/^ Installed-Size: \d+$/m);
  });

  it('holds the binary, the man page, the policies and the units (dpkg-deb -c)', async () => {
    const listing = (await run('dpkg-deb', ['-c', DEB])).stdout;
    const files = listing.split('\n').map((line) => line.split(/\s+/).at(-1));
    for (const file of [
      './usr/bin/nicdoctor',
      './usr/share/man/man1/nicdoctor.1.gz',
      './usr/share/nicdoctor/policies/25g.yaml',
      './usr/share/nicdoctor/policies/100g.yaml',
      './lib/systemd/system/nicdoctor-scan.service',
      './lib/systemd/system/nicdoctor-scan.timer',
      './usr/share/doc/nicdoctor/copyright',
    ]) {
      expect(files).toContain(file);
    }
    expect(listing).toMatch(/^-rwxr-xr-x root\/root .* \.\/usr\/bin\/nicdoctor$/m);
  });

  it('unpacked (dpkg-deb -x), its binary runs and reads the shipped policy file', async () => {
    expect((await run('dpkg-deb', ['-x', DEB, extracted])).code).toBe(0);
    const binary = path.join(extracted, 'usr/bin/nicdoctor');
    expect(await run(binary, ['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    const result = await run(binary, [
      'analyze',
      path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'),
      '--policy',
      path.join(extracted, 'usr/share/nicdoctor/policies/10g.yaml'),
      '--format',
      'json',
    ]);
    expect([0, 1]).toContain(result.code);
    expect((JSON.parse(result.stdout) as { policy: { name: string } }).policy.name).toBe('10g');
  });

  it('its man page comes from the CLI help and documents every command', () => {
    const page = gunzipSync(readFileSync(path.join(extracted, 'usr/share/man/man1/nicdoctor.1.gz'))).toString();
    expect(page).toMatch(/^\.TH NICDOCTOR 1 /);
    for (const command of ['scan', 'bench', 'serve', 'analyze', 'fleet', 'diff']) expect(page).toContain(`.SS ${command}\n`);
    expect(page).toContain('--idle-timeout');
  });

  it('its systemd service and timer pass systemd-analyze verify and are not enabled', async () => {
    // verify checks that ExecStart exists: point it at the unpacked binary, the rest unchanged.
    const units = path.join(work, 'units');
    mkdirSync(units);
    const service = readFileSync(path.join(extracted, 'lib/systemd/system/nicdoctor-scan.service'), 'utf8');
    expect(service).toContain('--format prometheus');
    expect(service).toContain('/var/lib/prometheus/node-exporter/nicdoctor.prom');
    writeFileSync(
      path.join(units, 'nicdoctor-scan.service'),
      service.replace('/usr/bin/nicdoctor', path.join(extracted, 'usr/bin/nicdoctor')),
    );
    writeFileSync(path.join(units, 'nicdoctor-scan.timer'), readFileSync(path.join(extracted, 'lib/systemd/system/nicdoctor-scan.timer')));
    // Outside a booted systemd, targets such as sysinit.target are missing: judge only these two files.
    const verify = await run('systemd-analyze', [
      'verify',
      '--man=no',
      '--recursive-errors=no',
      path.join(units, 'nicdoctor-scan.service'),
      path.join(units, 'nicdoctor-scan.timer'),
    ]);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    // Disabled by default: no maintainer script enables it and no wants/ link is shipped.
    expect(existsSync(path.join(extracted, 'etc/systemd'))).toBe(false);
  });

  it('its service runs with least privilege: systemd-analyze security rates it at most 4.9 (it was 8.9)', async () => {
    const result = await run('systemd-analyze', [
      'security',
      '--offline=true',
      path.join(extracted, 'lib/systemd/system/nicdoctor-scan.service'),
    ]);
    const exposure = /Overall exposure level for nicdoctor-scan\.service: (\d+\.\d)/.exec(result.stdout);
    expect(exposure, result.stdout + result.stderr).not.toBeNull();
    console.log(`systemd-analyze security --offline=true nicdoctor-scan.service: ${exposure![1]}`);
    expect(Number(exposure![1])).toBeLessThanOrEqual(4.9);
    const service = readFileSync(path.join(extracted, 'lib/systemd/system/nicdoctor-scan.service'), 'utf8');
    expect(service).toMatch(/^CapabilityBoundingSet=$/m);
    expect(service).toMatch(/^IPAddressDeny=any$/m);
    expect(service).toMatch(/^UMask=0077$/m);
  });
});

describe('the .deb maintainer scripts', () => {
  const control = path.join(work, 'control');
  beforeAll(async () => {
    expect((await run('dpkg-deb', ['-e', DEB, control])).code).toBe(0);
  });

  /**
   * Runs a maintainer script for real, in a user and mount namespace of its own (no root needed)
   * where /etc/systemd/system and /var/lib are empty tmpfs, so nothing of this machine changes;
   * `setup` runs first, then the script, then `after`, whose output is returned.
   */
  async function inSandbox(script: string, args: string[], setup: string, after: string): Promise<Run> {
    const body = [
      'set -e',
      'mount -t tmpfs tmpfs /etc/systemd/system',
      'mount -t tmpfs tmpfs /var/lib',
      setup,
      `sh "$0" ${args.join(' ')}`,
      after,
    ].join('\n');
    return run('unshare', [
      '--user',
      '--map-root-user',
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      body,
      path.join(control, script),
    ]);
  }

  it('are shipped executable and parse; none enables the timer', async () => {
    for (const script of ['postinst', 'prerm', 'postrm']) {
      const file = path.join(control, script);
      expect(statSync(file).mode & 0o777, script).toBe(0o755);
      expect((await run('sh', ['-n', file])).code, script).toBe(0);
      // A command that enables, not a comment that names one.
      expect(readFileSync(file, 'utf8'), script).not.toMatch(/^[^#\n]*\b(?:systemctl|deb-systemd-helper)\b[^#\n]*\benable\b/m);
    }
  });

  it('removal stops and disables a timer the admin enabled by hand; an upgrade keeps it', async () => {
    const enable =
      'mkdir -p /etc/systemd/system/timers.target.wants && ln -s /lib/systemd/system/nicdoctor-scan.timer /etc/systemd/system/timers.target.wants/nicdoctor-scan.timer';
    const removed = await inSandbox('prerm', ['remove'], enable, 'ls /etc/systemd/system/timers.target.wants');
    expect(removed, removed.stderr).toMatchObject({ code: 0, stdout: '' });
    const upgraded = await inSandbox('prerm', ['upgrade', VERSION], enable, 'ls /etc/systemd/system/timers.target.wants');
    expect(upgraded).toMatchObject({ code: 0, stdout: 'nicdoctor-scan.timer\n' });
  });

  it('purge removes the metrics file and the fix state nicdoctor made, and leaves other files alone', async () => {
    const setup = [
      'mkdir -p /var/lib/prometheus/node-exporter /var/lib/nicdoctor',
      'touch /var/lib/prometheus/node-exporter/nicdoctor.prom /var/lib/prometheus/node-exporter/other.prom',
      'touch /var/lib/nicdoctor/fix-state.json /var/lib/nicdoctor/fix-state.json.lock',
    ].join(' && ');
    const purged = await inSandbox(
      'postrm',
      ['purge'],
      setup,
      'ls /var/lib/prometheus/node-exporter; ls -d /var/lib/nicdoctor 2>/dev/null || echo gone',
    );
    expect(purged, purged.stderr).toMatchObject({ code: 0, stdout: 'other.prom\ngone\n' });
    const removed = await inSandbox('postrm', ['remove'], setup, 'ls /var/lib/nicdoctor');
    expect(removed).toMatchObject({ code: 0, stdout: 'fix-state.json\nfix-state.json.lock\n' });
  });

  it('passes lintian (overrides carry their reasons)', async () => {
    const result = await run('lintian', ['--fail-on', 'error,warning', DEB]);
    expect(result.stdout.split('\n').filter((line) => /^[EW]: /.test(line))).toEqual([]);
    expect(result.code).toBe(0);
  }, 180_000);
});

describe('the single executable ignores the environment hooks of Node.js (issue 18.4)', () => {
  it('NODE_OPTIONS=--require x.js does not run x.js, and a bad NODE_OPTIONS changes nothing', async () => {
    const marker = path.join(work, 'x-ran');
    const hook = path.join(work, 'x.js');
    writeFileSync(hook, `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    for (const options of [`--require ${hook}`, `--import ${hook}`, '--max-old-space-size=not-a-number']) {
      const { stdout } = await promisify(execFile)(EXECUTABLE, ['--version'], {
        cwd: work,
        timeout: 60_000,
        env: { PATH: nodeFreePath(), NODE_OPTIONS: options },
      });
      expect(stdout.trim(), options).toBe(VERSION);
    }
    expect(existsSync(marker)).toBe(false);
  });
});
