/**
 * `fix --apply --verify`: measure, apply one step, measure again, keep it only when it measured
 * better than the noise, else put the values back; then the next step. The state file follows
 * every move (saved before a change runs, updated after each apply and each revert), so a
 * kill -9 at any moment leaves a state `fix --revert` restores; Ctrl-C reverts the step in
 * flight. Kept changes stay in the state file: `fix --revert` undoes them later.
 */
import type { Verification, VerificationMeasurement, VerificationStep } from '../report/verification-schema.js';
import { compareSeries, relativeStandardError, summarize, type Comparison } from '../util/noise.js';
import { onShutdown } from '../util/shutdown.js';
import { requested, runAndVerify, sameValues, snapshot, type FixIO } from './apply.js';
import { currentHostId } from './host-id.js';
import { removeState, writeState, type FixState, type StateEntry } from './state.js';
import { changeArgv, changeText, type Change } from './vocabulary.js';
import type { VerifyStepPlan } from './verify-steps.js';

/** One bench run of the fixed step (src/bench/bench-session.ts). */
export interface Sample {
  bitsPerSecond: number;
  retransmits: number;
  cpuPercent: number | null;
}

export interface LoopOptions {
  /** Runs the changes; its commands must survive Ctrl-C (they undo what was just done). */
  io: FixIO;
  stateFile: string;
  host: string;
  hostId?: string;
  steps: readonly VerifyStepPlan[];
  /** One bench run; throws when it cannot (far end gone, interrupted). */
  run: (label: string) => Promise<Sample>;
  /** Runs per measurement at least; more, up to maxRuns, until the mean's standard error is small. */
  minRuns: number;
  maxRuns: number;
  /** Stop adding runs once the standard error of the mean is below this fraction of it. */
  targetRelativeError: number;
  keepAll: boolean;
  /** The link's goodput ceiling; reaching it ends the loop (nothing left to gain). */
  ceilingBitsPerSecond: number | null;
  /** Above this fraction of the ceiling, the link speed is nominal (a veth): the ceiling is ignored. */
  ceilingFraction: number;
  nominalSpeedFraction: number;
  interrupted: () => boolean;
  say: (line: string) => void;
}

export type LoopRecord = Pick<Verification, 'steps' | 'final' | 'stopReason' | 'complete'> & {
  /** Changes the loop left on the host (kept), in order. */
  kept: { ruleId: string; changes: Change[] }[];
};

class Interrupted extends Error {}

const gbps = (bits: number) => `${(bits / 1e9).toFixed(2)} Gb/s`;

function describe(measurement: VerificationMeasurement): string {
  return `${gbps(measurement.bitsPerSecond)} ± ${gbps(measurement.stdDevBitsPerSecond)} over ${measurement.runs} runs, ${measurement.retransmits.toFixed(0)} retransmits per run`;
}

function toMeasurement(samples: readonly Sample[]): VerificationMeasurement {
  const rates = samples.map((sample) => sample.bitsPerSecond);
  const cpus = samples.map((sample) => sample.cpuPercent).filter((value): value is number => value !== null);
  return {
    runs: samples.length,
    bitsPerSecond: summarize(rates).mean,
    stdDevBitsPerSecond: summarize(rates).stdDev,
    samplesBitsPerSecond: rates,
    retransmits: summarize(samples.map((sample) => sample.retransmits)).mean,
    cpuPercent: cpus.length ? summarize(cpus).mean : null,
  };
}

interface Measured {
  measurement: VerificationMeasurement;
  retransmitSeries: number[];
}

/** Repeats the run until the spread is known: at least minRuns, more while the mean is still uncertain. */
async function measure(options: LoopOptions, label: string): Promise<Measured> {
  const samples: Sample[] = [];
  for (let index = 0; index < options.maxRuns; index += 1) {
    if (options.interrupted()) throw new Interrupted();
    try {
      samples.push(await options.run(`${label}-r${index + 1}`));
    } catch (error) {
      if (options.interrupted()) throw new Interrupted();
      throw error;
    }
    if (samples.length >= options.minRuns) {
      const error = relativeStandardError(summarize(samples.map((sample) => sample.bitsPerSecond)));
      if (error !== null && error <= options.targetRelativeError) break;
    }
  }
  return { measurement: toMeasurement(samples), retransmitSeries: samples.map((sample) => sample.retransmits) };
}

interface Judgement {
  keep: boolean;
  regression: boolean;
  throughput: Comparison;
  reason: string;
}

/** Kept when throughput rose beyond the noise, or retransmits fell beyond theirs with throughput no worse. */
export function judge(before: Measured, after: Measured, keepAll: boolean): Judgement {
  const rate = (measured: Measured) =>
    summarize(measured.measurement.samplesBitsPerSecond.length ? measured.measurement.samplesBitsPerSecond : [0]);
  const throughput = compareSeries(rate(before), rate(after));
  const loss = compareSeries(summarize(before.retransmitSeries), summarize(after.retransmitSeries), false);
  const change = `${throughput.difference >= 0 ? '+' : '−'}${gbps(Math.abs(throughput.difference))}`;
  const margin = `the noise allows ±${gbps(throughput.margin)}`;
  let verdict: Omit<Judgement, 'keep' | 'throughput'>;
  if (throughput.outcome === 'better') verdict = { regression: false, reason: `throughput ${change}, beyond the noise (${margin})` };
  else if (throughput.outcome === 'worse')
    verdict = { regression: true, reason: `throughput ${change}: a regression beyond the noise (${margin})` };
  else if (loss.outcome === 'better')
    verdict = {
      regression: false,
      reason: `retransmits fell from ${before.measurement.retransmits.toFixed(0)} to ${after.measurement.retransmits.toFixed(0)} per run, beyond their noise; throughput ${change} (${margin})`,
    };
  else verdict = { regression: false, reason: `no gain beyond the noise: throughput ${change} (${margin})` };
  const improved = throughput.outcome === 'better' || (throughput.outcome === 'same' && loss.outcome === 'better');
  if (keepAll && !improved) verdict.reason += '; kept (--keep-all)';
  return { ...verdict, keep: improved || keepAll, throughput };
}

/** The state entries of a step's changes, with the values they overwrite read first. */
async function entriesFor(io: FixIO, step: VerifyStepPlan): Promise<{ entry: StateEntry; change: Change }[]> {
  const entries: { entry: StateEntry; change: Change }[] = [];
  for (const change of step.changes) {
    const { before, revert } = await snapshot(io, change);
    entries.push({
      change,
      entry: {
        ruleId: step.ruleId,
        apply: changeArgv(change),
        revert: changeArgv(revert),
        revertOperation: revert,
        operation: change,
        before,
        after: requested(change),
        status: 'pending',
      },
    });
  }
  return entries;
}

/** What the loop does with the state file: every write leaves it valid for --revert. */
class StateKeeper {
  private readonly state: FixState;

  constructor(
    private readonly file: string,
    host: string,
    hostId: string,
  ) {
    this.state = { format: 'nicdoctor-fix-state/1', createdAt: new Date().toISOString(), host, hostId, entries: [] };
  }

  async add(entries: readonly StateEntry[]): Promise<void> {
    this.state.entries.push(...entries);
    await this.save();
  }

  async drop(entries: readonly StateEntry[]): Promise<void> {
    this.state.entries = this.state.entries.filter((entry) => !entries.includes(entry));
    await this.save();
  }

  async save(): Promise<void> {
    if (this.state.entries.length) await writeState(this.file, this.state);
    else await removeState(this.file);
  }
}

/**
 * Puts a step's values back, last change first. An entry whose values are back (or never
 * changed) leaves the state; one that cannot be restored stays, marked, for --revert.
 */
async function revertStep(io: FixIO, keeper: StateKeeper, entries: readonly { entry: StateEntry; change: Change }[]): Promise<string[]> {
  const failures: string[] = [];
  const restored: StateEntry[] = [];
  for (const { entry, change } of [...entries].reverse()) {
    try {
      const now = (await snapshot(io, change)).before;
      if (!sameValues(entry.before, now)) await runAndVerify(io, entry.revertOperation as Change);
      restored.push(entry);
    } catch (error) {
      entry.status = 'revert-failed';
      entry.error = (error as Error).message;
      failures.push(`${changeText(change)}: ${(error as Error).message}`);
    }
  }
  await keeper.drop(restored);
  if (failures.length) await keeper.save();
  return failures;
}

function stepRecord(
  step: VerifyStepPlan,
  fields: Partial<VerificationStep> & Pick<VerificationStep, 'verdict' | 'reason'>,
): VerificationStep {
  return {
    ruleId: step.ruleId,
    operations: step.changes.map(changeText),
    disruptive: step.disruptive,
    before: null,
    after: null,
    differenceBitsPerSecond: null,
    marginBitsPerSecond: null,
    outcome: null,
    ...fields,
  };
}

/** The ceiling, unless the bench already went past it (a nominal speed, as a veth reports). */
function ceilingReached(options: LoopOptions, bitsPerSecond: number): boolean {
  const ceiling = options.ceilingBitsPerSecond;
  if (!ceiling) return false;
  if (bitsPerSecond > ceiling * options.nominalSpeedFraction) return false;
  return bitsPerSecond >= ceiling * options.ceilingFraction;
}

export async function runVerifyLoop(options: LoopOptions): Promise<LoopRecord> {
  const { io, say } = options;
  const keeper = new StateKeeper(options.stateFile, options.host, options.hostId ?? currentHostId());
  const record: LoopRecord = { steps: [], final: null, stopReason: '', complete: false, kept: [] };
  // The step whose changes are on the host but not yet judged: Ctrl-C puts it back.
  let inFlight: { entries: { entry: StateEntry; change: Change }[]; reverting?: Promise<string[]> } | null = null;
  const revertInFlight = async () => {
    if (!inFlight) return [];
    inFlight.reverting ??= revertStep(io, keeper, inFlight.entries);
    return inFlight.reverting;
  };
  const unregister = onShutdown(async () => {
    await revertInFlight();
  });
  let current: Measured;
  try {
    try {
      say('measuring the host as it is');
      current = await measure(options, 'baseline');
    } catch (error) {
      if (error instanceof Interrupted) {
        record.stopReason = 'interrupted before the first measurement; nothing changed';
        return record;
      }
      throw error;
    }
    say(`baseline: ${describe(current.measurement)}`);
    record.final = current.measurement;
    if (ceilingReached(options, current.measurement.bitsPerSecond)) {
      record.stopReason = `the bench already reaches the link's ceiling (${gbps(options.ceilingBitsPerSecond!)}): no change was made`;
      record.complete = true;
      return record;
    }
    for (const step of options.steps) {
      const text = step.changes.map(changeText).join('; ');
      if (step.disruptive) say(`next is disruptive (the link may reset briefly): ${text}`);
      say(`applying ${text} (${step.ruleId})`);
      let entries: { entry: StateEntry; change: Change }[];
      try {
        entries = await entriesFor(io, step);
      } catch (error) {
        record.steps.push(stepRecord(step, { verdict: 'failed', reason: `not made: ${(error as Error).message}` }));
        continue;
      }
      await keeper.add(entries.map(({ entry }) => entry));
      inFlight = { entries };
      let failure: string | null = null;
      for (const { entry, change } of entries) {
        try {
          await runAndVerify(io, change);
          entry.status = 'applied';
        } catch (error) {
          failure = (error as Error).message;
          entry.status = 'partial';
          break;
        }
      }
      await keeper.save();
      if (failure) {
        const left = await revertInFlight();
        inFlight = null;
        record.steps.push(
          stepRecord(step, {
            verdict: 'failed',
            reason: `${failure}; ${left.length ? `could not restore: ${left.join('; ')} (kept in the state file)` : 'the values before were put back'}`,
          }),
        );
        continue;
      }
      let after: Measured;
      try {
        after = await measure(options, `step${record.steps.length + 1}`);
      } catch (error) {
        const left = await revertInFlight();
        inFlight = null;
        const why = error instanceof Interrupted ? 'interrupted' : (error as Error).message;
        record.steps.push(
          stepRecord(step, {
            before: current.measurement,
            verdict: error instanceof Interrupted ? 'interrupted' : 'failed',
            reason: `${why} while measuring; ${left.length ? `could not restore: ${left.join('; ')}` : 'reverted'}`,
          }),
        );
        record.stopReason = error instanceof Interrupted ? 'interrupted: the step in flight was reverted' : `the bench failed: ${why}`;
        if (error instanceof Interrupted) return record;
        throw error;
      }
      const judgement = judge(current, after, options.keepAll);
      say(`after: ${describe(after.measurement)}: ${judgement.keep ? 'kept' : 'reverted'}, ${judgement.reason}`);
      const fields = {
        before: current.measurement,
        after: after.measurement,
        differenceBitsPerSecond: judgement.throughput.difference,
        marginBitsPerSecond: judgement.throughput.margin,
        outcome: judgement.throughput.outcome,
      };
      if (judgement.keep) {
        inFlight = null;
        record.steps.push(stepRecord(step, { ...fields, verdict: 'kept', reason: judgement.reason }));
        record.kept.push({ ruleId: step.ruleId, changes: step.changes });
        current = after;
      } else {
        const left = await revertInFlight();
        inFlight = null;
        record.steps.push(
          stepRecord(step, {
            ...fields,
            verdict: left.length ? 'failed' : 'reverted',
            reason: left.length ? `${judgement.reason}; could not restore: ${left.join('; ')}` : judgement.reason,
          }),
        );
      }
      record.final = current.measurement;
      if (judgement.regression && !options.keepAll) {
        record.stopReason = 'stopped at the first regression';
        record.complete = true;
        return record;
      }
      if (ceilingReached(options, current.measurement.bitsPerSecond)) {
        record.stopReason = `the link's ceiling is reached (${gbps(options.ceilingBitsPerSecond!)})`;
        record.complete = true;
        return record;
      }
    }
    record.stopReason = options.steps.length ? 'every step was measured' : 'no change to measure';
    record.complete = true;
    return record;
  } finally {
    unregister();
  }
}
