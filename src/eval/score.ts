import { execFile } from 'node:child_process';
import type { EvalCase, LabelItem } from './labels.js';

/** What the evaluation reads of a diagnosis in `nicdoctor analyze --format json`. */
export interface Alarm {
  ruleId: string;
  cause: number;
  subject: string;
  confidence?: string;
  /** The strongest severity of the findings behind it (critical, warning, info). */
  severity?: string;
  mode?: string;
}

export interface CaseResult {
  name: string;
  environment: string;
  verdict: string;
  right: boolean;
  expectedFound: number;
  /** Expectations matched by an alarm of warning severity or above (what a user cannot overlook). */
  expectedFoundAtWarning: number;
  expected: number;
  /** Expectations no alarm matched. */
  missed: LabelItem[];
  /** Alarms matching a forbid entry, or matching nothing in expect/allow. */
  falseAlarms: Alarm[];
  /** Set when analyze could not produce a report: the case counts as wrong. */
  error?: string;
}

export interface Totals {
  cases: number;
  right: number;
  expected: number;
  found: number;
  foundAtWarning: number;
  falseAlarms: number;
  errors: number;
}

export function matches(item: LabelItem, alarm: Alarm): boolean {
  return (
    item.cause === alarm.cause &&
    (item.subject === undefined || item.subject === alarm.subject) &&
    (item.rules === undefined || item.rules.includes(alarm.ruleId))
  );
}

/**
 * Alarms are the diagnoses a user is told about: every diagnosis the measurement did not
 * refute. Notes (a separate `notes[]`, when the report has one) are never alarms.
 */
export function alarmsOf(report: unknown): Alarm[] {
  // A text that names several hosts gives one report each: what the user is told is all of them.
  if (Array.isArray(report)) return report.flatMap((one) => alarmsOf(one));
  const diagnoses = (report as { diagnoses?: unknown }).diagnoses;
  if (!Array.isArray(diagnoses)) throw new Error('the JSON report has no diagnoses[] array');
  return diagnoses
    .filter(
      (diagnosis): diagnosis is Alarm =>
        typeof diagnosis === 'object' && diagnosis !== null && typeof (diagnosis as Alarm).ruleId === 'string',
    )
    .filter((diagnosis) => diagnosis.mode !== 'refuted')
    .map(({ ruleId, cause, subject, confidence, severity, mode }) => ({ ruleId, cause, subject, confidence, severity, mode }));
}

const AT_WARNING = new Set(['warning', 'critical']);

/** RIGHT = every expectation met, no forbidden alarm, no alarm the label does not account for. */
export function scoreCase(evalCase: EvalCase, alarms: Alarm[]): CaseResult {
  const { label } = evalCase;
  const missed = label.expect.filter((item) => !alarms.some((alarm) => matches(item, alarm)));
  const atWarning = label.expect.filter((item) =>
    alarms.some((alarm) => matches(item, alarm) && alarm.severity !== undefined && AT_WARNING.has(alarm.severity)),
  );
  const falseAlarms = alarms.filter(
    (alarm) => label.forbid.some((item) => matches(item, alarm)) || ![...label.expect, ...label.allow].some((item) => matches(item, alarm)),
  );
  return {
    name: evalCase.name,
    environment: label.environment,
    verdict: label.verdict,
    right: missed.length === 0 && falseAlarms.length === 0,
    expectedFound: label.expect.length - missed.length,
    expectedFoundAtWarning: atWarning.length,
    expected: label.expect.length,
    missed,
    falseAlarms,
  };
}

export function errorResult(evalCase: EvalCase, error: string): CaseResult {
  const { label } = evalCase;
  return {
    name: evalCase.name,
    environment: label.environment,
    verdict: label.verdict,
    right: false,
    expectedFound: 0,
    expectedFoundAtWarning: 0,
    expected: label.expect.length,
    missed: label.expect,
    falseAlarms: [],
    error,
  };
}

export function totalsOf(results: CaseResult[]): Totals {
  return {
    cases: results.length,
    right: results.filter((result) => result.right).length,
    expected: results.reduce((sum, result) => sum + result.expected, 0),
    found: results.reduce((sum, result) => sum + result.expectedFound, 0),
    foundAtWarning: results.reduce((sum, result) => sum + result.expectedFoundAtWarning, 0),
    falseAlarms: results.reduce((sum, result) => sum + result.falseAlarms.length, 0),
    errors: results.filter((result) => result.error !== undefined).length,
  };
}

const ANALYZE_TIMEOUT_MS = 60_000;

/**
 * Runs the built CLI on the case's input, as a user would. Exit 0 and 1 both carry a report
 * (1 = a finding at or above --fail-on); anything else, or output that is not JSON, is an error.
 */
export function runAnalyze(cliPath: string, input: string): Promise<{ report?: unknown; error?: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliPath, 'analyze', input, '--format', 'json'],
      { timeout: ANALYZE_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        if (error && code !== 1) {
          const reason = error.killed ? `timed out after ${ANALYZE_TIMEOUT_MS / 1000} s` : `exit ${code ?? error.code ?? error.signal}`;
          resolve({ error: `${reason}: ${firstLine(stderr) || firstLine(stdout) || error.message}` });
          return;
        }
        try {
          resolve({ report: JSON.parse(stdout) });
        } catch {
          resolve({ error: `exit ${code}: not a JSON report: ${firstLine(stderr) || firstLine(stdout)}` });
        }
      },
    );
  });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
}

export async function evaluateCase(cliPath: string, evalCase: EvalCase): Promise<CaseResult> {
  return scoreAnalysis(evalCase, await runAnalyze(cliPath, evalCase.input));
}

/** The case's result from what analyze gave: its report, or why there is none. */
export function scoreAnalysis(evalCase: EvalCase, { report, error }: { report?: unknown; error?: string }): CaseResult {
  if (error !== undefined) return errorResult(evalCase, error);
  try {
    return scoreCase(evalCase, alarmsOf(report));
  } catch (reason) {
    return errorResult(evalCase, (reason as Error).message);
  }
}
