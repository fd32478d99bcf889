/**
 * The one mapping from an error to an exit code (README: "Exit codes"), and the one place that
 * prints it. Every command's failure reaches `reportError` in cli.ts:
 * - commander's own errors (unknown option, bad value from an argParser, missing argument): 2,
 *   help and --version: 0;
 * - UsageError (bad usage or unreadable input), and the lower layers' errors about an input
 *   (INPUT_ERRORS): 2;
 * - RunError and the lower layers' errors about a failed run (RUN_ERRORS), and anything
 *   unexpected (nicdoctor could not do what was asked): 3.
 * UsageError and RunError live in src/util so that every layer may throw them; the CLI's own
 * error (below) adds only what commander needs to name the option.
 */
import { CommanderError, InvalidArgumentError } from 'commander';
import { RunError, UsageError } from '../util/errors.js';
import type { ScanOutcome } from '../pipeline/scan.js';
import { EXIT } from './exit-codes.js';
import { visibleControls } from '../reporters/escape.js';

export { RunError, UsageError };

/**
 * A bad option value, thrown by the argParsers (options.ts). Commander catches it and prints
 * "option '--duration <seconds>' argument 'x' is invalid. <reason>": the option is always named.
 */
export class OptionValueError extends InvalidArgumentError {
  override name = 'OptionValueError';
}

/**
 * Errors of lower layers that mean "this input cannot be used": a snapshot, bundle or
 * collect-script archive that is missing or corrupt, a fix state file that is corrupt or locked.
 * Matched by name (each class sets it) so that their modules still load only when used.
 */
const INPUT_ERRORS = new Set(['SnapshotError', 'BundleError', 'SnapshotArchiveError', 'StateFileError', 'StateLockedError']);

function isInputError(error: unknown): boolean {
  return error instanceof UsageError || (error instanceof Error && INPUT_ERRORS.has(error.name));
}

export function exitCodeOf(error: unknown): number {
  // Help and version are not errors; everything else commander rejects is bad usage.
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (isInputError(error)) return EXIT.usage;
  return EXIT.couldNotRun;
}

/**
 * Prints the error (one line; the stack only with --verbose, and only for an unexpected error)
 * and returns its exit code. Commander has printed its own errors already.
 */
export function reportError(error: unknown, verbose: boolean): number {
  if (error instanceof CommanderError) return exitCodeOf(error);
  const expected = isInputError(error) || error instanceof RunError;
  const text = error instanceof Error ? (verbose && !expected ? (error.stack ?? error.message) : error.message) : String(error);
  // Messages quote file names and evidence: their control characters are shown, not obeyed.
  process.stderr.write(`nicdoctor: ${expected ? '' : 'could not run: '}${visibleControls(text)}\n`);
  return exitCodeOf(error);
}

/**
 * Why a finished scan did not do its job, as the error that gives its exit code; null when it
 * did. An interface list that cannot be read is bad input offline (the snapshot, bundle or text
 * at `sourcePath`: exit 2) and a failure to run on a live host (exit 3); a bench that could not
 * finish (peer unreachable, port in use) is exit 3, its partial results in the report.
 */
export function failureOf(outcome: ScanOutcome, sourcePath?: string): UsageError | RunError | null {
  const interfaces = outcome.store.runs.find((run) => run.fact === 'interfaces');
  if (interfaces && !interfaces.ok) {
    const why = interfaces.error?.message ?? 'unknown error';
    return sourcePath
      ? new UsageError(`${sourcePath}: the interface list cannot be read: ${why}`)
      : new RunError(`could not list the network interfaces: ${why}`);
  }
  const bench = outcome.report.bench;
  if (bench && !bench.complete) return new RunError(`the bench did not finish: ${bench.error ?? 'unknown error'}`);
  return null;
}
