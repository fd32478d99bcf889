/**
 * `nicdoctor fix --revert`. The state file is input like any other, so an entry is restored
 * only when it is something nicdoctor itself would have done: its change and its restoring
 * operation are applicable kinds accepted by their schemas, on the same interface or key, the
 * restoring operation sets exactly the recorded `before` values, the change exactly the
 * recorded `after` values, the state was saved on this host and network namespace, and the
 * host still holds the values nicdoctor left there (`after`, or `before` where a killed apply
 * never got to them). Anything else is refused and left alone: a tampered or stale state
 * cannot make root set a value nicdoctor never changed.
 */
import { checkOperation, ethtoolSettings, isApplicable } from './operations.js';
import { currentHostId } from './host-id.js';
import { requested, runAndVerify, sameValues, snapshot, type FixIO } from './apply.js';
import { removeState, writeState, type FixState, type StateEntry } from './state.js';
import { changeArgv, type Change } from './vocabulary.js';

export type RevertStep = { entry: StateEntry } & (
  | { kind: 'run'; op: Change; sets: Record<string, string> }
  /** The host already holds every `before` value (an apply killed before it ran): nothing to run. */
  | { kind: 'restored'; op: Change; sets: Record<string, string> }
  | { kind: 'refused'; reason: string }
);

export interface RevertResult {
  command: string[];
  ok: boolean;
  /** Refused by the checks above: nothing was run for it. */
  refused?: boolean;
  error?: string;
}

const describeValues = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

function typed(candidate: unknown, what: string): { ok: true; op: Change } | { ok: false; reason: string } {
  if (candidate === undefined) return { ok: false, reason: `no typed ${what} (saved by an older nicdoctor): check and run it by hand` };
  const checked = checkOperation(candidate);
  if (!checked.ok) return checked;
  if (!isApplicable(checked.op)) return { ok: false, reason: `${checked.op.kind} is not an operation nicdoctor applies` };
  return { ok: true, op: checked.op };
}

const target = (op: Change) => (op.kind === 'sysctl' ? `sysctl ${op.key}` : `${op.kind} ${op.iface}`);

const sameRecord = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && sameValues(a, b);

/** Why an entry is not something nicdoctor would have saved, or its two operations. */
function checkEntry(entry: StateEntry): { ok: true; change: Change; revert: Change } | { ok: false; reason: string } {
  const revert = typed(entry.revertOperation, 'restoring operation');
  if (!revert.ok) return revert;
  const change = typed(entry.operation, 'change');
  if (!change.ok) return change;
  if (target(change.op) !== target(revert.op))
    return { ok: false, reason: `it restores ${target(revert.op)}, but the change was to ${target(change.op)}` };
  if (!entry.after || !sameRecord(requested(change.op), entry.after))
    return { ok: false, reason: `the recorded values after the change (${describeValues(entry.after ?? {})}) are not what it sets` };
  if (!sameRecord(requested(revert.op), entry.before))
    return {
      ok: false,
      reason: `it would set ${describeValues(requested(revert.op))}, not the recorded values before the change (${describeValues(entry.before)})`,
    };
  if (revert.op.kind !== 'sysctl' && ethtoolSettings(revert.op).length === 0) return { ok: false, reason: 'it sets nothing' };
  return { ok: true, change: change.op, revert: revert.op };
}

/** What --revert does with each entry, last change first; reads the current values, changes nothing. */
export async function planRevert(io: FixIO, state: FixState, hostId = currentHostId()): Promise<RevertStep[]> {
  const steps: RevertStep[] = [];
  for (const entry of [...state.entries].reverse()) {
    if (state.hostId !== hostId) {
      steps.push({
        entry,
        kind: 'refused',
        reason:
          state.hostId === undefined
            ? 'the state does not say which host it was saved on (an older nicdoctor)'
            : `saved on another host or network namespace (${state.hostId}; this is ${hostId})`,
      });
      continue;
    }
    const checked = checkEntry(entry);
    if (!checked.ok) {
      steps.push({ entry, kind: 'refused', reason: checked.reason });
      continue;
    }
    let now: Record<string, string>;
    try {
      now = (await snapshot(io, checked.change)).before;
    } catch (error) {
      steps.push({ entry, kind: 'refused', reason: `cannot read the current values: ${(error as Error).message}` });
      continue;
    }
    const after = entry.after!;
    const changedSince = Object.keys(after).filter((key) => now[key] !== after[key] && now[key] !== entry.before[key]);
    if (changedSince.length) {
      steps.push({
        entry,
        kind: 'refused',
        reason: `changed since nicdoctor set it: ${changedSince.map((key) => `${key} is ${now[key]}, not ${after[key]}`).join(', ')}; left alone`,
      });
      continue;
    }
    const sets = requested(checked.revert);
    steps.push({ entry, kind: sameValues(entry.before, now) ? 'restored' : 'run', op: checked.revert, sets });
  }
  return steps;
}

/** One line per step, for the confirmation: exactly what will be set, and what is refused and why. */
export function describeRevert(steps: readonly RevertStep[], quote: (argv: string[]) => string): string[] {
  const lines: string[] = [];
  const run = steps.filter((step) => step.kind === 'run');
  const restored = steps.filter((step) => step.kind === 'restored');
  const refused = steps.filter((step) => step.kind === 'refused');
  if (run.length) {
    lines.push('Will run:');
    for (const step of run) lines.push(`  ${quote(changeArgv(step.op))}    # sets ${describeValues(step.sets)} (${step.entry.ruleId})`);
  }
  if (restored.length) {
    lines.push('Already at the saved values (nothing to run):');
    for (const step of restored) lines.push(`  ${describeValues(step.sets)}    # ${step.entry.ruleId}`);
  }
  if (refused.length) {
    lines.push('Refused (not run, kept in the state file):');
    for (const step of refused) lines.push(`  ${quote(step.entry.revert)}    # ${step.entry.ruleId}: ${step.reason}`);
  }
  return lines;
}

/** Runs the accepted steps; refused and failed entries stay in the state, the rest leave it. */
export async function revertChanges(io: FixIO, state: FixState, stateFile: string, hostId = currentHostId()): Promise<RevertResult[]> {
  const results: RevertResult[] = [];
  const remaining: StateEntry[] = [];
  for (const step of await planRevert(io, state, hostId)) {
    if (step.kind === 'refused') {
      results.push({ command: step.entry.revert, ok: false, refused: true, error: `refused: ${step.reason}` });
      remaining.unshift({ ...step.entry, status: 'revert-failed', error: step.reason });
      continue;
    }
    if (step.kind === 'restored') {
      results.push({ command: changeArgv(step.op), ok: true });
      continue;
    }
    try {
      await runAndVerify(io, step.op);
      results.push({ command: changeArgv(step.op), ok: true });
    } catch (error) {
      results.push({ command: changeArgv(step.op), ok: false, error: (error as Error).message });
      remaining.unshift({ ...step.entry, status: 'revert-failed', error: (error as Error).message });
    }
  }
  if (remaining.length) await writeState(stateFile, { ...state, entries: remaining });
  else await removeState(stateFile);
  return results;
}
