/**
 * One fix per finding: a finding that a diagnosis explains shows that diagnosis's fix (the
 * highest-ranked diagnosis that names it as evidence), so the finding list and the diagnoses
 * never propose two different remedies for the same observation. Findings no diagnosis explains
 * keep their check's own fix.
 */
import type { DiagnosisEntry, Finding, Report } from '../report/schema.js';

/** The fix as one line: its text, then the commands it runs. */
export function fixSentence(fix: DiagnosisEntry['fixes'][number]): string {
  return fix.commands.length ? `${fix.text} ${fix.commands.join('; ')}` : fix.text;
}

export function fixFindingsFromDiagnoses(report: Report): void {
  const findings = [...report.checks.flatMap((check) => check.findings), ...(report.bench?.findings ?? [])];
  const done = new Set<Finding>();
  for (const diagnosis of report.diagnoses) {
    const fix = diagnosis.fixes[0];
    if (!fix) continue;
    const sentence = fixSentence(fix);
    for (const item of diagnosis.evidence) {
      if (!('check' in item)) continue;
      for (const finding of findings) {
        if (done.has(finding) || finding.check !== item.check || finding.symptom !== item.symptom || finding.subject !== item.subject)
          continue;
        finding.fix = sentence;
        done.add(finding);
      }
    }
  }
}
