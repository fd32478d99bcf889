/**
 * The built CLI against the real machine and against lab namespaces (LAB.md): real sysfs,
 * real ethtool, nothing mocked. Other checks are added over time, so these tests assert the
 * contract (exit codes, schema, five states, offline = live) rather than a fixed check list.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.js';
import { CHECK_STATES, brokenChecks, hasStackTrace, listChecks, parseReport, runCli, type CheckInfo } from '../../lab/cli.js';
import { cleanupStale, createLab, labAvailable, type Lab } from '../../lab/lab.js';

const skipReason = labAvailable();
if (skipReason) console.warn(`scan-live lab tests skipped: ${skipReason}`);

const tempDirs: string[] = [];
function tempDir(label: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `nicdoctor-lab-${label}-`));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Exit code, schema, five states, no stack trace, no broken check: what every scan owes. */
function expectSoundScan(run: { exitCode: number; stdout: string; stderr: string }): Report {
  expect([0, 1], `exit code ${run.exitCode}; stderr: ${run.stderr}`).toContain(run.exitCode);
  expect(hasStackTrace(run.stderr), run.stderr).toBe(false);
  const report = parseReport(run.stdout);
  for (const check of report.checks) {
    expect(CHECK_STATES).toContain(check.status);
    for (const subject of check.subjects) expect(CHECK_STATES).toContain(subject.status);
  }
  expect(brokenChecks(report)).toEqual([]);
  return report;
}

function netInterfaces(): string[] {
  return readdirSync('/sys/class/net').filter((name) => name !== 'lo' && name !== 'bonding_masters');
}

describe.skipIf(skipReason)('nicdoctor scan on this machine', () => {
  let checks: CheckInfo[];
  beforeAll(async () => {
    checks = await listChecks();
  });

  it('prints a valid JSON report of the real interfaces, as root', async () => {
    const before = new Set(netInterfaces());
    const run = await runCli(['scan', '--format', 'json']);
    const after = new Set(netInterfaces());
    const report = expectSoundScan(run);
    expect(report.host.root).toBe(true);
    expect(report.source.mode).toBe('live');
    expect(report.checks.map((check) => check.id)).toEqual(checks.map((check) => check.id));
    // Down software devices are skipped (named in skippedInterfaces), never silently dropped.
    const names = [...report.interfaces, ...(report.skippedInterfaces ?? [])].map((iface) => iface.name);
    // Interfaces may come and go while the scan runs; those present throughout must be reported.
    for (const name of before) if (after.has(name)) expect(names).toContain(name);
    for (const name of names) expect(before.has(name) || after.has(name), `${name} is not in /sys/class/net`).toBe(true);
    expect(names).not.toContain('lo');
    // The machine's own NIC (eth0 / ens3 / enp1s0...): backed by a device, not a software interface.
    expect(
      report.interfaces.some((iface) => iface.kind === 'physical' || iface.kind === 'paravirtual'),
      JSON.stringify(report.interfaces),
    ).toBe(true);
    const exitFromFindings = report.checks.some((check) => check.findings.some((finding) => finding.severity === 'critical')) ? 1 : 0;
    expect(run.exitCode).toBe(exitFromFindings);
  });

  it('tells a guest or container nothing about NIC tuning it cannot do (no warning-level NIC cause on an interface it does not own)', async () => {
    const report = parseReport((await runCli(['scan', '--format', 'json'])).stdout);
    const notOwned = new Set(report.interfaces.filter((iface) => iface.kind !== 'physical').map((iface) => iface.name));
    // Rings, coalescing, offloads the driver lacks, PCIe, RSS, flow control, link modes.
    const NIC_LEVEL = new Set([1, 6, 7, 8, 9, 14, 16, 20]);
    const wrong = report.diagnoses.filter((d) => notOwned.has(d.subject) && NIC_LEVEL.has(d.cause));
    expect(wrong.map((d) => `${d.ruleId}@${d.subject}`)).toEqual([]);
    // Socket-buffer tiers come only from a physical port's negotiated speed.
    if (!report.interfaces.some((iface) => iface.speedMbps !== null)) {
      expect(report.diagnoses.filter((d) => d.ruleId === 'socket-buffers-small').map((d) => d.ruleId)).toEqual([]);
    }
    // Every diagnosis is warning-level or above; info-only causes are notes.
    for (const diagnosis of report.diagnoses) expect(diagnosis.severity).not.toBe('info');
  });

  it('prints markdown and verbose terminal reports naming every check, and a terminal report that opens with the verdict', async () => {
    const json = parseReport((await runCli(['scan', '--format', 'json'])).stdout);
    const short = await runCli(['scan']);
    expect(short.stdout).toContain(json.verdict!.headline);
    for (const format of ['markdown', 'terminal'] as const) {
      const run = await runCli(['scan', '--format', format, ...(format === 'terminal' ? ['--verbose'] : [])]);
      expect([0, 1], `${format}: exit ${run.exitCode}; stderr: ${run.stderr}`).toContain(run.exitCode);
      expect(hasStackTrace(run.stderr), run.stderr).toBe(false);
      expect(run.stdout.trim().length).toBeGreaterThan(0);
      if (format === 'markdown') expect(run.stdout).toMatch(/^# nicdoctor report/);
      // Titles are neutral whatever the status: each check's own title is in the long form.
      for (const check of json.checks) expect(run.stdout.includes(check.title), `${format} output lacks ${check.id}`).toBe(true);
    }
  });
});

describe.skipIf(skipReason)('nicdoctor inside a lab namespace with one veth', () => {
  let lab: Lab;
  let checks: CheckInfo[];
  let snapshot: string;

  beforeAll(async () => {
    cleanupStale();
    lab = await createLab();
    checks = await listChecks();
    snapshot = path.join(tempDir('collect'), 'snapshot');
    const collect = await runCli(['collect', '--output', snapshot], { lab, ns: 'a' });
    expect(collect.exitCode, collect.stderr).toBe(0);
  });
  afterAll(async () => {
    await lab?.destroy();
  });

  it('reports exactly that veth, its 10000 Mb/s nominal (not a link speed), with no broken check', async () => {
    const run = await runCli(['scan', '--iface', lab.a.iface, '--format', 'json'], { lab, ns: 'a' });
    const report = expectSoundScan(run);
    expect(report.interfaces).toHaveLength(1);
    expect(report.interfaces[0]).toMatchObject({
      name: lab.a.iface,
      kind: 'virtual',
      softwareType: 'veth',
      speedMbps: null,
      nominalSpeedMbps: 10000,
      duplex: 'full',
      operstate: 'up',
      pciAddress: null,
    });
    // No tier, ceiling or "fast port" from a nominal speed: a veth gets no warning about tuning.
    expect(
      report.diagnoses.filter((d) => d.subject === lab.a.iface || d.cause === 10),
      JSON.stringify(report.diagnoses.map((d) => d.ruleId)),
    ).toEqual([]);
    for (const check of report.checks) {
      const info = checks.find((item) => item.id === check.id)!;
      expect(check.subjects.map((subject) => subject.subject)).toEqual(info.scope === 'interface' ? [lab.a.iface] : ['host']);
    }
    // A veth has no PCIe link to judge.
    const pcie = report.checks.find((check) => check.id === 'pcie-link');
    if (pcie) expect(pcie.status).toBe('not-applicable');
    // Real ethtool and sysfs output on a veth must be understood: "unsupported" (ethtool -g on
    // veth) or an absent file is fine, output nicdoctor cannot read is a bug.
    const broken = report.collectors.filter(
      (run) => run.error && ['parse-failed', 'failed', 'timeout', 'permission-denied'].includes(run.error.kind),
    );
    expect(broken, JSON.stringify(broken, null, 2)).toEqual([]);
  });

  it('collect inside the namespace, analyze outside: the same findings as a live scan there', async () => {
    const live = expectSoundScan(await runCli(['scan', '--format', 'json'], { lab, ns: 'a' }));
    const offline = expectSoundScan(await runCli(['analyze', snapshot, '--format', 'json']));
    expect(offline.source).toEqual({ mode: 'snapshot', path: snapshot });
    const findings = (report: Report) =>
      report.checks
        .flatMap((check) => check.findings.map((finding) => `${finding.check}/${finding.symptom} ${finding.subject} ${finding.severity}`))
        .sort();
    expect(findings(offline)).toEqual(findings(live));
    const states = (report: Report) =>
      report.checks.flatMap((check) => check.subjects.map((subject) => `${check.id} ${subject.subject} ${subject.status}`));
    expect(states(offline)).toEqual(states(live));
    expect(offline.interfaces).toEqual(live.interfaces);
    expect(offline.host.root).toBe(true);
  });

  describe('snapshots with damaged command output', () => {
    /** Copies the collected snapshot and damages every recorded command output with `damage`. */
    function damagedCopy(label: string, damage: (file: string) => void): { dir: string; damaged: string[] } {
      const dir = path.join(tempDir(label), 'snapshot');
      cpSync(snapshot, dir, { recursive: true, verbatimSymlinks: true });
      const cmdDir = path.join(dir, 'cmd');
      const outputs = readdirSync(cmdDir).filter((name) => !name.endsWith('.json') && statSync(path.join(cmdDir, name)).isFile());
      for (const name of outputs) damage(path.join(cmdDir, name));
      return { dir, damaged: outputs };
    }

    /**
     * Every check subject that needed a fact which could not be read is `unknown`, and its
     * reason carries that fact's error (the parse failure), never a crash.
     */
    function expectUnknownWhereFactsFailed(report: Report): void {
      const failedRuns = report.collectors.filter((run) => !run.ok);
      for (const check of report.checks) {
        const info = checks.find((item) => item.id === check.id)!;
        for (const subject of check.subjects) {
          const failed = info.requires.flatMap((fact) => {
            const run = failedRuns.find((item) => item.fact === fact && (item.subject === undefined || item.subject === subject.subject));
            return run?.error ? [`${fact}: ${run.error.message}`] : [];
          });
          if (failed.length === 0) continue;
          expect(subject.status, `${check.id} on ${subject.subject}`).toBe('unknown');
          expect(failed, `${check.id} on ${subject.subject}: reason`).toContain(subject.reason);
        }
      }
    }

    it('random bytes instead of command output: checks that need it are unknown, with the parse error', async () => {
      const { dir, damaged } = damagedCopy('garbage', (file) => writeFileSync(file, randomBytes(512)));
      expect(damaged.length, 'the snapshot recorded no command output (no command-based collector?)').toBeGreaterThan(0);
      const run = await runCli(['analyze', dir, '--format', 'json']);
      const report = expectSoundScan(run);
      const parseFailures = report.collectors.filter((item) => item.error?.kind === 'parse-failed');
      expect(parseFailures.length, `no collector reported a parse failure for ${damaged.join(', ')}`).toBeGreaterThan(0);
      expectUnknownWhereFactsFailed(report);
      const unknown = report.checks.filter((check) => check.status === 'unknown');
      expect(unknown.length).toBeGreaterThan(0);
    });

    it('truncated command output: still a sound report, failures become unknown', async () => {
      const { dir } = damagedCopy('truncated', (file) => truncateSync(file, Math.floor(statSync(file).size / 3)));
      const report = expectSoundScan(await runCli(['analyze', dir, '--format', 'json']));
      expectUnknownWhereFactsFailed(report);
    });
  });

  it('--iface with an interface that is not in the namespace is a usage error', async () => {
    const run = await runCli(['scan', '--iface', 'doesnotexist0', '--format', 'json'], { lab, ns: 'a' });
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--iface/);
    expect(run.stderr).toContain('doesnotexist0');
    expect(run.stderr).toContain(lab.a.iface); // names what is present
  });
});

// The usage errors (bad options, missing or corrupt inputs) need no lab: test/cli/usage.test.ts.
