/**
 * Issue 19 item 8, through the built CLI. Before: `fleet dA/web1.json dB/web1.json` merged two
 * different hosts into one row with mixed data; one old-schema file aborted the whole fleet;
 * `analyze report.json` read a nicdoctor JSON report as pasted text.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../../lab/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from '../hostile/helpers.js';

let dir: string;
let report: Record<string, unknown> & { host: { hostname: string }; checks: unknown };

const cli = (args: string[]) => execa(process.execPath, [CLI, ...args], { reject: false, timeout: 120_000 });

beforeAll(async () => {
  dir = await tempDir('nicdoctor-fleet-inputs-');
  const file = path.join(dir, 'scan.json');
  const scanned = await cli(['analyze', path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), '-f', 'json', '-o', file]);
  expect(scanned.exitCode, scanned.stderr).toBeLessThan(2);
  report = JSON.parse(await readFile(file, 'utf8'));
  for (const [sub, hostname] of [
    ['dA', 'web1-rack1'],
    ['dB', 'web1-rack2'],
  ] as const) {
    await mkdir(path.join(dir, sub));
    await writeFile(path.join(dir, sub, 'web1.json'), JSON.stringify({ ...report, host: { ...report.host, hostname } }));
  }
  await writeFile(path.join(dir, 'old.json'), JSON.stringify({ ...report, schemaVersion: 0 }));
  // One host's redacted scan (its hostname a token) and its unredacted bench report, as the Ansible roles fetch them.
  await mkdir(path.join(dir, 'fetched'));
  const redacted = { hostnames: 1, ips: 0, macs: 0, serials: 0 };
  await writeFile(
    path.join(dir, 'fetched', 'h1.json'),
    JSON.stringify({ ...report, host: { ...report.host, hostname: 'host-1' }, redacted }),
  );
  await writeFile(path.join(dir, 'fetched', 'h1.bench.json'), JSON.stringify({ ...report, host: { ...report.host, hostname: 'vm' } }));
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fleet inputs', () => {
  it('two files named alike in two directories, of two hosts, are two rows', async () => {
    const result = await cli(['fleet', path.join(dir, 'dA', 'web1.json'), path.join(dir, 'dB', 'web1.json'), '-f', 'json']);
    expect(result.exitCode, result.stderr).toBeLessThan(2);
    const fleet = JSON.parse(result.stdout);
    expect(fleet.hosts.map((host: { hostname: string }) => host.hostname).sort()).toEqual(['web1-rack1', 'web1-rack2']);
    expect(new Set(fleet.hosts.map((host: { host: string }) => host.host)).size).toBe(2);
    expect(fleet.hosts.map((host: { host: string }) => host.host).sort()).toEqual(['web1 (web1-rack1)', 'web1 (web1-rack2)']);
  });

  it("a redacted report's hostname token tells no host apart: a host's redacted scan and its bench are one row", async () => {
    const result = await cli(['fleet', path.join(dir, 'fetched'), '-f', 'json']);
    expect(result.exitCode, result.stderr).toBeLessThan(2);
    expect(JSON.parse(result.stdout).hosts.map((host: { host: string }) => host.host)).toEqual(['h1']);
  });

  it('a file that cannot be read (old schema, missing) is listed and the rest go on', async () => {
    const result = await cli(['fleet', path.join(dir, 'dA', 'web1.json'), path.join(dir, 'old.json'), '-f', 'json']);
    expect(result.exitCode).toBe(1);
    const fleet = JSON.parse(result.stdout);
    expect(fleet.hosts).toHaveLength(1);
    expect(fleet.unread).toEqual([
      { file: path.join(dir, 'old.json'), reason: expect.stringMatching(/not a nicdoctor report \(schemaVersion/) },
    ]);
    const terminal = await cli(['fleet', path.join(dir, 'dA', 'web1.json'), path.join(dir, 'old.json')]);
    expect(terminal.stdout).toMatch(/Not read:\n {2}- .*old\.json: not a nicdoctor report/);
  });
});

describe('analyze of a saved JSON report', () => {
  it('re-renders it in the requested format instead of reading it as pasted text', async () => {
    const file = path.join(dir, 'dA', 'web1.json');
    const markdown = await cli(['analyze', file, '-f', 'markdown']);
    expect(markdown.exitCode, markdown.stderr).toBeLessThan(2);
    expect(markdown.stdout).toContain('web1-rack1');
    const json = await cli(['analyze', file, '-f', 'json']);
    const again = JSON.parse(json.stdout);
    expect(again.host.hostname).toBe('web1-rack1');
    expect(again.checks).toEqual(report.checks);
  });

  it('a nicdoctor report of another schema version is exit 2 naming the file', async () => {
    const result = await cli(['analyze', path.join(dir, 'old.json')]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/old\.json: a nicdoctor report this version cannot read \(schemaVersion/);
  });
});
