/**
 * `nicdoctor fix --apply --verify`: the closed loop. Diagnose, calibrate the bench once, measure,
 * then apply the fixes one diagnosis at a time and keep each only when the bench measured it
 * better than the noise (src/fix/verify-loop.ts). Progress goes to stderr; the report, with its
 * `verification` section, to stdout or --output in --format.
 */
import type { Logger } from 'pino';
import { checks as registry } from '../../checks/index.js';
import { scan } from '../pipeline/scan.js';
import { hostFactStore } from '../pipeline/host-facts.js';
import { LiveHostIO } from '../hostio/live.js';
import type { Report } from '../report/schema.js';
import type { Verification } from '../report/verification-schema.js';
import { DEFAULT_RAMP_POLICY } from '../bench/ramp.js';
import { openBenchSession, type BenchSession } from '../bench/bench-session.js';
import { clientAuthFromEnv } from '../bench/iperf3-auth.js';
import type { FixIO } from '../fix/apply.js';
import { buildPlan } from '../fix/plan.js';
import { readState } from '../fix/state.js';
import { selectSteps } from '../fix/verify-steps.js';
import { runVerifyLoop } from '../fix/verify-loop.js';
import { persistentForKept } from '../fix/verify-persistent.js';
import { changeText } from '../fix/vocabulary.js';
import { shutdownSignal } from '../util/shutdown.js';
import type { Format } from '../reporters/index.js';
import { benchPlan, type BenchCliOptions } from './bench-commands.js';
import { checkOutputs, emit, scanInputs, type ReportOptions } from './commands.js';
import { failureOf, UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';

export interface VerifyCliOptions extends BenchCliOptions {
  keepAll?: boolean;
  allowDisruptive?: boolean;
  /** Runs per measurement at least (more until the spread settles, up to twice as many). */
  runs: number;
  format: Format;
  output?: string;
}

/** The standard error of the mean the runs aim for, as a fraction of it. */
const TARGET_RELATIVE_ERROR = 0.02;

const say = (line: string) => process.stderr.write(`nicdoctor fix --verify: ${line}\n`);

/** The changes themselves must finish even on Ctrl-C: they put back what was just changed. */
function survivingIO(io: LiveHostIO): FixIO {
  return {
    exec: (argv, options) => io.exec(argv, { ...options, survivesShutdown: true }),
    readFile: (file) => io.readFile(file),
  };
}

export async function verifyCommand(
  options: ReportOptions & VerifyCliOptions & { yes?: boolean; state?: string },
  log: Logger,
  stateFile: string,
  confirm: (question: string) => Promise<boolean>,
): Promise<number> {
  // The loop runs for minutes: refuse before it starts, not at the question after the calibration.
  if (!options.yes && !(process.stdin.isTTY && process.stderr.isTTY))
    throw new UsageError('refusing to change the host without confirmation: no terminal to ask on; add --yes to confirm non-interactively');
  const auth = clientAuthFromEnv();
  if (!auth.ok) throw new UsageError(auth.reason);
  await checkOutputs(options, []);
  const io = new LiveHostIO();
  const benchOptions = benchPlan(options, io, log); // every bench option checked before the host is touched
  if ((await readState(stateFile)) !== null)
    throw new UsageError(
      `${stateFile} already holds changes from an earlier --apply: run \`nicdoctor fix --revert${options.state ? ` --state ${options.state}` : ''}\` first, or choose another --state file`,
    );
  const outcome = await scan({ io, checks: registry, log, ...scanInputs(options) });
  const failure = failureOf(outcome);
  if (failure) throw failure;
  const report: Report = outcome.report;
  const plan = buildPlan(report);

  say('calibrating the bench (the ramp picks the processes and streams every measurement then uses)');
  let session: BenchSession;
  try {
    session = await openBenchSession({
      ...benchOptions,
      store: hostFactStore(io, log),
      freshStore: () => hostFactStore(io, log),
      onProgress: say,
    });
  } catch (error) {
    if (shutdownSignal.aborted) return EXIT.interrupted;
    throw error;
  }
  try {
    const selection = selectSteps(plan, {
      examined: new Set(report.interfaces.map((entry) => entry.name)),
      benchInterface: session.plan.iface,
      allowDisruptive: Boolean(options.allowDisruptive),
    });
    say(
      `${selection.steps.length} step(s), each measured with ${session.processes} process(es) x ${session.streamsPerProcess} stream(s) x ${session.durationSeconds} s, ${options.runs}+ runs:`,
    );
    for (const [index, step] of selection.steps.entries())
      say(`  ${index + 1}. ${step.changes.map(changeText).join('; ')}    # ${step.ruleId}${step.disruptive ? ' (disruptive)' : ''}`);
    for (const note of selection.notes) say(`  ${note}`);
    const verification: Verification = {
      mode: session.plan.mode,
      peer: session.plan.host,
      interface: session.plan.iface,
      processes: session.processes,
      streamsPerProcess: session.streamsPerProcess,
      durationSeconds: session.durationSeconds,
      ceilingBitsPerSecond: session.plan.ceilingBitsPerSecond,
      keepAll: Boolean(options.keepAll),
      allowDisruptive: Boolean(options.allowDisruptive),
      steps: [],
      final: null,
      stopReason: 'not confirmed: nothing changed',
      complete: false,
      notes: selection.notes,
      persistent: [],
    };
    if (selection.steps.length && !(await confirm(`Apply and measure these ${selection.steps.length} step(s) on ${plan.host}?`))) {
      say('not confirmed: nothing changed');
    } else {
      const loop = await runVerifyLoop({
        io: survivingIO(io),
        stateFile,
        host: report.host.hostname,
        steps: selection.steps,
        run: (label) => session.run(label),
        minRuns: options.runs,
        maxRuns: options.runs * 2,
        targetRelativeError: TARGET_RELATIVE_ERROR,
        keepAll: Boolean(options.keepAll),
        ceilingBitsPerSecond: session.plan.ceilingBitsPerSecond,
        ceilingFraction: DEFAULT_RAMP_POLICY.ceilingFraction,
        nominalSpeedFraction: DEFAULT_RAMP_POLICY.nominalSpeedFraction,
        interrupted: () => shutdownSignal.aborted,
        say,
      });
      Object.assign(verification, {
        steps: loop.steps,
        final: loop.final,
        stopReason: loop.stopReason,
        complete: loop.complete,
        persistent: persistentForKept(report, loop.kept),
      });
      say(loop.stopReason);
      if (loop.kept.length)
        say(
          `kept changes are saved in ${stateFile}; undo them with: nicdoctor fix --revert${options.state ? ` --state ${options.state}` : ''}`,
        );
    }
    await emit({ ...report, verification }, options);
    if (shutdownSignal.aborted) return EXIT.interrupted;
    return verification.steps.some((step) => step.verdict === 'failed') ? EXIT.findings : EXIT.ok;
  } finally {
    await session.close();
  }
}
