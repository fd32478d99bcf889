import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { checks as registry } from '../../checks/index.js';
import { collectors } from '../collectors/index.js';
import { scan, type ScanOutcome } from '../pipeline/scan.js';
import { LiveHostIO } from '../hostio/live.js';
import { RecordingHostIO } from '../hostio/recording.js';
import { SnapshotHostIO } from '../hostio/snapshot.js';
import type { HostIO } from '../hostio/types.js';
import { reportSchema, type Profile, type Report } from '../report/schema.js';
import { render, type Format } from '../reporters/index.js';
import { claimOutputDirectory, writeNewFile } from '../util/private-dir.js';
import { planOutput, writeOutput } from '../util/safe-output.js';
import { checkInterfaceList, splitList } from '../util/validate.js';
import { VERSION } from '../util/version.js';
import { failureOf, reportError, UsageError } from './errors.js';
import { EXIT, exceedsThreshold, type FailOn } from './exit-codes.js';
import { required } from './options.js';
import type { Policy } from '../policy/schema.js';

export interface ReportOptions {
  /** Interface names, checked as they were parsed (options.ts). */
  iface?: string[];
  /** Keep interfaces that are down (skipped by default when no --iface names them). */
  all?: boolean;
  /** The link speed to judge by, in Mb/s, for interfaces that report none of their own (--link-speed). */
  linkSpeed?: number;
  format: Format;
  output?: string;
  only?: string[];
  skip?: string[];
  failOn: FailOn;
  profile: Profile;
  verbose?: boolean;
  /** Terminal: the verdict and the diagnoses only. */
  short?: boolean;
  /** Judge the report against this pre-deployment checklist (YAML); the exit code follows it. */
  policy?: string;
  /** Write an evidence bundle (report + every raw output) to this .tar.gz. */
  bundle?: string;
  redact?: boolean;
}

/** The interface list; commander checked each value already, a programmatic caller gets the same check. */
export function interfaceList(values: readonly string[] | undefined): string[] {
  return [...new Set((values ?? []).flatMap((value) => required(checkInterfaceList(value), '--iface', value)))];
}

export function scanInputs(options: ReportOptions) {
  return {
    ifaces: interfaceList(options.iface),
    all: options.all === true,
    ...(options.linkSpeed ? { linkSpeedMbps: options.linkSpeed } : {}),
    only: splitList(options.only),
    skip: splitList(options.skip),
    profile: options.profile,
  };
}

/** Loads --policy before anything runs: a broken policy is bad input (exit 2). */
export async function policyInput(options: ReportOptions): Promise<{ policy?: Policy }> {
  if (!options.policy) return {};
  const { loadPolicy, PolicyLoadError } = await import('../policy/schema.js');
  try {
    return {
      policy: await loadPolicy(
        options.policy,
        registry.map((check) => check.id),
      ),
    };
  } catch (error) {
    if (error instanceof PolicyLoadError) throw new UsageError(`--policy: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES')
      throw new UsageError(`--policy: ${options.policy}: ${code === 'ENOENT' ? 'no such file' : 'permission denied'}`);
    throw error;
  }
}

/** Checks --output and --bundle before any work starts: a path that cannot be written is exit 2. */
export async function checkOutputs(options: ReportOptions, inputs: readonly string[] = []): Promise<void> {
  if (options.output) await planOutput(options.output, { flag: '--output', inputs });
  if (options.bundle) await planOutput(options.bundle, { flag: '--bundle', inputs });
  if (options.output && options.bundle && options.output !== '-' && path.resolve(options.output) === path.resolve(options.bundle)) {
    throw new UsageError('--output and --bundle name the same file');
  }
}

export async function emit(report: Report, options: ReportOptions, inputs: readonly string[] = [], log?: Logger): Promise<void> {
  log?.debug({ phase: 'render', format: options.format }, 'scan phase');
  const color =
    (!options.output || options.output === '-') && options.format === 'terminal' && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  const text = render(report, options.format, { color, verbose: options.verbose ?? false, short: options.short ?? false });
  if (options.output) await writeOutput(options.output, text, { flag: '--output', inputs });
  else process.stdout.write(text);
}

/** The exit code of a finished scan whose report was printed (errors.ts maps its failures). */
export function exitCodeFor(outcome: ScanOutcome, failOn: FailOn): number {
  // The interface list unreadable, or a bench that could not finish: the partial report was printed.
  const failure = failureOf(outcome);
  // The partial report may have gone to a file: the reason must reach the terminal (or the
  // Ansible task's stderr) as well.
  if (failure) return reportError(failure, false);
  return reportExitCode(outcome.report, failOn);
}

/** The exit code a report's verdict gives (its policy, else its findings against --fail-on). */
export function reportExitCode(report: Report, failOn: FailOn): number {
  // A pre-deployment checklist decides by itself: pass → 0, fail → 1.
  if (report.policy) return report.policy.pass ? EXIT.ok : EXIT.findings;
  const severities = report.checks.flatMap((check) => check.findings.map((finding) => finding.severity));
  return exceedsThreshold(severities, failOn) ? EXIT.findings : EXIT.ok;
}

async function reportOn(
  io: HostIO,
  options: ReportOptions,
  log: Logger,
  policy: { policy?: Policy },
  sourcePath?: string,
): Promise<number> {
  const outcome = await scan({ io, checks: registry, log, ...scanInputs(options), ...policy, ...(sourcePath ? { sourcePath } : {}) });
  await emit(outcome.report, options, sourcePath ? [sourcePath] : [], log);
  // Offline, an interface list that cannot be read is bad input (exit 2), not a failure to run.
  const failure = sourcePath ? failureOf(outcome, sourcePath) : null;
  if (failure instanceof UsageError) throw failure;
  return exitCodeFor(outcome, options.failOn);
}

export async function scanCommand(options: ReportOptions, log: Logger): Promise<number> {
  scanInputs(options); // validate before touching the host
  await checkOutputs(options, options.policy ? [options.policy] : []);
  const policy = await policyInput(options);
  if (options.bundle) return withBundle(options, log, (io) => scan({ io, checks: registry, log, ...scanInputs(options), ...policy }));
  return reportOn(new LiveHostIO(), options, log, policy);
}

/**
 * `--bundle FILE`: the scan reads the host through a recording HostIO, then the report and every
 * raw output go into one tar.gz (optionally redacted), written atomically.
 */
export async function withBundle(options: ReportOptions, log: Logger, run: (io: RecordingHostIO) => Promise<ScanOutcome>): Promise<number> {
  const { writeBundle } = await import('../bundle/index.js');
  const snapshotDir = await mkdtemp(path.join(tmpdir(), 'nicdoctor-bundle-'));
  try {
    const io = new RecordingHostIO(snapshotDir);
    const outcome = await run(io);
    await io.writeManifest(await io.inventory(), { name: 'nicdoctor', version: VERSION });
    const written = await writeBundle({
      snapshotDir,
      report: outcome.report,
      ...(outcome.report.bench ? { bench: outcome.report.bench } : {}),
      output: options.bundle!,
      redact: options.redact ?? false,
    });
    process.stderr.write(
      `nicdoctor: wrote ${written.output} (${written.manifest.items.length} raw items${written.redacted ? ', redacted' : ''})\n`,
    );
    // What is printed matches what the bundle holds: redacted when the bundle is.
    await emit(written.redacted ? reportSchema.parse(JSON.parse(written.reportText)) : outcome.report, options);
    return exitCodeFor(outcome, options.failOn);
  } finally {
    await rm(snapshotDir, { recursive: true, force: true });
  }
}

/**
 * Opens what `analyze` (and `fix --from`) accept: a snapshot directory, an evidence bundle
 * (.tar.gz) or an extracted sosreport; runs `use` on it, then cleans up. Unreadable input
 * (SnapshotError, BundleError, SnapshotArchiveError) is exit 2 (errors.ts).
 */
export async function withOfflineInput<T>(input: string, use: (io: HostIO) => Promise<T>): Promise<T> {
  const { looksLikeBundle, openBundle } = await import('../bundle/index.js');
  const { SosreportHostIO, isSosreport } = await import('../hostio/sosreport.js');
  let cleanup: (() => Promise<void>) | undefined;
  try {
    let io: HostIO;
    const { isSnapshotArchive, openSnapshotArchive } = await import('../collect-script/archive.js');
    if (looksLikeBundle(input) && (await isSnapshotArchive(input))) {
      // The archive of `collect --script` (collect.sh): a snapshot directory in a tar.gz.
      const opened = await openSnapshotArchive(input);
      cleanup = opened.cleanup;
      io = await SnapshotHostIO.open(opened.snapshotDir);
    } else if (looksLikeBundle(input)) {
      const opened = await openBundle(input);
      cleanup = () => opened.cleanup();
      io = await SnapshotHostIO.open(opened.snapshotDir);
    } else if (await isSosreport(input)) {
      io = await SosreportHostIO.open(input);
    } else {
      io = await SnapshotHostIO.open(input);
    }
    return await use(io);
  } finally {
    await cleanup?.();
  }
}

export async function analyzeCommand(input: string, options: ReportOptions, log: Logger): Promise<number> {
  scanInputs(options);
  await checkOutputs(options, [input, ...(options.policy ? [options.policy] : [])]);
  const policy = await policyInput(options);
  return withOfflineInput(input, (io) => reportOn(io, options, log, policy, input));
}

export interface CollectOptions {
  output: string;
  /** Interface names, checked as they were parsed (options.ts). */
  iface?: string[];
  verbose?: boolean;
}

/**
 * Records every fact every collector can read, so that any check can run on it later. Fails
 * like `scan`: an output that cannot be used is exit 2 before anything is read, an interface list
 * that cannot be read is exit 3 (what was read is kept), bad --iface is exit 2.
 */
export async function collectCommand(options: CollectOptions, log: Logger): Promise<number> {
  const ifaces = interfaceList(options.iface);
  // Made by nicdoctor (0700) or an empty one of the caller's: nobody else can plant files in it.
  const { dir, created } = await claimOutputDirectory(options.output, '--output');
  const io = new RecordingHostIO(dir);
  let outcome: ScanOutcome;
  try {
    outcome = await scan({ io, checks: registry, log, ifaces, all: true });
  } catch (error) {
    // Refused before anything was read (--iface naming no interface): leave no empty snapshot behind.
    if (created && error instanceof UsageError) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // Facts no check asked for this time are still recorded, for checks added later.
  await Promise.all(
    collectors.flatMap((collector) =>
      collector.scope === 'host'
        ? [outcome.store.get(collector.id)]
        : outcome.report.interfaces.map((iface) => outcome.store.get(collector.id, iface.name)),
    ),
  );
  await io.writeManifest(await io.inventory(), { name: 'nicdoctor', version: VERSION });
  await writeNewFile(path.join(dir, 'README.txt'), 'A nicdoctor snapshot. Analyse it anywhere with: nicdoctor analyze <this directory>\n');
  const failedRuns = outcome.store.runs.filter((run) => !run.ok);
  process.stderr.write(
    `Recorded ${outcome.store.runs.length} facts (${failedRuns.length} could not be read) for ${outcome.report.interfaces.length} interfaces in ${dir}\n`,
  );
  if (options.verbose) {
    for (const run of failedRuns)
      process.stderr.write(`  not read: ${run.fact}${run.subject ? ` (${run.subject})` : ''}: ${run.error?.message ?? 'unknown error'}\n`);
  }
  const failure = failureOf(outcome);
  if (failure) throw failure;
  return EXIT.ok;
}

/** `nicdoctor checks`; --verbose adds what each check looks at and the facts it reads. */
export function checksCommand(format: 'terminal' | 'json', verbose = false): number {
  if (format === 'json') {
    const list = registry.map((check) => ({
      id: check.id,
      title: check.title,
      scope: check.scope,
      description: check.description,
      requires: check.requires,
      symptoms: Object.keys(check.symptoms as Record<string, unknown>),
    }));
    process.stdout.write(JSON.stringify(list, null, 2) + '\n');
    return EXIT.ok;
  }
  const width = Math.max(...registry.map((check) => check.id.length));
  for (const check of registry) {
    process.stdout.write(`${check.id.padEnd(width)}  ${check.title}\n`);
    if (verbose)
      process.stdout.write(
        `${' '.repeat(width + 2)}${check.scope}; reads ${check.requires.join(', ') || 'nothing'}\n${' '.repeat(width + 2)}${check.description}\n`,
      );
  }
  return EXIT.ok;
}
