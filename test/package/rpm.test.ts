/**
 * The .rpm that `npm run package` built (dist/package/), for RHEL 8/9, Rocky and Alma (issue 26):
 * what rpm says it holds, needs and runs, rpmlint, and its payload unpacked with rpm2cpio | cpio
 * with no node on PATH. Run after `npm run package`: `npx vitest run --project package`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { nodeFreePath, removeNodeFreePath } from '../../lab/executable.js';

const ROOT = path.resolve(FIXTURES, '..');
// The packaging script's plain-JavaScript module (no type declarations: typed here).
const { DEBIAN_TEXTFILE_DIR, RHEL_TEXTFILE_DIR, textfileDropIn } = (await import(
  pathToFileURL(path.join(ROOT, 'packaging/rpm/textfile-directory.mjs')).href
)) as { DEBIAN_TEXTFILE_DIR: string; RHEL_TEXTFILE_DIR: string; textfileDropIn: (unit: string, from?: string, to?: string) => string };
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const OUT = path.join(ROOT, 'dist', 'package');
const EXECUTABLE = path.join(OUT, `nicdoctor-${VERSION}-linux-x64`);
const DEB = path.join(OUT, `nicdoctor_${VERSION}_amd64.deb`);
// RPM's Version has no "-": a pre-release's becomes "~", which sorts before the release.
const RPM = path.join(OUT, `nicdoctor-${VERSION.replace(/-/g, '~')}-1.x86_64.rpm`);
const UNITS = path.join(ROOT, 'packaging', 'systemd');
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-rpm-'));
const rpmRoot = path.join(work, 'rpm');
const debRoot = path.join(work, 'deb');
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
      // HOME in the scratch directory: no ~/.rpmmacros, rpmlint config or ~/.bashrc of the user.
      env: { PATH: nodeFreePath(), HOME: work, LANG: 'C', NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    if (typeof failure.code !== 'number') throw error;
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

/** `rpm -qp <query>` of the package: its stdout, after checking rpm succeeded. */
async function query(...args: string[]): Promise<string> {
  const result = await run('rpm', ['-qp', ...args, RPM]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const unit = (name: string) => path.join(rpmRoot, 'usr/lib/systemd/system', name);
/** The highest GLIBC_x.y version among strings such as "libc.so.6(GLIBC_2.28)(64bit)" or objdump's lines. */
const highestGlibc = (text: string) =>
  [...text.matchAll(/\bGLIBC_(\d+)\.(\d+)(?:\.\d+)?\b/g)]
    .map((match) => [Number(match[1]), Number(match[2])] as const)
    .reduce((high, version) => (version[0] > high[0] || (version[0] === high[0] && version[1] > high[1]) ? version : high), [0, 0] as const)
    .join('.');

beforeAll(async () => {
  if (!existsSync(RPM) || !existsSync(DEB) || !existsSync(EXECUTABLE))
    throw new Error(`${OUT} lacks the .rpm, the .deb or the executable: run \`npm run package\` first`);
  mkdirSync(rpmRoot);
  mkdirSync(debRoot);
  // rpm2cpio | cpio, as a RHEL user without rpm's database unpacks it; no path may leave rpmRoot.
  const unpack = await run('/bin/sh', ['-c', 'rpm2cpio "$1" | cpio -idm --quiet --no-absolute-filenames', 'sh', RPM], rpmRoot);
  expect(unpack).toMatchObject({ code: 0, stderr: '' });
  expect((await run('dpkg-deb', ['-x', DEB, debRoot])).code).toBe(0);
}, 120_000);

describe('the .rpm (rpm -qp)', () => {
  it('is named nicdoctor-<version>-1.x86_64.rpm and matches its sha256 file', async () => {
    const [sum, name] = readFileSync(`${RPM}.sha256`, 'utf8').trim().split(/\s+/);
    expect(name).toBe(path.basename(RPM));
    expect(sum).toBe(sha256(RPM));
    expect(await query('--queryformat', '%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE}')).toBe(
      `nicdoctor ${VERSION.replace(/-/g, '~')} 1 x86_64 MIT`,
    );
  });

  it('lists the executable, man page, policies, units, drop-in and settings file (rpm -qpl, -qpc)', async () => {
    const policies = (await run('ls', [path.join(ROOT, 'policies')])).stdout
      .split('\n')
      .filter((file) => file.endsWith('.yaml'))
      .map((file) => `/usr/share/nicdoctor/policies/${file}`);
    expect(policies.length).toBeGreaterThan(0);
    const listed = (await query('-l')).trim().split('\n').sort();
    expect(listed).toEqual(
      [
        '/etc/default/nicdoctor',
        '/usr/bin/nicdoctor',
        '/usr/lib/systemd/system/nicdoctor-scan.service',
        '/usr/lib/systemd/system/nicdoctor-scan.service.d',
        '/usr/lib/systemd/system/nicdoctor-scan.service.d/textfile-directory.conf',
        '/usr/lib/systemd/system/nicdoctor-scan.timer',
        '/usr/share/licenses/nicdoctor',
        '/usr/share/licenses/nicdoctor/copyright',
        '/usr/share/man/man1/nicdoctor.1.gz',
        '/usr/share/nicdoctor',
        '/usr/share/nicdoctor/policies',
        ...policies,
      ].sort(),
    );
    // An edited /etc/default/nicdoctor survives an upgrade, as the .deb's conffile does.
    expect((await query('-c')).trim()).toBe('/etc/default/nicdoctor');
    expect(await query('--queryformat', '[%{FILEFLAGS:fflags} %{FILENAMES}\n]')).toMatch(/^cn \/etc\/default\/nicdoctor$/m);
  });

  it('ships the .deb’s files with the same bytes, modes and root ownership', async () => {
    // Where RHEL's layout differs from Debian's: units under /usr/lib, the license under
    // /usr/share/licenses. The .deb's changelog.gz is the RPM's %changelog, and the lintian
    // overrides have their rpmlint counterpart in packaging/rpm/rpmlintrc.toml.
    const rpmPath = (debPath: string) =>
      debPath
        .replace(/^\/lib\/systemd\//, '/usr/lib/systemd/')
        .replace('/usr/share/doc/nicdoctor/copyright', '/usr/share/licenses/nicdoctor/copyright');
    const debOnly = ['/usr/share/doc/nicdoctor/changelog.gz', '/usr/share/lintian/overrides/nicdoctor'];
    // Regular files of each: path -> "mode owner/group".
    const debFiles = (await run('dpkg-deb', ['-c', DEB])).stdout
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('-'))
      .map((line) => line.split(/\s+/))
      .map((fields) => ({ file: fields.at(-1)!.replace(/^\./, ''), modeOwner: `${fields[0]} ${fields[1]}` }))
      .filter(({ file }) => !debOnly.includes(file));
    const rpmFiles = new Map(
      (await query('--queryformat', '[%{FILEMODES:perms} %{FILEUSERNAME}/%{FILEGROUPNAME} %{FILENAMES}\n]'))
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('-'))
        .map((line) => line.split(' '))
        .map(([mode, owner, file]) => [file!, `${mode} ${owner}`] as const),
    );
    const dropIn = '/usr/lib/systemd/system/nicdoctor-scan.service.d/textfile-directory.conf';
    expect(rpmFiles.get(dropIn)).toBe('-rw-r--r-- root/root');
    rpmFiles.delete(dropIn);
    expect(Object.fromEntries(rpmFiles)).toEqual(Object.fromEntries(debFiles.map(({ file, modeOwner }) => [rpmPath(file), modeOwner])));
    expect(rpmFiles.get('/usr/bin/nicdoctor')).toBe('-rwxr-xr-x root/root');
    for (const { file } of debFiles) expect(sha256(path.join(rpmRoot, rpmPath(file))), file).toBe(sha256(path.join(debRoot, file)));
  });

  it('requires ethtool, pciutils, iproute and glibc 2.28, and recommends iperf3, numactl, irqbalance', async () => {
    const requires = (await query('--requires')).trim().split('\n');
    for (const name of ['ethtool', 'pciutils', 'iproute']) expect(requires).toContain(name);
    // rpmbuild reads the glibc floor from the executable's ELF symbol versions (dnf refuses an older glibc).
    expect(highestGlibc(requires.join('\n'))).toBe('2.28');
    expect((await query('--recommends')).trim().split('\n').sort()).toEqual(['iperf3', 'irqbalance', 'numactl']);
  });

  it('has the systemd scriptlets for both units and none of them enables the timer (rpm -qp --scripts)', async () => {
    const scripts = await query('--scripts');
    const scriptlet = (name: string) =>
      new RegExp(`^${name} scriptlet \\(using /bin/sh\\):\\n([\\s\\S]*?)(?=^\\w+ scriptlet|$(?![\\s\\S]))`, 'm').exec(scripts)?.[1] ?? '';
    const both = 'nicdoctor-scan.service nicdoctor-scan.timer';
    // %systemd_post: first install only, the distribution's preset (RHEL's disables what it does not name).
    expect(scriptlet('postinstall')).toMatch(/^if \[ \$1 -eq 1 \]; then$/m);
    expect(scriptlet('postinstall')).toContain(`systemd-update-helper install-system-units ${both}`);
    expect(scriptlet('postinstall')).toContain(`systemctl --no-reload preset ${both}`);
    // %systemd_preun: removal only, stop and disable.
    expect(scriptlet('preuninstall')).toMatch(/^if \[ \$1 -eq 0 \]; then$/m);
    expect(scriptlet('preuninstall')).toContain(`systemd-update-helper remove-system-units ${both}`);
    expect(scriptlet('preuninstall')).toContain(`systemctl --no-reload disable --now ${both}`);
    // %systemd_postun: upgrade only, a reload where systemd has no file trigger for it.
    expect(scriptlet('postuninstall')).toMatch(/^if \[ \$1 -ge 1 \]; then$/m);
    expect(scriptlet('postuninstall')).toContain('systemctl daemon-reload');
    expect(scripts).not.toMatch(/\benable\b/);
    expect(scripts).not.toMatch(/\bstart\b/);
    // Root runs these: every command by its absolute path, no failure stops an install.
    for (const command of scripts.matchAll(/^\s+(\S+) .*\|\| :$/gm)) expect(command[1]).toMatch(/^\/usr\//);
    expect(existsSync(path.join(rpmRoot, 'etc/systemd'))).toBe(false);
  });

  it('passes rpmlint; each filtered check has its reason in packaging/rpm/rpmlintrc.toml', async () => {
    const config = path.join(ROOT, 'packaging/rpm/rpmlintrc.toml');
    const result = await run('rpmlint', ['-c', config, RPM]);
    expect(result.stdout.split('\n').filter((line) => /: [EW]: /.test(line))).toEqual([]);
    expect(result.stdout).toMatch(/ 0 errors, 0 warnings/);
    expect(result.code).toBe(0);
    // A filter with no comment above it has no written reason.
    const filters = readFileSync(config, 'utf8').split('Filters = [')[1]!.split('\n');
    filters.forEach((line, index) => {
      if (/^\s*'/.test(line)) expect(filters[index - 1], line).toMatch(/^\s*(#|')/);
    });
    expect(filters.filter((line) => /^\s*'/.test(line)).length).toBeGreaterThan(0);
  }, 180_000);
});

describe('the .rpm unpacked (rpm2cpio | cpio)', () => {
  it('holds the very executable the CLI tests run without node, and it runs without node', async () => {
    // scripts/test-all.sh runs the CLI suite against this executable with no node on PATH
    // (NICDOCTOR_EXECUTABLE): the RPM's is the same file, byte for byte.
    const binary = path.join(rpmRoot, 'usr/bin/nicdoctor');
    expect(sha256(binary)).toBe(sha256(EXECUTABLE));
    expect((await run('/bin/sh', ['-c', 'command -v node || echo none'])).stdout.trim()).toBe('none');
    expect(await run(binary, ['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    const result = await run(binary, [
      'analyze',
      path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded'),
      '--policy',
      path.join(rpmRoot, 'usr/share/nicdoctor/policies/25g.yaml'),
      '--format',
      'json',
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { policy: { name: string; pass: boolean }; diagnoses: { ruleId: string }[] };
    expect(report.policy).toMatchObject({ name: '25g', pass: false });
    expect(report.diagnoses[0]?.ruleId).toBe('pcie-bandwidth-below-port');
    const usage = await run(binary, ['scan', '--policy', 'no-such-policy']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--policy: no-such-policy');
  });

  it('states the glibc floor the executable has (objdump -T) in the README', async () => {
    const symbols = await run('objdump', ['-T', path.join(rpmRoot, 'usr/bin/nicdoctor')]);
    expect(symbols.code).toBe(0);
    const floor = highestGlibc(symbols.stdout);
    expect(floor).toBe('2.28');
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`glibc ${floor} or newer`);
  });

  it('ships packaging/systemd’s service and timer byte for byte, and a drop-in for RHEL’s textfile directory', () => {
    for (const name of ['nicdoctor-scan.service', 'nicdoctor-scan.timer'])
      expect(readFileSync(unit(name), 'utf8'), name).toBe(readFileSync(path.join(UNITS, name), 'utf8'));
    const dropIn = readFileSync(unit('nicdoctor-scan.service.d/textfile-directory.conf'), 'utf8');
    expect(dropIn).toBe(textfileDropIn(readFileSync(path.join(UNITS, 'nicdoctor-scan.service'), 'utf8')));
    expect(dropIn).toContain(`--output ${RHEL_TEXTFILE_DIR}/nicdoctor.prom`);
    expect(dropIn).toMatch(new RegExp(`^ReadWritePaths=${RHEL_TEXTFILE_DIR}$`, 'm'));
    expect(dropIn).toMatch(new RegExp(`^ConditionPathIsDirectory=${RHEL_TEXTFILE_DIR}$`, 'm'));
    expect(dropIn).not.toContain(DEBIAN_TEXTFILE_DIR + '/');
  });

  it('its service with the drop-in passes systemd-analyze verify', async () => {
    // verify checks that ExecStart exists: point it at the unpacked binary, the rest unchanged.
    const units = path.join(work, 'units');
    mkdirSync(path.join(units, 'nicdoctor-scan.service.d'), { recursive: true });
    const here = (file: string) =>
      readFileSync(unit(file), 'utf8').replaceAll('/usr/bin/nicdoctor', path.join(rpmRoot, 'usr/bin/nicdoctor'));
    for (const file of ['nicdoctor-scan.service', 'nicdoctor-scan.timer', 'nicdoctor-scan.service.d/textfile-directory.conf'])
      writeFileSync(path.join(units, file), here(file));
    const verify = await run('systemd-analyze', [
      'verify',
      '--man=no',
      '--recursive-errors=no',
      path.join(units, 'nicdoctor-scan.service'),
      path.join(units, 'nicdoctor-scan.timer'),
    ]);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
  });

  it('the drop-in leaves the service exactly as exposed as packaging/systemd’s (systemd-analyze security)', async () => {
    const exposure = (output: Run) => {
      const level = /Overall exposure level for nicdoctor-scan\.service: (\d+\.\d)/.exec(output.stdout)?.[1];
      expect(level, output.stdout + output.stderr).toBeDefined();
      return Number(level);
    };
    // --root: the unit as RHEL loads it from the unpacked tree, drop-in included.
    const installed = await run('systemd-analyze', [
      'security',
      '--offline=true',
      `--root=${rpmRoot}`,
      '--no-pager',
      'nicdoctor-scan.service',
    ]);
    const source = await run('systemd-analyze', ['security', '--offline=true', '--no-pager', path.join(UNITS, 'nicdoctor-scan.service')]);
    expect(exposure(installed)).toBe(exposure(source));
  });
});

describe('textfileDropIn', () => {
  it('re-states every setting naming the directory, all conditions with one, and joins continued lines', () => {
    const unitText = [
      '[Unit]',
      'ConditionPathIsDirectory=/var/lib/prometheus/node-exporter',
      'ConditionVirtualization=!container',
      'After=network-online.target',
      '[Service]',
      'ExecStart=/usr/bin/nicdoctor scan \\',
      '  --output /var/lib/prometheus/node-exporter/nicdoctor.prom',
      'ReadWritePaths=/var/lib/prometheus/node-exporter',
      'ReadWritePaths=/run/nicdoctor',
      'ProtectSystem=strict',
      '',
    ].join('\n');
    const dropIn = textfileDropIn(unitText, '/var/lib/prometheus/node-exporter', '/var/lib/node_exporter/textfile_collector');
    const body = dropIn.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(body).toEqual([
      '[Unit]',
      'ConditionPathIsDirectory=',
      'ConditionVirtualization=',
      'ConditionPathIsDirectory=/var/lib/node_exporter/textfile_collector',
      'ConditionVirtualization=!container',
      '[Service]',
      'ExecStart=',
      'ReadWritePaths=',
      'ExecStart=/usr/bin/nicdoctor scan    --output /var/lib/node_exporter/textfile_collector/nicdoctor.prom',
      'ReadWritePaths=/var/lib/node_exporter/textfile_collector',
      'ReadWritePaths=/run/nicdoctor',
    ]);
  });

  it('refuses a unit that never names the directory', () => {
    expect(() => textfileDropIn('[Service]\nExecStart=/bin/true\n')).toThrow(/never names \/var\/lib\/prometheus\/node-exporter/);
  });
});
