import type { Report } from './schema.js';

type Verdict = NonNullable<Report['verdict']>;

/**
 * How much of a capture must be judged before a quiet report may say "No bottleneck found". Below
 * this share of the checks that apply (pass or fail, out of all but the not-applicable ones), the
 * silence is the capture's, not the host's: a pasted ticket with one ethtool output lets two or
 * three of twenty checks judge, and a clean result from those says nothing about the rest.
 */
export const VERDICT_COVERAGE = {
  minJudgedShare: 0.5,
  reason: 'a quiet report speaks for the checks that could judge; below half of those that apply, most of the host was not seen',
} as const;

/** The bench's own check: its absence is reported on its own line, not counted as a missing output. */
const BENCH_CHECK = 'throughput';

type VerdictInput = Pick<Report, 'interfaces' | 'checks' | 'diagnoses' | 'bench' | 'skippedInterfaces'> & Partial<Pick<Report, 'askFor'>>;

/**
 * The doctor's answer in one line, like a clinician's: the most likely bottleneck, "No bottleneck
 * found" with what was examined, or "Inconclusive" when too little could be examined, so that a
 * quiet report is never mistaken for a complete one.
 */
export function reportVerdict(report: VerdictInput): Verdict {
  const examined: string[] = [];
  if (report.interfaces.length)
    examined.push(`interfaces: ${report.interfaces.map((iface) => `${iface.name} (${iface.kind})`).join(', ')}`);
  const passed = report.checks.filter((check) => check.status === 'pass' || check.status === 'fail').map((check) => check.id);
  if (passed.length) examined.push(`checks with a verdict: ${passed.join(', ')}`);
  if (report.bench?.result)
    examined.push(`bench: ${(report.bench.result.bitsPerSecond / 1e9).toFixed(2)} Gb/s with ${report.bench.result.processes} process(es)`);
  const notExamined = missingOutputs(report);
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
  // A bench result judges the path itself; without one, the checks must have seen enough.
  const coverage = judgedCoverage(report);
  if (!report.bench?.result && coverage.applicable > 0 && coverage.judged < coverage.applicable * VERDICT_COVERAGE.minJudgedShare) {
    return {
      status: 'inconclusive',
      headline: `Inconclusive: the capture lets ${coverage.judged} of ${coverage.applicable} checks judge; the outputs below would decide the rest`,
      examined,
      notExamined,
    };
  }
  const measured = report.bench?.result ? ` (bench: ${(report.bench.result.bitsPerSecond / 1e9).toFixed(2)} Gb/s)` : '';
  return { status: 'no-bottleneck', headline: `No bottleneck found${measured}`, examined, notExamined };
}

/** Checks that apply (all but not-applicable, the bench's aside) and those that could judge (pass or fail). */
export function judgedCoverage(report: Pick<Report, 'checks'>): { judged: number; applicable: number } {
  const applicable = report.checks.filter((check) => check.id !== BENCH_CHECK && check.status !== 'not-applicable');
  return { judged: applicable.filter((check) => check.status === 'pass' || check.status === 'fail').length, applicable: applicable.length };
}

/**
 * What was not examined, one line per missing output: a command asked for (text input) or the
 * hint of the checks it would decide, deduplicated, with those checks named; a check with neither
 * keeps its own reason. A broken check is always its own line.
 */
function missingOutputs(report: VerdictInput): string[] {
  const lines = new Map<string, string[]>();
  const add = (key: string, check: string) => {
    const checks = lines.get(key) ?? [];
    if (!checks.includes(check)) checks.push(check);
    lines.set(key, checks);
  };
  const own: string[] = [];
  for (const check of report.checks) {
    if (check.id === BENCH_CHECK && !report.bench) continue;
    if (check.status === 'error') {
      own.push(`${check.id}: the check broke (${check.error?.message ?? 'error'})`);
      continue;
    }
    if (check.status !== 'unknown') continue;
    const asked = report.askFor?.filter((entry) => entry.checks.includes(check.id)) ?? [];
    if (asked.length) for (const entry of asked) add(entry.command, check.id);
    else if (check.hint) add(check.hint, check.id);
    else own.push(`${check.id}: ${check.reason ?? 'unknown'}`);
  }
  return [...[...lines].map(([what, checks]) => `${what} (would decide ${checks.join(', ')})`), ...own];
}
