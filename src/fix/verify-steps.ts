/**
 * The steps of `fix --apply --verify`: one per diagnosis, in diagnosis order, each the
 * whitelisted changes of its fixes. A change is left out (with the reason, for the report)
 * when it is on an interface the run did not examine, when the bench cannot see it (the
 * traffic does not cross that interface), or when it is disruptive and not allowed.
 */
import type { ApplyItem, FixPlan } from './plan.js';
import { changeText, type Change } from './vocabulary.js';

export interface VerifyStepPlan {
  ruleId: string;
  changes: Change[];
  disruptive: boolean;
}

export interface StepSelection {
  steps: VerifyStepPlan[];
  /** What was left out and why. */
  notes: string[];
}

export interface StepScope {
  /** Interfaces the scan examined. */
  examined: ReadonlySet<string>;
  /** The interface the bench traffic leaves by; null on loopback, which crosses no NIC. */
  benchInterface: string | null;
  allowDisruptive: boolean;
}

/** Why a change cannot be part of a measured step, or null when it can. */
function exclusion(change: Change, scope: StepScope): string | null {
  if (change.kind === 'sysctl') return null;
  if (!scope.examined.has(change.iface)) return `${change.iface} was not examined by this run`;
  if (scope.benchInterface === null) return `the loopback bench does not cross ${change.iface}: the change cannot be measured`;
  if (change.iface !== scope.benchInterface)
    return `the bench traffic leaves by ${scope.benchInterface}, not ${change.iface}: the change cannot be measured`;
  return null;
}

export function selectSteps(plan: FixPlan, scope: StepScope): StepSelection {
  const notes: string[] = [];
  const byRule = new Map<string, VerifyStepPlan>();
  const add = (items: readonly ApplyItem[], disruptive: boolean) => {
    for (const item of items) {
      const reason = exclusion(item.change, scope);
      if (reason) {
        notes.push(`not applied: ${changeText(item.change)} (${item.ruleId}): ${reason}`);
        continue;
      }
      if (disruptive && !scope.allowDisruptive) {
        notes.push(`not applied: ${changeText(item.change)} (${item.ruleId}): disruptive (the link may reset); --allow-disruptive runs it`);
        continue;
      }
      const key = `${item.ruleId}\u0000${disruptive ? 'd' : 'n'}`;
      const step = byRule.get(key) ?? { ruleId: item.ruleId, changes: [], disruptive };
      step.changes.push(item.change);
      byRule.set(key, step);
    }
  };
  add(plan.apply, false);
  add(plan.disruptiveApply, true);
  for (const item of plan.notApplied) notes.push(`not applied: ${item.text} (${item.ruleId}): ${item.reason}`);
  // Diagnosis order: the rank of each rule's first diagnosis; a rule's gentle changes before its disruptive ones.
  const rank = new Map<string, number>();
  plan.diagnoses.forEach((entry, index) => {
    if (!rank.has(entry.diagnosis.ruleId)) rank.set(entry.diagnosis.ruleId, index);
  });
  const steps = [...byRule.values()].sort(
    (a, b) =>
      (rank.get(a.ruleId) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.ruleId) ?? Number.MAX_SAFE_INTEGER) ||
      Number(a.disruptive) - Number(b.disruptive),
  );
  return { steps, notes };
}
