import type { Report } from './schema.js';

type Verdict = NonNullable<Report['verdict']>;

/**
 * The doctor's answer in one line, like a clinician's: the most likely bottleneck, or "No
 * bottleneck found" with what was examined and what could not be, so that a quiet report is
 * never mistaken for a complete one.
 */
export function reportVerdict(report: Pick<Report, 'interfaces' | 'checks' | 'diagnoses' | 'bench' | 'skippedInterfaces'>): Verdict {
  const examined: string[] = [];
  const notExamined: string[] = [];
  if (report.interfaces.length)
    examined.push(`interfaces: ${report.interfaces.map((iface) => `${iface.name} (${iface.kind})`).join(', ')}`);
  const passed = report.checks.filter((check) => check.status === 'pass' || check.status === 'fail').map((check) => check.id);
  if (passed.length) examined.push(`checks with a verdict: ${passed.join(', ')}`);
  if (report.bench?.result)
    examined.push(`bench: ${(report.bench.result.bitsPerSecond / 1e9).toFixed(2)} Gb/s with ${report.bench.result.processes} process(es)`);
  for (const check of report.checks) {
    if (check.status === 'unknown') notExamined.push(`${check.id}: ${check.reason ?? 'unknown'}${check.hint ? ` (${check.hint})` : ''}`);
    else if (check.status === 'error') notExamined.push(`${check.id}: the check broke (${check.error?.message ?? 'error'})`);
  }
  if (!report.bench) notExamined.push('throughput: no bench was run (add --peer HOST or --loopback)');

  const top = report.diagnoses[0];
  if (top) {
    const others = report.diagnoses.length - 1;
    const where = top.subject === 'host' ? 'host' : top.subject;
    return {
      status: 'bottleneck',
      headline: `Most likely bottleneck: ${top.title} (${where}, ${top.confidence} confidence)${others > 0 ? `; ${others} more cause${others > 1 ? 's' : ''} below` : ''}`,
      examined,
      notExamined,
    };
  }
  const serious = report.checks.flatMap((check) => check.findings).filter((finding) => finding.severity !== 'info');
  if (serious.length) {
    return {
      status: 'inconclusive',
      headline: `No ranked cause, but ${serious.length} finding${serious.length > 1 ? 's' : ''} at warning level or above: see below`,
      examined,
      notExamined,
    };
  }
  if (report.interfaces.length === 0 && !report.bench) {
    return { status: 'inconclusive', headline: 'Nothing to examine: no interface was found or selected', examined, notExamined };
  }
  const measured = report.bench?.result ? ` (bench: ${(report.bench.result.bitsPerSecond / 1e9).toFixed(2)} Gb/s)` : '';
  return { status: 'no-bottleneck', headline: `No bottleneck found${measured}`, examined, notExamined };
}
