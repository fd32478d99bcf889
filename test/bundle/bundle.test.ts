import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { BundleError, openBundle, writeBundle } from '../../src/bundle/index.js';
import { walk } from '../../src/bundle/redact-tree.js';
import { scan } from '../../src/pipeline/scan.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import type { Report } from '../../src/report/schema.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';

const run = promisify(execFile);
const HOST = path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-bundle-test-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const findingKeys = (report: Report) =>
  report.checks
    .flatMap((check) => check.findings.map((finding) => `${check.id}/${finding.symptom}@${finding.subject}:${finding.severity}`))
    .sort();

async function reportOf(dir: string): Promise<Report> {
  return (await scan({ io: await SnapshotHostIO.open(dir), checks, log: silentLogger() })).report;
}

describe('evidence bundle', () => {
  it('holds the report, the snapshot and a manifest, and replays to the same findings', async () => {
    const report = await reportOf(HOST);
    const output = path.join(work, 'host.tar.gz');
    const { manifest } = await writeBundle({ snapshotDir: HOST, report, bench: { ramp: [] }, output });
    const ethtoolS = manifest.items.find((item) => item.kind === 'command' && item.stdout?.path === 'snapshot/cmd/ethtool_-S_eth0');
    expect(ethtoolS).toMatchObject({
      kind: 'command',
      stdout: { size: (await readFile(path.join(HOST, 'cmd', 'ethtool_-S_eth0'))).length },
    });
    expect(manifest.items.find((item) => item.kind === 'file' && item.path === '/proc/interrupts')).toMatchObject({
      content: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(manifest.items.find((item) => item.kind === 'link' && item.path === '/sys/class/net/eth0')).toMatchObject({
      target: '../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/net/eth0',
    });
    expect(manifest.redacted).toBeNull();

    const opened = await openBundle(output);
    try {
      expect(opened.report.checks.length).toBe(report.checks.length);
      expect(opened.bench).toEqual({ ramp: [] });
      const replayed = await reportOf(opened.snapshotDir);
      expect(findingKeys(replayed)).toEqual(findingKeys(report));
      expect(findingKeys(replayed).some((key) => key.startsWith('rx-rings/rx-ring-below-max@eth0:'))).toBe(true);
    } finally {
      await opened.cleanup();
    }
  });

  it('never leaves a partial file when writing fails', async () => {
    const output = path.join(work, 'failed', 'x.tar.gz');
    await mkdir(path.dirname(output));
    const report = await reportOf(HOST);
    await expect(writeBundle({ snapshotDir: path.join(work, 'no-such-snapshot'), report, output })).rejects.toThrow();
    expect(await readdir(path.dirname(output))).toEqual([]);
  });

  it('refuses a truncated, corrupt or non-bundle file with a clear error', async () => {
    const good = path.join(work, 'good.tar.gz');
    await writeBundle({ snapshotDir: HOST, report: await reportOf(HOST), output: good });
    const truncated = path.join(work, 'truncated.tar.gz');
    await cp(good, truncated);
    await truncate(truncated, Math.floor((await readFile(good)).length / 2));
    await expect(openBundle(truncated)).rejects.toThrow(BundleError);
    const garbage = path.join(work, 'garbage.tar.gz');
    await writeFile(garbage, 'not a tarball at all');
    await expect(openBundle(garbage)).rejects.toThrow(/not a readable .tar.gz bundle|empty or not a tar archive/);
    await expect(openBundle(path.join(work, 'missing.tar.gz'))).rejects.toThrow(/no such file/);
  });

  it('refuses archives with absolute paths, .. entries or links that lead outside', async () => {
    const src = path.join(work, 'evil-src');
    await mkdir(path.join(src, 'nicdoctor-bundle'), { recursive: true });
    await symlink('../../../etc/passwd', path.join(src, 'nicdoctor-bundle', 'escape'));
    const linkArchive = path.join(work, 'link.tar.gz');
    await run('tar', ['-czf', linkArchive, '-C', src, 'nicdoctor-bundle']);
    await expect(openBundle(linkArchive)).rejects.toThrow(/points outside the bundle/);

    await writeFile(path.join(src, 'file.txt'), 'x');
    const dotdot = path.join(work, 'dotdot.tar.gz');
    await run('tar', ['-czf', dotdot, '-C', src, '--transform', 's,^file.txt,nicdoctor-bundle/../../file.txt,', 'file.txt']);
    await expect(openBundle(dotdot)).rejects.toThrow(/\.\./);

    const absolute = path.join(work, 'absolute.tar.gz');
    await run('tar', ['-czPf', absolute, path.join(src, 'file.txt')]);
    await expect(openBundle(absolute)).rejects.toThrow(/absolute path/);
  });

  it('refuses a bundle whose files do not match the manifest', async () => {
    const good = path.join(work, 'tamper.tar.gz');
    await writeBundle({ snapshotDir: HOST, report: await reportOf(HOST), output: good });
    const dir = path.join(work, 'tamper');
    await mkdir(dir);
    await run('tar', ['-xzf', good, '-C', dir]);
    await writeFile(path.join(dir, 'nicdoctor-bundle', 'snapshot', 'cmd', 'ethtool_-g_eth0'), 'changed\n');
    const tampered = path.join(work, 'tampered.tar.gz');
    await run('tar', ['-czf', tampered, '-C', dir, 'nicdoctor-bundle']);
    await expect(openBundle(tampered)).rejects.toThrow(/ethtool_-g_eth0 does not match its sha256/);
    expect((await walk(dir)).length).toBeGreaterThan(0);
  });
});
