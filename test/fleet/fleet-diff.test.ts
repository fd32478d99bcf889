/**
 * `nicdoctor fleet` and `nicdoctor diff` through the built CLI on recorded hosts. Three copies
 * of one real capture stand for three hosts of one NIC model; one copy's `ethtool -g` output
 * has its RX ring lowered (the fault a fleet report must point at), as a mistuned host shows it.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffReport } from '../../src/diff/diff.js';
import type { FleetReport } from '../../src/fleet/fleet.js';
import { cliArgv, cliPath, removeNodeFreePath } from '../../lab/executable.js';
import { FIXTURES } from '../helpers/fixtures.js';

const ROOT = path.resolve(FIXTURES, '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');
const HOST = path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops');
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-fleet-'));
const fleetDir = path.join(work, 'reports');
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

function lowerRxRing(snapshot: string, to: number): void {
  const file = path.join(snapshot, 'cmd', 'ethtool_-g_eth0');
  const text = readFileSync(file, 'utf8');
  const changed = text.replace(/(Current hardware settings:\nRX:\t+)\d+/, `$1${to}`);
  expect(changed).not.toBe(text);
  writeFileSync(file, changed);
}

beforeAll(() => {
  mkdirSync(fleetDir);
  for (const host of ['r12-05', 'r12-06', 'r12-07']) cpSync(HOST, path.join(fleetDir, host), { recursive: true, verbatimSymlinks: true });
  lowerRxRing(path.join(fleetDir, 'r12-07'), 512);
});

describe('nicdoctor fleet', () => {
  it('prints one row per host and names the host whose ring differs from the others of its model', async () => {
    const result = await cli(['fleet', fleetDir]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const host of ['r12-05', 'r12-06', 'r12-07']) expect(result.stdout).toMatch(new RegExp(`^${host} `, 'm'));
    expect(result.stdout).toContain('r12-07 (eth0): rx ring 512 where 2 of 3 i40e interfaces have 2048');
    expect(result.stdout).not.toMatch(/r12-0[56] \(eth0\)/);
  });

  it('as JSON: the verdicts, top diagnosis and the outlier with its majority', async () => {
    const result = await cli(['fleet', fleetDir, '--format', 'json']);
    const report = JSON.parse(result.stdout) as FleetReport;
    expect(report.summary).toEqual({ hosts: 3, failed: 0, outliers: 1 });
    // The capture's drops are negligible (0.4 per million packets) and no port speed was captured:
    // no host has a ranked cause, only notes; the ring outlier is what tells r12-07 apart.
    expect(report.hosts.map((host) => host.topDiagnosis)).toEqual([null, null, null]);
    expect(report.outliers).toEqual([
      {
        scope: 'interface',
        group: 'i40e',
        setting: 'rx ring',
        majority: 2048,
        majorityCount: 2,
        compared: 3,
        outliers: [{ host: 'r12-07', interface: 'eth0', value: 512 }],
      },
    ]);
  });

  it('a policy decides the exit code; JUnit has a failing case per failing host and per outlier', async () => {
    const reports = path.join(work, 'policy-reports');
    mkdirSync(reports);
    for (const host of ['r12-05', 'r12-06', 'r12-07']) {
      const run = await cli([
        'analyze',
        path.join(fleetDir, host),
        '--policy',
        path.join(ROOT, 'policies', '10g.yaml'),
        '--format',
        'json',
        '--output',
        path.join(reports, `${host}.json`),
      ]);
      expect([0, 1]).toContain(run.code);
    }
    // Reports and snapshots of the same hosts together: files named <host>.* are one host.
    const result = await cli(['fleet', reports, fleetDir, '--format', 'junit']);
    expect(result.code).toBe(1);
    expect(XMLValidator.validate(result.stdout)).toBe(true);
    expect(result.stdout).toMatch(/<testcase classname="fleet.hosts" name="r12-07"><failure message="policy 10g: /);
    expect(result.stdout).toContain(
      '<testcase classname="fleet.outliers" name="i40e: rx ring"><failure message="r12-07 (eth0): rx ring 512',
    );
    const json = JSON.parse((await cli(['fleet', reports, fleetDir, '--format', 'json'])).stdout) as FleetReport;
    expect(json.hosts).toHaveLength(3);
    expect(json.hosts[0]!.files).toHaveLength(2);
    expect(json.hosts[0]!.policy?.name).toBe('10g');
  });

  it('markdown and html carry the same table', async () => {
    const markdown = await cli(['fleet', fleetDir, '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/^\| host \| verdict \|/m);
    expect(markdown.stdout).toContain('- r12-07 (eth0): rx ring 512');
    const html = await cli(['fleet', fleetDir, '--format', 'html', '--output', path.join(work, 'fleet.html')]);
    expect(html.code).toBe(0);
    expect(readFileSync(path.join(work, 'fleet.html'), 'utf8')).toContain(
      '<li>r12-07 (eth0): rx ring 512 where 2 of 3 i40e interfaces have 2048</li>',
    );
  });

  it('bad input names the argument and exits 2', async () => {
    const missing = await cli(['fleet', path.join(work, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('INPUT: ');
    writeFileSync(path.join(work, 'broken.json'), '{"not": "a report"}');
    const broken = await cli(['fleet', path.join(work, 'broken.json')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.json: not a nicdoctor report/);
    expect((await cli(['fleet', fleetDir, '--format', 'pdf'])).code).toBe(2);
  });
});

describe('nicdoctor diff', () => {
  it('shows the ring difference under rx-rings, marked because the check reacts to it', async () => {
    const result = await cli(['diff', path.join(fleetDir, 'r12-05'), path.join(fleetDir, 'r12-07')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^rx-rings: /m);
    expect(result.stdout).toContain('! eth0  ethtool.rings current.rx: 2048 → 512');
    expect(result.stdout).toContain('RX ring 512 of a possible 4096');
  });

  it('two copies of one host differ in nothing and exit 0', async () => {
    const result = await cli(['diff', path.join(fleetDir, 'r12-05'), path.join(fleetDir, 'r12-06'), '--format', 'json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as DiffReport;
    expect(report.summary).toEqual({ differences: 0, marked: 0 });
  });

  it('another host, as a report and as a snapshot: facts grouped by check, the rules that react named', async () => {
    expect([0, 1]).toContain(
      (
        await cli([
          'analyze',
          path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded'),
          '--format',
          'json',
          '--output',
          path.join(work, 'pcie.json'),
        ])
      ).code,
    );
    // A bare report holds no raw outputs: diff compares the settings it shows.
    const result = await cli(['diff', HOST, path.join(work, 'pcie.json'), '--format', 'json']);
    const report = JSON.parse(result.stdout) as DiffReport;
    expect(report.basis).toBe('settings');
    expect(report.diagnoses.onlyB).toContain('pcie-bandwidth-below-port @ eth2');
    const full = JSON.parse(
      (await cli(['diff', HOST, path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded'), '--format', 'json'])).stdout,
    ) as DiffReport;
    expect(full.basis).toBe('facts');
    const pcie = full.groups.find((group) => group.check === 'pcie-link');
    expect(
      pcie?.differences.some(
        (entry) => entry.fact === 'pcie.link' && entry.reactions.includes('rule pcie-bandwidth-below-port: diagnosed on B only'),
      ),
    ).toBe(true);
  });
});
