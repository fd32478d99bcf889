/**
 * Runs the built CLI (dist/src/cli.js, what users run) for lab tests and the scan bench:
 * on the host, inside a lab namespace, or as another user. Imports no test framework.
 */
import path from 'node:path';
import { execa } from 'execa';
import { reportSchema, type Report } from '../src/report/schema.js';
import { reportJsonSchemaErrors } from './report-json-schema.js';
import { cliArgv, cliPath } from './executable.js';
import { findTool, type Lab } from './lab.js';
import { REPO_ROOT } from './repo-root.js';

export { REPO_ROOT };
export const CLI = path.join(REPO_ROOT, 'dist', 'src', 'cli.js');

export interface CliOptions {
  /** Run inside this lab namespace (`ip netns exec`). */
  lab?: Lab;
  /** A side ('a', 'b') or a namespace name. */
  ns?: string;
  /** Run as this uid and gid with no supplementary groups (`setpriv`), e.g. 65534 (nobody). */
  user?: number;
  /** Use this CLI file instead of dist/src/cli.js (a copy readable by another user). */
  cli?: string;
  cwd?: string;
  timeoutMs?: number;
  /** Extra environment (the CLI otherwise gets only PATH, LANG and NO_COLOR). */
  env?: Record<string, string>;
}

export interface CliRun {
  argv: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** PATH with the sbin directories, where ethtool, ip and tc live on Debian. */
export function toolPath(): string {
  const dirs = (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter);
  for (const dir of ['/usr/local/sbin', '/usr/sbin', '/sbin']) if (!dirs.includes(dir)) dirs.push(dir);
  return dirs.join(path.delimiter);
}

export async function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  // NICDOCTOR_EXECUTABLE: the single executable, with no node on PATH (lab/executable.ts).
  let argv = options.cli ? [process.execPath, options.cli, ...args] : cliArgv(CLI, args);
  if (options.user !== undefined) {
    const setpriv = findTool('setpriv') ?? 'setpriv';
    argv = [setpriv, `--reuid=${options.user}`, `--regid=${options.user}`, '--clear-groups', ...argv];
  }
  if (options.lab) {
    const ns = options.ns === undefined || options.ns === 'a' || options.ns === 'b' ? options.lab.ns[options.ns ?? 'a'] : options.ns;
    argv = [findTool('ip') ?? 'ip', 'netns', 'exec', ns, ...argv];
  }
  const started = performance.now();
  const [file, ...rest] = argv;
  const result = await execa(file!, rest, {
    reject: false,
    timeout: options.timeoutMs ?? 120_000,
    forceKillAfterDelay: 2_000,
    stdin: 'ignore',
    cwd: options.cwd ?? REPO_ROOT,
    // A clean environment: the report must not depend on the test runner's variables.
    extendEnv: false,
    env: { PATH: cliPath(toolPath()), LANG: 'C', NO_COLOR: '1', ...options.env },
  });
  return {
    argv,
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout ?? ''),
    stderr: String(result.stderr ?? ''),
    durationMs: performance.now() - started,
  };
}

/** Parses and validates the JSON report; throws with the first schema issue otherwise. */
export function parseReport(stdout: string): Report {
  // Every report a lab test gets is checked against the committed JSON Schema as well as zod.
  const problems = reportJsonSchemaErrors(stdout);
  if (problems.length) throw new Error(`the report does not match schema/report.schema.json: ${problems.slice(0, 5).join('; ')}`);
  return reportSchema.parse(JSON.parse(stdout));
}

/** A JavaScript stack trace ("    at fn (file.js:1:2)") leaked to the user. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+:\d+:\d+\)?$/m.test(text);
}

export const CHECK_STATES = ['pass', 'fail', 'not-applicable', 'unknown', 'error'] as const;

export interface CheckInfo {
  id: string;
  title: string;
  scope: 'host' | 'interface';
  requires: string[];
  symptoms: string[];
}

/** The registry as the CLI lists it (`nicdoctor checks --format json`). */
export async function listChecks(options: CliOptions = {}): Promise<CheckInfo[]> {
  const run = await runCli(['checks', '--format', 'json'], options);
  if (run.exitCode !== 0) throw new Error(`nicdoctor checks exited ${run.exitCode}: ${run.stderr}`);
  return JSON.parse(run.stdout) as CheckInfo[];
}

/** One line per check that broke, for assertion messages. */
export function brokenChecks(report: Report): string[] {
  return report.checks
    .filter((check) => check.status === 'error')
    .map((check) => `${check.id}: ${check.reason ?? ''} ${check.error?.message ?? ''}`.trim());
}
