/**
 * What `npm run package` built (dist/package/): the single executable and the .deb. Run after
 * `npm run package` (scripts/test-all.sh does): `npx vitest run --project package`. The CLI
 * suite itself also runs against the executable with no node on PATH (NICDOCTOR_EXECUTABLE).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRules } from '../../src/rules/loader.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { nodeFreePath, removeNodeFreePath } from '../../bench/lab/executable.js';

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
    expect((JSON.parse(rules.stdout) as unknown[]).length).toBe(loadRules().length);
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
    const control = (await run('dpkg-deb', ['-I', DEB])).stdout;
    expect(control).not.toMatch(/postinst/);
    expect(existsSync(path.join(extracted, 'etc/systemd'))).toBe(false);
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
