/**
 * `fleet` and `diff` over plain JSON reports, the output cron jobs and the Ansible role keep: the
 * report carries the settings its checks read, so the hosts that differ are named without bundles.
 * Three copies of one real capture (a virtio VM) stand for three hosts; one has TSO and GSO turned
 * off in its `ethtool -k` outputs, one has its MTU raised to 9000, as mistuned hosts show them.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffReport } from '../../src/diff/diff.js';
import type { FleetReport } from '../../src/fleet/fleet.js';
import { reportSchema } from '../../src/report/schema.js';
import { cliArgv, cliPath, removeNodeFreePath } from '../../lab/executable.js';
import { FIXTURES } from '../helpers/fixtures.js';

const ROOT = path.resolve(FIXTURES, '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');
const HOST = path.join(FIXTURES, 'hosts', 'virtio-vm-single-queue');
const MTU_FILE = path.join('fs', 'sys', 'devices', 'pci0000:00', '0000:00:03.0', 'virtio2', 'net', 'eth0', 'mtu');
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-fleet-reports-'));
const snapshots = path.join(work, 'snapshots');
const reports = path.join(work, 'reports');
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  removeNodeFreePath();
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [file, ...rest] = cliArgv(CLI, args);
  try {
    const { stdout, stderr } = await promisify(execFile)(file!, rest, {
      cwd: work,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
      env: { ...process.env, PATH: cliPath(process.env.PATH ?? ''), NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

const SEGMENTATION = ['tcp-segmentation-offload', 'generic-segmentation-offload'];

function turnSegmentationOff(snapshot: string): void {
  const text = path.join(snapshot, 'cmd', 'ethtool_-k_eth0');
  let changed = readFileSync(text, 'utf8');
  for (const feature of SEGMENTATION) changed = changed.replace(`${feature}: on`, `${feature}: off`);
  writeFileSync(text, changed);
  const json = path.join(snapshot, 'cmd', 'ethtool_--json_-k_eth0');
  const features = JSON.parse(readFileSync(json, 'utf8')) as Array<Record<string, { active: boolean }>>;
  for (const feature of SEGMENTATION) features[0]![feature]!.active = false;
  writeFileSync(json, JSON.stringify(features));
}

beforeAll(async () => {
  mkdirSync(snapshots);
  mkdirSync(reports);
  for (const host of ['vm-a', 'vm-b', 'vm-c']) cpSync(HOST, path.join(snapshots, host), { recursive: true, verbatimSymlinks: true });
  turnSegmentationOff(path.join(snapshots, 'vm-b'));
  writeFileSync(path.join(snapshots, 'vm-c', MTU_FILE), '9000\n');
  for (const host of ['vm-a', 'vm-b', 'vm-c']) {
    const run = await cli(['analyze', path.join(snapshots, host), '--format', 'json', '--output', path.join(reports, `${host}.json`)]);
    expect(run.stderr).toBe('');
  }
}, 180_000);

describe('fleet and diff over JSON reports', () => {
  it('the report carries the settings its checks read, per interface and for the host', () => {
    const report = reportSchema.parse(JSON.parse(readFileSync(path.join(reports, 'vm-b.json'), 'utf8')));
    const eth0 = report.settings?.interfaces.find((iface) => iface.name === 'eth0');
    expect(eth0).toMatchObject({ driver: 'virtio_net', pciAddress: '0000:00:03.0' });
    expect(eth0?.values).toMatchObject({
      MTU: 1500,
      'offload tcp-segmentation-offload': 'off',
      'offload generic-segmentation-offload': 'off',
      'combined channels': 1,
    });
    expect(report.settings?.host.kernel).toBe(report.host.kernel);
  });

  it('fleet names the host with TSO/GSO off and the one with a different MTU', async () => {
    const result = await cli(['fleet', reports, '--format', 'json']);
    expect(result.stderr).toBe('');
    const fleet = JSON.parse(result.stdout) as FleetReport;
    const odd = fleet.outliers.map((outlier) => [outlier.setting, outlier.outliers.map((member) => member.host)]);
    expect(odd).toEqual(
      expect.arrayContaining([
        ['offload tcp-segmentation-offload', ['vm-b']],
        ['offload generic-segmentation-offload', ['vm-b']],
        ['MTU', ['vm-c']],
      ]),
    );
    expect(fleet.outliers.every((outlier) => outlier.group === 'virtio_net')).toBe(true);
    const text = await cli(['fleet', reports]);
    expect(text.stdout).toContain('vm-c (eth0): MTU 9000 where 2 of 3 virtio_net interfaces have 1500');
  });

  it('fleet gives the same odd ones out on the reports as on the snapshots they came from', async () => {
    const fromReports = JSON.parse((await cli(['fleet', reports, '--format', 'json'])).stdout) as FleetReport;
    const fromSnapshots = JSON.parse((await cli(['fleet', snapshots, '--format', 'json'])).stdout) as FleetReport;
    expect(fromReports.outliers).toEqual(fromSnapshots.outliers);
  });

  it('diff of two reports lists the settings that differ', async () => {
    const result = await cli(['diff', path.join(reports, 'vm-a.json'), path.join(reports, 'vm-b.json'), '--format', 'json']);
    expect(result.stderr).toBe('');
    const diff = JSON.parse(result.stdout) as DiffReport;
    const paths = diff.groups.flatMap((group) => group.differences.map((difference) => difference.path));
    expect(paths).toEqual(expect.arrayContaining(SEGMENTATION.map((feature) => `offload ${feature}`)));
    const mtu = await cli(['diff', path.join(reports, 'vm-a.json'), path.join(reports, 'vm-c.json')]);
    expect(mtu.stdout).toMatch(/MTU.*1500.*9000/);
  });
});
