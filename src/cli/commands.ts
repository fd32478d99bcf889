import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { checks as registry } from '../../checks/index.js';
import { collectors } from '../collectors/index.js';
import { UsageError } from '../engine/errors.js';
import { scan, type ScanOutcome } from '../engine/scan.js';
import { LiveHostIO } from '../hostio/live.js';
import { RecordingHostIO } from '../hostio/recording.js';
import { SnapshotError, SnapshotHostIO } from '../hostio/snapshot.js';
import type { HostIO } from '../hostio/types.js';
import type { Profile, Report } from '../report/schema.js';
import { render, type Format } from '../reporters/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { splitList, validateInterfaceNames } from '../util/validate.js';
import { VERSION } from '../version.js';
import { EXIT, exceedsThreshold, type FailOn } from './exit-codes.js';

export interface ReportOptions {
  iface?: string[];
  format: Format;
  output?: string;
  only?: string[];
  skip?: string[];
  failOn: FailOn;
  profile: Profile;
  verbose?: boolean;
}

export function scanInputs(options: ReportOptions) {
  return {
    ifaces: validateInterfaceNames(splitList(options.iface)),
    only: splitList(options.only),
    skip: splitList(options.skip),
    profile: options.profile,
  };
}

export async function emit(report: Report, options: ReportOptions): Promise<void> {
  const color = !options.output && options.format === 'terminal' && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  const text = render(report, options.format, { color, verbose: options.verbose ?? false });
  if (options.output) await writeFileAtomic(options.output, text);
  else process.stdout.write(text);
}

export function exitCodeFor(outcome: ScanOutcome, failOn: FailOn): number {
  const interfaces = outcome.store.runs.find((run) => run.fact === 'interfaces');
  if (interfaces && !interfaces.ok) return EXIT.couldNotRun;
  const severities = outcome.report.checks.flatMap((check) => check.findings.map((finding) => finding.severity));
  return exceedsThreshold(severities, failOn) ? EXIT.findings : EXIT.ok;
}

async function reportOn(io: HostIO, options: ReportOptions, log: Logger, sourcePath?: string): Promise<number> {
  const outcome = await scan({ io, checks: registry, log, ...scanInputs(options), ...(sourcePath ? { sourcePath } : {}) });
  await emit(outcome.report, options);
  return exitCodeFor(outcome, options.failOn);
}

export async function scanCommand(options: ReportOptions, log: Logger): Promise<number> {
  scanInputs(options); // validate before touching the host
  return reportOn(new LiveHostIO(), options, log);
}

export async function analyzeCommand(dir: string, options: ReportOptions, log: Logger): Promise<number> {
  scanInputs(options);
  let io: SnapshotHostIO;
  try {
    io = await SnapshotHostIO.open(dir);
  } catch (error) {
    if (error instanceof SnapshotError) throw new UsageError(error.message);
    throw error;
  }
  return reportOn(io, options, log, dir);
}

export interface CollectOptions {
  output: string;
  iface?: string[];
}

/** Records every fact every collector can read, so that any check can run on it later. */
export async function collectCommand(options: CollectOptions, log: Logger): Promise<number> {
  const ifaces = validateInterfaceNames(splitList(options.iface));
  const dir = path.resolve(options.output);
  const existing = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new UsageError(`--output: ${dir}: ${error.message}`);
  });
  if (existing.length) throw new UsageError(`--output: ${dir} is not empty; choose a new directory`);
  await mkdir(dir, { recursive: true });
  const io = new RecordingHostIO(dir);
  const outcome = await scan({ io, checks: registry, log, ifaces });
  // Facts no check asked for this time are still recorded, for checks added later.
  await Promise.all(
    collectors.flatMap((collector) =>
      collector.scope === 'host' ? [outcome.store.get(collector.id)] : outcome.report.interfaces.map((iface) => outcome.store.get(collector.id, iface.name)),
    ),
  );
  await io.writeManifest(await io.inventory(), { name: 'nicdoctor', version: VERSION });
  await writeFile(path.join(dir, 'README.txt'), 'A nicdoctor snapshot. Analyse it anywhere with: nicdoctor analyze <this directory>\n');
  const failed = outcome.store.runs.filter((run) => !run.ok).length;
  process.stderr.write(`Recorded ${outcome.store.runs.length} facts (${failed} could not be read) for ${outcome.report.interfaces.length} interfaces in ${dir}\n`);
  return EXIT.ok;
}

export function checksCommand(format: 'terminal' | 'json'): number {
  if (format === 'json') {
    const list = registry.map((check) => ({ id: check.id, title: check.title, scope: check.scope, description: check.description, requires: check.requires, symptoms: Object.keys(check.symptoms) }));
    process.stdout.write(JSON.stringify(list, null, 2) + '\n');
    return EXIT.ok;
  }
  const width = Math.max(...registry.map((check) => check.id.length));
  for (const check of registry) process.stdout.write(`${check.id.padEnd(width)}  ${check.title}\n`);
  return EXIT.ok;
}
