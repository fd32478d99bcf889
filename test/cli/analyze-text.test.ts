/**
 * `nicdoctor analyze FILE|-` on pasted text through the built CLI: a file, stdin, the three
 * formats, several hosts, and bad input.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { reportSchema } from '../../src/report/schema.js';
import { reportJsonSchemaErrors } from '../../lab/report-json-schema.js';
import { FIXTURES } from '../helpers/fixtures.js';

const ROOT = path.resolve(FIXTURES, '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-text-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const TEXT = (name: string) => path.join(FIXTURES, 'text', name);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

function withStdin(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('analyze on text through the CLI', () => {
  it('a file: JSON keeps the report schema with source.mode text, the segments and the ask-for list', async () => {
    const { code, stdout } = await cli(['analyze', TEXT('seed-002-10g-stuck-3.5-pcie-x1.txt'), '--format', 'json']);
    expect(code).toBe(1); // a critical finding, as for a scan
    const report = reportSchema.parse(JSON.parse(stdout));
    expect(reportJsonSchemaErrors(JSON.parse(stdout))).toEqual([]);
    expect(report.source).toMatchObject({ mode: 'text', path: TEXT('seed-002-10g-stuck-3.5-pcie-x1.txt') });
    expect(report.source.segments?.map((segment) => [segment.kind, segment.firstLine, segment.lastLine])).toEqual([
      ['lspci', 1, 1],
      ['lspci', 3, 3],
    ]);
    expect(report.diagnoses.map((diagnosis) => diagnosis.ruleId)).toContain('pcie-bandwidth-below-port');
    expect(report.askFor?.length).toBeGreaterThan(0);
  });

  it('stdin (-) with --link-speed: the Windows -P 8 run reaches a 40G link', async () => {
    const { code, stdout } = await withStdin(
      ['analyze', '-', '--link-speed', '40G'],
      readFileSync(TEXT('seed-004-windows-client-P8-40g.txt'), 'utf8'),
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/Pasted text stdin: read iperf3-text\n/);
    expect(stdout).toMatch(/Memory-to-memory reaches line rate/);
    expect(stdout).toMatch(/Not examined — .*\n {2}\$ Get-NetAdapter/);
  });

  it('--format markdown is a reply to paste into the ticket', async () => {
    const { stdout } = await cli(['analyze', TEXT('igb-i211-aspm-thread-assembled.txt'), '--format', 'markdown']);
    expect(stdout).toMatch(/^### nicdoctor: what the outputs you sent show/);
    expect(stdout).toMatch(/We read 7 command outputs from your message:/);
    expect(stdout).toMatch(/- lines 33–59: ethtool-stats \(enp3s0\) `ethtool -S enp3s0 \|grep {2}-v :\\ 0` \[filtered: partial\]/);
    expect(stdout).toMatch(/\*\*To confirm, could you run these.*\n\n```sh\n(?:.*\n)*ethtool -g enp3s0\n/);
    expect(stdout).toMatch(/\*\*What we found, most likely first:\*\*\n\n1\. \*\*/);
  });

  it('several hosts: one report each; JSON is an array of reports', async () => {
    const text = path.join(work, 'two-hosts.txt');
    writeFileSync(text, readFileSync(TEXT('seed-003-udp-26pct-loss.txt')));
    const { stdout } = await cli(['analyze', text, '--format', 'json']);
    const reports = (JSON.parse(stdout) as unknown[]).map((report) => reportSchema.parse(report));
    expect(reports.map((report) => report.host.hostname)).toEqual(['ss-daliu2', 'ss-daliu1']);
    const terminal = await cli(['analyze', text]);
    expect(terminal.stdout.match(/^nicdoctor \S+ — ss-daliu\d/gm)).toHaveLength(2);
  });

  it('bad input: a binary file, an unknown link speed, --bundle and --iface are usage errors (exit 2)', async () => {
    const binary = path.join(work, 'binary.txt');
    writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    expect(await cli(['analyze', binary])).toMatchObject({ code: 2, stderr: expect.stringMatching(/binary data, not text/) });
    expect(await cli(['analyze', TEXT('iperf3-3.x-P3-client.txt'), '--link-speed', 'fast'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--link-speed <speed>' argument 'fast' is invalid/),
    });
    expect(await cli(['analyze', TEXT('iperf3-3.x-P3-client.txt'), '--bundle', path.join(work, 'b.tar.gz')])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--bundle/),
    });
    expect(await cli(['analyze', TEXT('iperf3-3.x-P3-client.txt'), '--iface', 'eth0'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--iface/),
    });
  });
});
