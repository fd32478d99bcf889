// The RPM step of `npm run package`: rpmbuild (Debian's `rpm` package is enough) runs
// packaging/rpm/nicdoctor.spec over the tree already staged for the .deb, so both packages ship
// the same executable, man page, policies and settings file, and packaging/systemd's units as
// they are, plus the drop-in for RHEL's textfile directory.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { textfileDropIn } from './textfile-directory.mjs';

/** RPM's architecture names for node's process.arch. */
const RPM_ARCH = { x64: 'x86_64', arm64: 'aarch64' };

/** package.json's version as RPM's Version: "-" is not allowed there, and "~" sorts a pre-release first. */
export const rpmVersion = (version) => version.replace(/-/g, '~');

/** The file name `npm run package` writes: nicdoctor-<version>-1.<arch>.rpm. */
export const rpmFileName = (version, arch = process.arch) => `nicdoctor-${rpmVersion(version)}-1.${RPM_ARCH[arch] ?? arch}.rpm`;

/** %changelog's date: "Tue Dec 01 2026". */
function changelogDate(now) {
  // toUTCString(): "Tue, 01 Dec 2026 21:45:06 GMT".
  const [weekday, day, month, year] = now.toUTCString().replace(',', '').split(' ');
  return `${weekday} ${month} ${day} ${year}`;
}

/**
 * Builds the .rpm into `out` from the .deb's staged tree and returns its path.
 * root: the repository; work: a scratch directory of the build; staged: the .deb's tree.
 */
export function buildRpm({ root, version, staged, work, out, now = new Date() }) {
  const units = path.join(root, 'packaging/systemd');
  const topdir = path.join(work, 'rpmbuild');
  mkdirSync(topdir, { recursive: true });
  const dropin = path.join(work, 'textfile-directory.conf');
  writeFileSync(dropin, textfileDropIn(readFileSync(path.join(units, 'nicdoctor-scan.service'), 'utf8')));
  const defines = {
    _topdir: topdir,
    _rpmdir: out,
    // The file lands in `out` itself, not in an <arch>/ subdirectory.
    _build_name_fmt: '%%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm',
    nicdoctor_version: rpmVersion(version),
    staged,
    units,
    dropin,
    changelog_date: changelogDate(now),
  };
  const target = RPM_ARCH[process.arch] ?? process.arch;
  execFileSync(
    '/usr/bin/rpmbuild',
    [
      '-bb',
      '--quiet',
      '--target',
      target,
      ...Object.entries(defines).flatMap(([name, value]) => ['--define', `${name} ${value}`]),
      path.join(root, 'packaging/rpm/nicdoctor.spec'),
    ],
    // HOME in the scratch directory: no ~/.rpmmacros of the user who builds changes the package.
    { stdio: ['ignore', 'inherit', 'inherit'], timeout: 1_200_000, env: { PATH: '/usr/bin:/bin', HOME: work, LANG: 'C' } },
  );
  return path.join(out, rpmFileName(version));
}
