import { realpath, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { checks as registry } from '../../checks/index.js';
import type { ScanOutcome } from '../pipeline/scan.js';
import { render } from '../reporters/index.js';
import { analyzeText } from '../text/analyze.js';
import path from 'node:path';
import { READ_LIMITS, readRegularFile } from '../hostio/contained.js';
import { commandDirectoryText, isCommandDirectory } from '../text/command-dir.js';
import { writeOutput } from '../util/safe-output.js';
import { UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { emit, exitCodeFor, reportExitCode, scanInputs, type ReportOptions } from './commands.js';
import { reportSchema, type Report } from '../report/schema.js';

/**
 * `nicdoctor analyze FILE|-` on free text (a ticket, a forum post, pasted outputs). Several hosts
 * in one text give one report each: printed one after the other, or a JSON array of reports.
 */

export type TextAnalyzeOptions = ReportOptions;

/** Larger than any ticket; a bigger input is a mistake (a binary, a log directory cat'ed). */
const MAX_TEXT_BYTES = READ_LIMITS.text;

/**
 * `-` (stdin) and regular files that are not .tar.gz bundles are text; so are a directory of
 * command outputs named by their commands (not a snapshot, not a sosreport) and the archive of
 * `collect --script --os freebsd`, both read as the text of their outputs.
 */
export async function isTextInput(input: string): Promise<boolean> {
  if (input === '-') return true;
  if (/\.(?:tar\.gz|tgz)$/i.test(input)) return (await freebsdArchiveText(input)) !== null;
  const info = await stat(input).catch(() => null);
  if (info?.isFile()) return true;
  if (!info?.isDirectory()) return false;
  const marked = await Promise.all(
    ['snapshot.json', 'sos_commands'].map((name) =>
      stat(path.join(input, name)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return !marked.includes(true) && (await isCommandDirectory(input));
}

/** A collect.sh archive of a FreeBSD host (snapshot.json's os): the text of its cmd/ outputs; null for any other input. */
async function freebsdArchiveText(input: string): Promise<string | null> {
  const { isSnapshotArchive, openSnapshotArchive } = await import('../collect-script/archive.js');
  if (!(await isSnapshotArchive(input).catch(() => false))) return null;
  const opened = await openSnapshotArchive(input);
  try {
    const meta = JSON.parse(await readRegularFile(path.join(opened.snapshotDir, 'snapshot.json'), 1024 * 1024)) as {
      inventory?: { os?: unknown };
    };
    if (typeof meta.inventory?.os !== 'string' || !/^FreeBSD\b/.test(meta.inventory.os)) return null;
    return await commandDirectoryText(path.join(opened.snapshotDir, 'cmd'));
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  } finally {
    await opened.cleanup();
  }
}

async function readInput(input: string): Promise<string> {
  if (input !== '-' && /\.(?:tar\.gz|tgz)$/i.test(input)) {
    const text = await freebsdArchiveText(input);
    if (text !== null) return text;
  }
  if (input !== '-' && (await stat(input).catch(() => null))?.isDirectory()) return commandDirectoryText(input);
  let data: Buffer;
  if (input === '-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).length;
      if (size > MAX_TEXT_BYTES) throw new UsageError(`stdin: more than ${MAX_TEXT_BYTES / 1024 / 1024} MiB: not a pasted text`);
      chunks.push(chunk as Buffer);
    }
    data = Buffer.concat(chunks);
  } else {
    const info = await stat(input);
    if (info.size > MAX_TEXT_BYTES)
      throw new UsageError(
        `${input}: ${Math.round(info.size / 1024 / 1024)} MiB is more than a pasted text (limit ${MAX_TEXT_BYTES / 1024 / 1024} MiB)`,
      );
    // A regular file only, read within the cap (contained.ts): no FIFO or device swapped in.
    data = Buffer.from(
      await readRegularFile(await realpath(input), MAX_TEXT_BYTES, input).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`${input}: ${error.code === 'EACCES' ? 'permission denied' : error.message.replace(`${input}: `, '')}`);
      }),
      'utf8',
    );
  }
  if (data.includes(0)) throw new UsageError(`${input === '-' ? 'stdin' : input}: binary data, not text (a bundle must end in .tar.gz)`);
  return data.toString('utf8');
}

/**
 * The reports of a text input (`analyze FILE|-`, `fix FILE|-`): one per host in the text. What
 * needs a host (--bundle, --policy, --iface) is refused before the text is read.
 */
export async function textOutcomes(input: string, options: TextAnalyzeOptions, log: Logger): Promise<ScanOutcome[]> {
  if (options.bundle) throw new UsageError('--bundle: not available for text input (there is no host to record)');
  if (options.policy)
    throw new UsageError('--policy: not available for text input (a checklist needs every value; analyze a snapshot instead)');
  scanInputs(options);
  return textOutcomesOf(await readInput(input), input, options, log);
}

async function textOutcomesOf(text: string, input: string, options: TextAnalyzeOptions, log: Logger): Promise<ScanOutcome[]> {
  const inputs = scanInputs(options);
  if (inputs.ifaces.length) throw new UsageError('--iface: not available for text input (the text names its interfaces)');
  const linkSpeedMbps = inputs.linkSpeedMbps;
  log.debug({ phase: 'text', bytes: text.length }, 'scan phase');
  return analyzeText(text, {
    checks: registry,
    log,
    profile: inputs.profile,
    only: inputs.only,
    skip: inputs.skip,
    sourcePath: input === '-' ? 'stdin' : input,
    ...(linkSpeedMbps ? { linkSpeedMbps } : {}),
  });
}

/**
 * A nicdoctor JSON report given to `analyze` (a report.json from scan -f json) is the report, not
 * pasted text: it is rendered again in the requested format. Undefined when the text is not one;
 * a nicdoctor report of another schema version is bad input naming the file.
 */
function savedReport(text: string, input: string): Report | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const tool = (json as { tool?: { name?: unknown } } | null)?.tool;
  if (tool?.name !== 'nicdoctor') return undefined;
  const parsed = reportSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(
    `${input}: a nicdoctor report this version cannot read (${issue?.path.join('.') || 'document'}: ${issue?.message ?? 'invalid'}); analyze its snapshot or bundle instead`,
  );
}

async function renderSavedReport(report: Report, input: string, options: TextAnalyzeOptions, log: Logger): Promise<number> {
  for (const [flag, given] of [
    ['--only', options.only?.length],
    ['--skip', options.skip?.length],
    ['--iface', options.iface?.length],
    ['--link-speed', options.linkSpeed],
  ] as const)
    if (given) throw new UsageError(`${flag}: not available for a saved report (${input} is rendered as it was written)`);
  await emit(report, options, [input], log);
  return reportExitCode(report, options.failOn);
}

export async function analyzeTextCommand(input: string, options: TextAnalyzeOptions, log: Logger): Promise<number> {
  if (options.bundle) throw new UsageError('--bundle: not available for text input (there is no host to record)');
  if (options.policy)
    throw new UsageError('--policy: not available for text input (a checklist needs every value; analyze a snapshot instead)');
  const text = await readInput(input);
  const saved = savedReport(text, input === '-' ? 'stdin' : input);
  if (saved) return renderSavedReport(saved, input === '-' ? 'stdin' : input, options, log);
  const outcomes = await textOutcomesOf(text, input, options, log);
  log.debug({ phase: 'render', format: options.format, reports: outcomes.length }, 'scan phase');
  const color = !options.output && options.format === 'terminal' && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  const rendered =
    options.format === 'json' && outcomes.length > 1
      ? JSON.stringify(
          outcomes.map((outcome) => outcome.report),
          null,
          2,
        ) + '\n'
      : outcomes
          .map((outcome) =>
            render(outcome.report, options.format, { color, verbose: options.verbose ?? false, short: options.short ?? false }),
          )
          .join(options.format === 'markdown' ? '\n---\n\n' : '\n');
  if (options.output) await writeOutput(options.output, rendered, { flag: '--output', inputs: input === '-' ? [] : [input] });
  else process.stdout.write(rendered);
  return outcomes.reduce<number>((worst, outcome) => Math.max(worst, exitCodeFor(outcome, options.failOn)), EXIT.ok);
}
