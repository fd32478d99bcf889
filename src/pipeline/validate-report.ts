/**
 * The report is validated before it is emitted (the schema is the contract). When a part of it
 * breaks the schema (a check's finding with a non-finite number, a diagnosis with a bad field),
 * that part is a bug or bad input, not a reason to lose the whole report: the offending finding
 * or diagnosis is dropped and its check becomes `error` with the reason; what is left is
 * validated again. Only a failure outside the checks and diagnoses (the host, the interfaces)
 * still stops the run, with a one-line reason.
 */
import type { z } from 'zod';
import { reportSchema, type CheckResult, type Report } from '../report/schema.js';
import { RunError } from '../util/errors.js';

type Issue = z.core.$ZodIssue;

/** Each pass fixes at least one part; a report has far fewer parts than this. */
const MAX_PASSES = 20;

function describe(issue: Issue): string {
  return `${issue.path.map(String).join('.') || 'report'}: ${issue.message}`;
}

/** Marks a check `error` with the schema's reason (keeping the first reason given). */
function breakCheck(check: CheckResult, reason: string): void {
  if (check.status !== 'error') check.reason = reason;
  check.status = 'error';
  check.error ??= { message: reason };
}

/** Removes what one issue points at; false when it points at no part that can be dropped. */
function dropOffendingPart(report: Report, issue: Issue, dropped: Set<object>): boolean {
  const [top, index, field, inner] = issue.path;
  if (typeof index !== 'number') return false;
  if (top === 'checks') {
    const check = report.checks[index];
    if (!check) return false;
    if (field === 'findings' && typeof inner === 'number' && check.findings[inner]) {
      const finding = check.findings[inner];
      dropped.add(finding);
      breakCheck(
        check,
        `a ${finding.symptom} finding (${finding.subject}) was dropped: ${describe({ ...issue, path: issue.path.slice(4) })}`,
      );
      return true;
    }
    // Anything else of the check: its result cannot be trusted, only its id and title are kept.
    const reason = `its result does not match the report schema: ${describe({ ...issue, path: issue.path.slice(2) })}`;
    report.checks[index] = {
      id: typeof check.id === 'string' ? check.id : `check-${index}`,
      title: typeof check.title === 'string' ? check.title : `check ${index}`,
      status: 'error',
      reason,
      error: { message: reason },
      durationMs: 0,
      subjects: [],
      findings: [],
    };
    return true;
  }
  if (top === 'diagnoses' || top === 'notes' || top === 'refuted') {
    const list = report[top];
    if (!list[index]) return false;
    dropped.add(list[index]);
    return true;
  }
  return false;
}

/**
 * The report, validated; parts that break the schema are dropped as described above, and
 * `recount` refreshes what is derived from the checks (summary, verdict) when anything changed.
 */
export function validateReport(report: Report, recount: (report: Report) => void): Report {
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const parsed = reportSchema.safeParse(report);
    if (parsed.success) return parsed.data;
    const dropped = new Set<object>();
    const fixed = parsed.error.issues.map((issue) => dropOffendingPart(report, issue, dropped));
    const unfixable = parsed.error.issues.find((_, index) => !fixed[index]);
    if (unfixable) throw new RunError(`the report does not match its schema (a bug in nicdoctor): ${describe(unfixable)}`);
    for (const check of report.checks) check.findings = check.findings.filter((finding) => !dropped.has(finding));
    report.diagnoses = report.diagnoses.filter((item) => !dropped.has(item));
    report.notes = report.notes.filter((item) => !dropped.has(item));
    report.refuted = report.refuted.filter((item) => !dropped.has(item));
    recount(report);
  }
  throw new RunError('the report does not match its schema (a bug in nicdoctor)');
}
