/**
 * The report features through the built CLI, as users run them, on recorded hosts (no root
 * needed): policies with JUnit and Prometheus output, HTML, evidence bundles and their redaction,
 * analyze of a bundle and of a sosreport, and bad input.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { XMLValidator } from 'fast-xml-parser';
import { reportSchema } from '../../src/report/schema.js';
import { reportJsonSchemaErrors } from '../../lab/report-json-schema.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { cliArgv, cliPath, removeNodeFreePath } from '../../lab/executable.js';

const ROOT = path.resolve(FIXTURES, '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');
const run = promisify(execFile);
const work = mkdtempSync(path.join(tmpdir(), 'nicdoctor-cli-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  removeNodeFreePath();
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const [file, ...rest] = cliArgv(CLI, args);
    const { stdout, stderr } = await run(file!, rest, {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, PATH: cliPath(process.env.PATH ?? ''), NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

const PCIE_HOST = path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded');

describe('reports through the CLI', () => {
  it('a failing policy exits 1 and is one JUnit test case per item and check', async () => {
    const result = await cli(['analyze', PCIE_HOST, '--policy', path.join(ROOT, 'policies', '10g.yaml'), '--format', 'junit']);
    expect(result.code).toBe(1);
    expect(XMLValidator.validate(result.stdout)).toBe(true);
    expect(result.stdout).toMatch(/<testsuite name="[^"]*policy/i);
    expect(result.stdout).toContain('no-pcie-downgrade');
  });

  it('the policy result is in the JSON report, which matches the committed JSON Schema', async () => {
    const result = await cli(['analyze', PCIE_HOST, '--policy', path.join(ROOT, 'policies', '10g.yaml'), '--format', 'json']);
    expect(reportJsonSchemaErrors(result.stdout)).toEqual([]);
    const report = reportSchema.parse(JSON.parse(result.stdout));
    expect(report.policy?.pass).toBe(false);
    expect(report.policy?.items.find((item) => item.id.startsWith('no-pcie-downgrade'))?.status).toBe('fail');
    expect(report.diagnoses[0]?.ruleId).toBe('pcie-bandwidth-below-port');
  });

  it('prometheus output follows the text exposition format', async () => {
    const result = await cli(['analyze', PCIE_HOST, '--format', 'prometheus']);
    expect(result.code).toBe(1);
    for (const line of result.stdout.trimEnd().split('\n')) {
      expect(line).toMatch(/^(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? -?[0-9.e+-]+|NaN)$/);
    }
    expect(result.stdout).toContain('nicdoctor_check_status{check="pcie-link",subject="eth2",status="fail"} 1');
  });

  it('writes an HTML file atomically with --output, leaving no temporary file', async () => {
    const out = path.join(work, 'report.html');
    const result = await cli(['analyze', PCIE_HOST, '--format', 'html', '--output', out]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    expect(readdirSync(work).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a scan bundle analyses offline to the same findings, and --redact leaves no host name in it', async () => {
    const bundle = path.join(work, 'evidence.tar.gz');
    const scanned = await cli(['scan', '--bundle', bundle, '--redact', '--format', 'json']);
    expect([0, 1]).toContain(scanned.code);
    expect(existsSync(bundle)).toBe(true);
    const live = reportSchema.parse(JSON.parse(scanned.stdout));
    expect(live.redacted?.hostnames).toBeGreaterThan(0);
    const analysed = await cli(['analyze', bundle, '--format', 'json']);
    const offline = reportSchema.parse(JSON.parse(analysed.stdout));
    const key = (report: typeof live) =>
      report.checks.flatMap((check) => check.findings.map((f) => `${f.check}/${f.symptom}/${f.subject}/${f.severity}`)).sort();
    expect(key(offline)).toEqual(key(live));
    expect(offline.host.hostname).toBe(live.host.hostname);
    const hostname = (await import('node:os')).hostname();
    if (hostname.length > 3) expect(analysed.stdout).not.toContain(hostname);
  });

  it('analyses an extracted sosreport', async () => {
    const result = await cli(['analyze', path.join(FIXTURES, 'sosreport', 'x710-e3-1271'), '--format', 'json']);
    const report = reportSchema.parse(JSON.parse(result.stdout));
    expect(report.checks.flatMap((check) => check.findings).map((f) => f.symptom)).toContain('rx-ring-below-max');
  });

  it.each([
    [['analyze', '/nonexistent/evidence.tar.gz'], /no such file/],
    [['analyze', PCIE_HOST, '--policy', '/nonexistent/policy.yaml'], /--policy/],
    [['analyze', PCIE_HOST, '--format', 'pdf'], /--format/],
  ])('bad input %j exits 2 with a message naming it', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
