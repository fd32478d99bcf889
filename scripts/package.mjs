#!/usr/bin/env node
// `npm run package`: the single executable (Node SEA from an esbuild CommonJS bundle, with the
// rules, policies and version inside it) and a .deb and an .rpm around it, all in dist/package/
// with sha256 files. Needs `npm run build` first (dist/rules.json), dpkg-deb and rpmbuild (Debian's
// rpm package); runs on Linux x64.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { parse as parseYaml } from 'yaml';
import { manPage } from '../packaging/man-page.mjs';
import { buildRpm } from '../packaging/rpm/build-rpm.mjs';
import { blankHookVariables } from '../packaging/ignore-node-env.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.join(root, 'dist/package');
const work = path.join(out, 'work');
const name = `nicdoctor-${pkg.version}-linux-${process.arch}`;
const executable = path.join(out, name);
/** A native package's changelog, in Debian's format (lintian reads it). */
function debianChangelog(version) {
  const date = new Date().toUTCString().replace('GMT', '+0000');
  return `nicdoctor (${version}) unstable; urgency=medium\n\n  * Release ${version}; the changes are in the project's git history.\n\n -- nicdoctor maintainers <nicdoctor@example.org>  ${date}\n`;
}
const step = (text) => process.stderr.write(`package: ${text}\n`);
const run = (argv, options = {}) =>
  execFileSync(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000, ...options });

if (process.platform !== 'linux') throw new Error('package: the executable and the .deb are built on Linux');
const compiled = JSON.parse(readFileSync(path.join(root, 'dist/rules.json'), 'utf8'));
rmSync(out, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// 1. One CommonJS file. What the package directory holds at run time travels in the banner.
const policyDir = path.join(root, 'policies');
const policies = Object.fromEntries(
  readdirSync(policyDir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => [file, readFileSync(path.join(policyDir, file), 'utf8')]),
);
const knownIssueDir = path.join(root, 'known-issues');
const knownIssues = Object.fromEntries(
  readdirSync(knownIssueDir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    // Parsed here: the executable has no YAML parser to spare at run time.
    .map((file) => [file, parseYaml(readFileSync(path.join(knownIssueDir, file), 'utf8'))]),
);
const embedded = { version: pkg.version, rules: { names: compiled.names, documents: compiled.documents }, policies, knownIssues };
const bundle = path.join(work, 'nicdoctor.cjs');
step('esbuild bundle');
await build({
  entryPoints: [path.join(root, 'src/cli.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: bundle,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  // import.meta does not exist in CommonJS; the modules only use its url for paths, which the executable never reads.
  define: { 'import.meta.url': '__nicdoctorMetaUrl' },
  banner: {
    js: `globalThis.__NICDOCTOR_EMBEDDED__=${JSON.stringify(embedded)};var __nicdoctorMetaUrl=require("node:url").pathToFileURL(__filename).href;`,
  },
});

// 2. Node single executable application: the bundle as a blob injected into a copy of node.
step('single executable');
const seaConfig = path.join(work, 'sea-config.json');
const blob = path.join(work, 'sea-prep.blob');
// The bundle is also an asset: `analyze` runs it again in a worker thread, so that the main thread
// stays free for Ctrl-C and SIGTERM (src/cli/analysis-thread.ts, WORKER_ASSET).
writeFileSync(
  seaConfig,
  JSON.stringify({
    main: bundle,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: { 'nicdoctor.cjs': bundle },
  }),
);
run([process.execPath, '--experimental-sea-config', seaConfig]);
copyFileSync(process.execPath, executable);
chmodSync(executable, 0o755);
// NODE_OPTIONS and the other start-up hooks of the environment are ignored (packaging/ignore-node-env.mjs).
{
  const binary = readFileSync(executable);
  step(`environment hooks blanked: ${JSON.stringify(blankHookVariables(binary))}`);
  writeFileSync(executable, binary);
}
// Symbols and debug data are not used at run time (node's addon symbols are dynamic and stay).
try {
  run(['strip', '--strip-all', executable]);
} catch {
  step('strip not available: the executable keeps its debug symbols');
}
run([
  process.execPath,
  path.join(root, 'node_modules/postject/dist/cli.js'),
  executable,
  'NODE_SEA_BLOB',
  blob,
  '--sentinel-fuse',
  'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
]);
const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
writeFileSync(`${executable}.sha256`, `${sha(executable)}  ${name}\n`);
const version = run([executable, '--version'], { env: { PATH: '/usr/bin:/bin' } })
  .toString()
  .trim();
if (version !== pkg.version) throw new Error(`package: the executable says ${version}, package.json ${pkg.version}`);

// 3. The .deb: /usr/bin/nicdoctor, the man page from the CLI help, the policies, the systemd units.
step('deb');
const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch;
const debRoot = path.join(work, 'deb');
const put = (relative, content, mode = 0o644) => {
  const file = path.join(debRoot, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  chmodSync(file, mode);
};
put('usr/bin/nicdoctor', readFileSync(executable), 0o755);
const helpOf = (args) => run([executable, ...args, '--help'], { env: { PATH: '/usr/bin:/bin', COLUMNS: '100' } }).toString();
const commands = ['scan', 'bench', 'serve', 'analyze', 'collect', 'rules', 'fix', 'fleet', 'diff', 'checks'];
put(
  'usr/share/man/man1/nicdoctor.1.gz',
  gzipSync(
    manPage({ version: pkg.version, main: helpOf([]), commands: commands.map((command) => ({ name: command, help: helpOf([command]) })) }),
    { level: 9 },
  ),
);
for (const [file, text] of Object.entries(policies)) put(`usr/share/nicdoctor/policies/${file}`, text);
for (const unit of ['nicdoctor-scan.service', 'nicdoctor-scan.timer'])
  put(`lib/systemd/system/${unit}`, readFileSync(path.join(root, 'packaging/systemd', unit)));
put('etc/default/nicdoctor', readFileSync(path.join(root, 'packaging/default/nicdoctor')));
put('usr/share/doc/nicdoctor/copyright', readFileSync(path.join(root, 'packaging/debian/copyright')));
put('usr/share/doc/nicdoctor/changelog.gz', gzipSync(debianChangelog(pkg.version), { level: 9 }));
put('usr/share/lintian/overrides/nicdoctor', readFileSync(path.join(root, 'packaging/debian/lintian-overrides')));
const installedKb = Math.ceil(Number(run(['du', '-sk', '--exclude=DEBIAN', debRoot]).toString().split(/\s/)[0]));
const control = readFileSync(path.join(root, 'packaging/debian/control'), 'utf8')
  .replace('@VERSION@', pkg.version)
  .replace('@ARCH@', arch)
  .replace('@SIZE@', String(installedKb));
put('DEBIAN/control', control);
put('DEBIAN/conffiles', '/etc/default/nicdoctor\n');
// daemon-reload after install and removal; stop and disable the timer on removal; purge what nicdoctor made.
for (const script of ['postinst', 'prerm', 'postrm'])
  put(`DEBIAN/${script}`, readFileSync(path.join(root, 'packaging/debian', script)), 0o755);
const md5 = run(['find', '.', '-type', 'f', '!', '-path', './DEBIAN/*', '-printf', '%P\\0'], { cwd: debRoot })
  .toString()
  .split('\0')
  .filter(Boolean)
  .sort()
  .map(
    (file) =>
      `${createHash('md5')
        .update(readFileSync(path.join(debRoot, file)))
        .digest('hex')}  ${file}`,
  )
  .join('\n');
put('DEBIAN/md5sums', `${md5}\n`);
const deb = path.join(out, `nicdoctor_${pkg.version}_${arch}.deb`);
// xz over ~90 MB: minutes of one core, more on a shared CI machine (the default 5 min ran out).
run(['dpkg-deb', '--root-owner-group', '-Zxz', '--build', debRoot, deb], { timeout: 1_200_000 });
writeFileSync(`${deb}.sha256`, `${sha(deb)}  ${path.basename(deb)}\n`);

// 4. The .rpm for RHEL, Rocky and Alma, from the same staged files (packaging/rpm/).
step('rpm');
const rpm = buildRpm({ root, version: pkg.version, staged: debRoot, work: path.join(work, 'rpm'), out });
writeFileSync(`${rpm}.sha256`, `${sha(rpm)}  ${path.basename(rpm)}\n`);
rmSync(work, { recursive: true, force: true });

const mb = (file) => (statSync(file).size / 1024 / 1024).toFixed(1);
process.stdout.write(`${executable} (${mb(executable)} MiB)\n${deb} (${mb(deb)} MiB)\n${rpm} (${mb(rpm)} MiB)\n`);
