/**
 * The CLI run by an unprivileged user (nobody) on the real machine: it must still finish with a
 * valid report, and whatever needs root must say so instead of failing or breaking.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.js';
import { CHECK_STATES, CLI, REPO_ROOT, brokenChecks, hasStackTrace, parseReport, runCli } from '../../lab/cli.js';
import { findTool } from '../../lab/lab.js';

const NOBODY = 65534;

function unavailable(): string | undefined {
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) return `switching to an unprivileged user needs root (running as uid ${uid})`;
  if (!findTool('setpriv')) return 'setpriv is missing: apt-get install util-linux';
  return undefined;
}
const skipReason = unavailable();
if (skipReason) console.warn(`nonroot lab test skipped: ${skipReason}`);

/**
 * The built CLI as nobody can read it: the checkout itself when it is world-readable
 * (/work/main), else a world-readable copy (a CI clone in a 0700 temp directory).
 */
function readableCli(cleanups: (() => void)[]): string {
  try {
    execFileSync(findTool('setpriv')!, [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, CLI, '--version'], {
      stdio: 'ignore',
      cwd: '/',
      timeout: 30_000,
    });
    return CLI;
  } catch {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-nonroot-'));
    cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
    for (const entry of ['package.json', 'dist', 'node_modules', 'rules']) {
      if (existsSync(path.join(REPO_ROOT, entry)))
        cpSync(path.join(REPO_ROOT, entry), path.join(copy, entry), { recursive: true, verbatimSymlinks: true });
    }
    execFileSync('chmod', ['-R', 'a+rX', copy]);
    chmodSync(copy, 0o755);
    return path.join(copy, 'dist', 'src', 'cli.js');
  }
}

describe.skipIf(skipReason)('nicdoctor scan as an unprivileged user', () => {
  const cleanups: (() => void)[] = [];
  let cli: string;
  let asRoot: Report;
  let asNobody: Report;
  let nobodyRun: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    cli = readableCli(cleanups);
    asRoot = parseReport((await runCli(['scan', '--format', 'json'])).stdout);
    nobodyRun = await runCli(['scan', '--format', 'json'], { user: NOBODY, cli, cwd: '/' });
  });
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  it('completes with a valid report that says it did not run as root', () => {
    expect([0, 1], `exit ${nobodyRun.exitCode}; stderr: ${nobodyRun.stderr}`).toContain(nobodyRun.exitCode);
    expect(hasStackTrace(nobodyRun.stderr), nobodyRun.stderr).toBe(false);
    asNobody = parseReport(nobodyRun.stdout);
    expect(asNobody.host.root).toBe(false);
    expect(asRoot.host.root).toBe(true);
    for (const check of asNobody.checks) expect(CHECK_STATES).toContain(check.status);
    expect(brokenChecks(asNobody)).toEqual([]);
    // Same host, same interfaces, same checks: only what needs root may differ.
    expect(asNobody.interfaces.map((iface) => iface.name)).toEqual(asRoot.interfaces.map((iface) => iface.name));
    expect(asNobody.checks.map((check) => check.id)).toEqual(asRoot.checks.map((check) => check.id));
  });

  it('a check that could judge as root but not as nobody is unknown, with a hint to run as root', () => {
    asNobody ??= parseReport(nobodyRun.stdout);
    const needRoot: string[] = [];
    for (const check of asNobody.checks) {
      const rootCheck = asRoot.checks.find((item) => item.id === check.id)!;
      for (const subject of check.subjects) {
        const rootSubject = rootCheck.subjects.find((item) => item.subject === subject.subject);
        if (!rootSubject || rootSubject.status === 'unknown' || rootSubject.status === subject.status) continue;
        // A fact hidden from nobody may only turn a verdict into "unknown", never into another verdict.
        expect(subject.status, `${check.id} on ${subject.subject}: ${rootSubject.status} as root`).toBe('unknown');
        expect(subject.hint ?? '', `${check.id} on ${subject.subject}: ${subject.reason}`).toMatch(/root|sudo/i);
        needRoot.push(`${check.id}@${subject.subject}`);
      }
    }
    console.info(`checks that need root on this machine: ${needRoot.join(', ') || 'none'}`);
  });

  it('every fact refused for lack of privilege carries a hint that mentions root', () => {
    asNobody ??= parseReport(nobodyRun.stdout);
    const denied = asNobody.collectors.filter((run) => run.error?.kind === 'permission-denied');
    for (const run of denied)
      expect(run.error?.hint ?? '', `${run.fact} ${run.subject ?? ''}: ${run.error?.message}`).toMatch(/root|sudo/i);
    // Checks whose facts were refused say why, per subject and at the check level.
    for (const check of asNobody.checks) {
      const refused = [check, ...check.subjects].filter(
        (item) => item.status === 'unknown' && /permission denied/i.test(item.reason ?? ''),
      );
      for (const item of refused) expect(item.hint ?? '', `${check.id}: ${item.reason}`).toMatch(/root|sudo/i);
    }
  });
});
