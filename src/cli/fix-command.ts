/**
 * `nicdoctor fix`: prints the fixes of the current diagnoses as a shell script (changes
 * nothing); `--apply` makes the non-disruptive whitelisted changes after confirmation, saving
 * the previous values; `--revert` restores them.
 */
import { createInterface } from 'node:readline/promises';
import type { Logger } from 'pino';
import { checks as registry } from '../../checks/index.js';
import { scan, type ScanOutcome } from '../pipeline/scan.js';
import { LiveHostIO } from '../hostio/live.js';
import type { HostIO } from '../hostio/types.js';
import type { Profile, Report } from '../report/schema.js';
import { planOutput, writeOutput } from '../util/safe-output.js';
import { applyChanges } from '../fix/apply.js';
import { describeRevert, planRevert, revertChanges } from '../fix/revert.js';
import { planForget } from '../fix/forget.js';
import { buildPlan, type FixPlan } from '../fix/plan.js';
import { renderScript } from '../fix/script.js';
import { shellJoin } from '../fix/shell.js';
import { lockStateFile, StateLockedError } from '../fix/lock.js';
import { DEFAULT_STATE_FILE, readState, removeState, StateFileError, writeState } from '../fix/state.js';
import { changeArgv } from '../fix/vocabulary.js';
import { scanInputs, withOfflineInput, type ReportOptions } from './commands.js';
import { failureOf, RunError, UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { Format } from '../reporters/index.js';

export interface FixOptions {
  iface?: string[];
  only?: string[];
  skip?: string[];
  profile: Profile;
  /** What to diagnose instead of this host: the input argument (or --from), as `analyze` takes it. */
  from?: string;
  output?: string;
  apply?: boolean;
  revert?: boolean;
  forget?: boolean;
  yes?: boolean;
  state?: string;
  verbose?: boolean;
  all?: boolean;
  /** Mb/s (--link-speed). */
  linkSpeed?: number;
  /** --apply --verify and its bench options (src/cli/verify-command.ts). */
  verify?: boolean;
  keepAll?: boolean;
  allowDisruptive?: boolean;
  runs?: number;
  peer?: string;
  loopback?: boolean;
  ports?: number[];
  controlPort?: number;
  duration?: number;
  stepDuration?: number;
  omit?: number;
  maxProcs?: number;
  format?: Format;
}

/** The report options that `fix` shares with `analyze`. */
function reportOptions(options: FixOptions): ReportOptions {
  return {
    iface: options.iface,
    only: options.only,
    skip: options.skip,
    profile: options.profile,
    format: 'json',
    failOn: 'never',
    ...(options.all ? { all: true } : {}),
    ...(options.linkSpeed ? { linkSpeed: options.linkSpeed } : {}),
  };
}

function inputs(options: FixOptions) {
  return scanInputs(reportOptions(options));
}

/** The report to fix; a scan that could not list the interfaces is refused as `analyze` and `scan` refuse it. */
function usable(outcome: ScanOutcome, sourcePath?: string): Report {
  const failure = failureOf(outcome, sourcePath);
  if (failure) throw failure;
  return outcome.report;
}

async function reportFrom(io: HostIO, options: FixOptions, log: Logger, sourcePath?: string): Promise<Report> {
  return usable(await scan({ io, checks: registry, log, ...inputs(options), ...(sourcePath ? { sourcePath } : {}) }), sourcePath);
}

/**
 * The same inputs as `analyze`, with the same errors: a snapshot directory, an evidence bundle or
 * collect-script archive, an extracted sosreport, or a text file / - (stdin) of pasted outputs.
 */
async function offlineReport(input: string, options: FixOptions, log: Logger): Promise<Report> {
  const text = await import('./analyze-text.js');
  if (!(await text.isTextInput(input))) return withOfflineInput(input, (io) => reportFrom(io, options, log, input));
  const outcomes = await text.textOutcomes(input, reportOptions(options), log);
  if (outcomes.length !== 1)
    throw new UsageError(
      `${input === '-' ? 'stdin' : input}: the text holds ${outcomes.length} hosts; a fix script is for one host: give the text of one`,
    );
  return usable(outcomes[0]!, input === '-' ? 'stdin' : input);
}

/**
 * --yes, or a yes typed on a terminal. Without a terminal and without --yes nothing is
 * changed: a script must say so explicitly.
 */
async function confirm(question: string, options: FixOptions): Promise<boolean> {
  if (options.yes) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new UsageError('refusing to change the host without confirmation: no terminal to ask on; add --yes to confirm non-interactively');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

const out = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

function describePlan(plan: FixPlan): void {
  out(`nicdoctor fix --apply: ${plan.diagnoses.length} diagnoses on ${plan.host}.`);
  if (plan.apply.length) {
    out(`Will run (values before each change are saved first):`);
    for (const item of plan.apply) out(`  ${shellJoin(changeArgv(item.change))}    # ${item.ruleId}`);
  }
  if (plan.notApplied.length) {
    out('Not run by --apply (outside the ethtool/sysctl vocabulary; see `nicdoctor fix`):');
    for (const item of plan.notApplied) out(`  ${item.text}    # ${item.ruleId}: ${item.reason}`);
  }
  if (plan.disruptive.length) {
    out('Not run: disruptive (maintenance window; see `nicdoctor fix`):');
    for (const item of plan.disruptive) out(`  ${item.text}    # ${item.ruleId}`);
  }
}

async function applyCommand(options: FixOptions, log: Logger, stateFile: string): Promise<number> {
  if ((await readState(stateFile)) !== null) {
    throw new UsageError(
      `${stateFile} already holds changes from an earlier --apply: run \`nicdoctor fix --revert${options.state ? ` --state ${options.state}` : ''}\` first (or --forget, when its interfaces are gone), or choose another --state file`,
    );
  }
  const io = new LiveHostIO();
  const report = await reportFrom(io, options, log);
  const plan = buildPlan(report);
  describePlan(plan);
  if (plan.apply.length === 0) {
    out('Nothing to apply: no non-disruptive ethtool or sysctl change in the current diagnoses.');
    return EXIT.ok;
  }
  if (!(await confirm(`Apply these ${plan.apply.length} change(s) on ${plan.host}?`, options))) {
    out('Not confirmed: nothing changed.');
    return EXIT.ok;
  }
  const results = await applyChanges(io, plan.apply, stateFile, report.host.hostname);
  for (const result of results) {
    out(
      `${result.ok ? 'applied' : 'FAILED '}  ${shellJoin(result.command)}${result.ok ? '' : `: ${result.error}${result.kept ? ' (kept in the state file: it may have changed something)' : ' (nothing changed)'}`}`,
    );
  }
  const applied = results.filter((result) => result.ok).length;
  const failed = results.length - applied;
  if (results.some((result) => result.kept))
    out(`Previous values saved in ${stateFile}; undo with: nicdoctor fix --revert${options.state ? ` --state ${options.state}` : ''}`);
  out(`${applied} applied, ${failed} failed.`);
  if (failed)
    process.stderr.write(
      `nicdoctor: ${failed} change(s) failed: ${results
        .filter((result) => !result.ok)
        .map((result) => shellJoin(result.command))
        .join('; ')}\n`,
    );
  return failed ? EXIT.findings : EXIT.ok;
}

async function revertCommand(options: FixOptions, stateFile: string): Promise<number> {
  const state = await readState(stateFile);
  if (state === null) throw new UsageError(`no saved changes at ${stateFile}: nothing to revert`);
  const io = new LiveHostIO();
  const steps = await planRevert(io, state);
  out(`nicdoctor fix --revert: ${state.entries.length} change(s) applied on ${state.host} at ${state.createdAt}.`);
  for (const line of describeRevert(steps, shellJoin)) out(line);
  const toRun = steps.filter((step) => step.kind === 'run').length;
  if (toRun > 0 && !(await confirm(`Set these ${toRun} value(s)?`, options))) {
    out('Not confirmed: nothing changed.');
    return EXIT.ok;
  }
  const results = await revertChanges(io, state, stateFile);
  for (const result of results)
    out(
      `${result.ok ? 'restored' : result.refused ? 'REFUSED ' : 'FAILED  '}  ${shellJoin(result.command)}${result.ok ? '' : `: ${result.error}`}`,
    );
  const failed = results.filter((result) => !result.ok).length;
  out(failed ? `${failed} could not be restored; they stay in ${stateFile}.` : `All restored; ${stateFile} removed.`);
  if (failed) process.stderr.write(`nicdoctor: ${failed} value(s) could not be restored (kept in ${stateFile})\n`);
  return failed ? EXIT.findings : EXIT.ok;
}

async function forgetCommand(options: FixOptions, stateFile: string): Promise<number> {
  const state = await readState(stateFile);
  if (state === null) throw new UsageError(`no saved changes at ${stateFile}: nothing to forget`);
  const plan = planForget(state);
  out(`nicdoctor fix --forget: ${state.entries.length} change(s) saved on ${state.host} at ${state.createdAt}.`);
  if (plan.drop.length) {
    out('Will drop from the state (nothing is changed on the host):');
    for (const { entry, reason } of plan.drop) out(`  ${shellJoin(entry.apply)}    # ${entry.ruleId}: ${reason}`);
  }
  if (plan.keep.length) {
    out('Kept (their interfaces are here: restore them with --revert):');
    for (const entry of plan.keep) out(`  ${shellJoin(entry.apply)}    # ${entry.ruleId}`);
  }
  if (plan.drop.length === 0) {
    out('Nothing to forget.');
    return EXIT.ok;
  }
  if (!(await confirm(`Drop these ${plan.drop.length} change(s) from ${stateFile}?`, options))) {
    out('Not confirmed: nothing dropped.');
    return EXIT.ok;
  }
  if (plan.keep.length) await writeState(stateFile, { ...state, entries: plan.keep });
  else await removeState(stateFile);
  out(plan.keep.length ? `Dropped ${plan.drop.length}; ${plan.keep.length} kept in ${stateFile}.` : `Dropped all; ${stateFile} removed.`);
  return EXIT.ok;
}

/** Checks every option --verify adds before anything runs (exit 2 naming the option). */
export function checkVerifyOptions(options: FixOptions): void {
  if (!options.verify) {
    for (const [flag, given] of [
      ['--keep-all', options.keepAll],
      ['--allow-disruptive', options.allowDisruptive],
      ['--peer', options.peer],
      ['--loopback', options.loopback],
    ] as const)
      if (given !== undefined && given !== false) throw new UsageError(`${flag}: only with --apply --verify`);
    return;
  }
  if (!options.apply) throw new UsageError('--verify: goes with --apply (it applies, measures, and keeps what helps)');
}

/** --apply --verify: loaded only when asked for (it brings the bench). */
async function verifyMode(options: FixOptions, log: Logger, stateFile: string): Promise<number> {
  const { verifyCommand } = await import('./verify-command.js');
  return verifyCommand(
    {
      ...reportOptions(options),
      ...options,
      // Commander gives every default; a caller that leaves one out gets the same.
      runs: options.runs ?? 3,
      ports: options.ports ?? [5101, 5102, 5103, 5104, 5105, 5106, 5107, 5108],
      controlPort: options.controlPort ?? 5100,
      duration: options.duration ?? 5,
      stepDuration: options.stepDuration ?? 2,
      omit: options.omit ?? 1,
      format: options.format ?? 'terminal',
      failOn: 'never',
    },
    log,
    stateFile,
    (question) => confirm(question, options),
  );
}

export async function fixCommand(options: FixOptions, log: Logger): Promise<number> {
  const modes = (['apply', 'revert', 'forget'] as const).filter((mode) => options[mode]);
  if (modes.length > 1) throw new UsageError(`${modes.map((mode) => `--${mode}`).join(' and ')} exclude each other`);
  const mode = modes[0];
  if (mode && options.from) throw new UsageError(`--${mode} works on this host's state: it takes no input to diagnose (INPUT or --from)`);
  checkVerifyOptions(options);
  if (options.format !== undefined && !options.verify) throw new UsageError('--format: only with --apply --verify (the report it prints)');
  if (mode && options.output && !options.verify)
    throw new UsageError(`--output writes the script (or, with --verify, the report); it does not go with --${mode}`);
  if (options.yes && !mode) throw new UsageError('--yes confirms --apply, --revert or --forget');
  if (options.state !== undefined && !mode) throw new UsageError('--state goes with --apply, --revert or --forget');
  inputs(options); // validate before touching the host
  const stateFile = options.state ?? DEFAULT_STATE_FILE;
  try {
    if (mode) {
      // One apply, revert or forget per state file at a time: a second one refuses (exit 2).
      const release = await lockStateFile(stateFile);
      try {
        if (mode === 'forget') return await forgetCommand(options, stateFile);
        if (mode === 'apply' && options.verify) return await verifyMode(options, log, stateFile);
        return mode === 'revert' ? await revertCommand(options, stateFile) : await applyCommand(options, log, stateFile);
      } finally {
        await release();
      }
    }
  } catch (error) {
    // A corrupt or locked state file is exit 2 (errors.ts); a state file that cannot be written is exit 3.
    if (error instanceof StateFileError || error instanceof StateLockedError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw new RunError(`cannot write the state file ${stateFile}: ${(error as Error).message}`);
    throw error;
  }

  const outputTarget = { flag: '--output', inputs: options.from && options.from !== '-' ? [options.from] : [] };
  if (options.output) await planOutput(options.output, outputTarget); // before any work: a bad path is exit 2
  const report = options.from ? await offlineReport(options.from, options, log) : await reportFrom(new LiveHostIO(), options, log);
  const script = renderScript(buildPlan(report));
  if (options.output && options.output !== '-') {
    await writeOutput(options.output, script, outputTarget);
    process.stderr.write(`nicdoctor: wrote ${options.output} (review it, then run it as root)\n`);
  } else {
    process.stdout.write(script);
  }
  return EXIT.ok;
}
