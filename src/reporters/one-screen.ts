import type { CheckResult, Finding, Report } from '../report/schema.js';
import { reportVerdict } from '../report/verdict.js';
import { fixSentence } from '../rules/finding-fixes.js';
import { shownReferences } from './references.js';
import { benchTable, diagnosisModeLabel, formatEvidence, hostLine, noteLines, summaryLine, type Diagnosis } from './format-values.js';
import { INTERFACE_COLUMNS, alignedTable, interfaceRows } from './interface-table.js';
import { missingOutputs } from './missing-outputs.js';
import { verificationLines } from './verification-table.js';
import { textInputSummary } from './text-input.js';
import { pciePathLines, pictureMatters, terminalBars, workPictures, type Picture } from './work-pictures.js';

/**
 * The terminal report on one screen: the verdict, the diagnoses with their fixes, one line per
 * interface, where the interrupts and packets go when that is the question, the findings no
 * diagnosis explains, and what to collect next grouped by command. Each fix is printed once and
 * referenced where it repeats. `--short` stops after the diagnoses; `--verbose` is the long form.
 */

export interface OneScreenOptions {
  color: boolean;
  short?: boolean;
}

const COLORS = { red: 31, green: 32, yellow: 33, grey: 90, bold: 1 } as const;
type Color = keyof typeof COLORS;
type Paint = (color: Color, text: string) => string;

/** Info notes shown before "and N more": the rest are one --verbose away. */
const MAX_NOTES = 4;
/** Evidence lines under a finding no diagnosis explains. */
const MAX_EVIDENCE = 2;

const MARK: Record<CheckResult['status'], string> = { pass: '✓', fail: '✗', 'not-applicable': '-', unknown: '?', error: '!' };

export function renderOneScreen(report: Report, options: OneScreenOptions): string {
  const paint: Paint = (color, text) => (options.color ? `\u001b[${COLORS[color]}m${text}\u001b[0m` : text);
  const verdict = report.verdict ?? reportVerdict(report);
  const verdictColor: Color = verdict.status === 'no-bottleneck' ? 'green' : verdict.status === 'bottleneck' ? 'red' : 'yellow';
  const lines: string[] = [paint('bold', `nicdoctor ${report.tool.version}`) + ` — ${hostLine(report)} — profile ${report.profile}`];
  if (report.source.mode === 'snapshot') lines.push(`Offline analysis of ${report.source.path ?? 'a snapshot'}`);
  if (!options.short) lines.push(...textInputSummary(report));
  lines.push('', paint('bold', paint(verdictColor, verdict.headline)));
  lines.push(...verificationLines(report, paint));

  // Fix sentence → where it was first printed, so a repeat is a reference, not a copy.
  const printed = new Map<string, string>();
  if (report.diagnoses.length) {
    lines.push('', paint('bold', 'Diagnoses, most likely first:'));
    report.diagnoses.forEach((diagnosis, index) => lines.push(...diagnosisLines(diagnosis, index + 1, paint, printed)));
  }
  if (options.short) {
    lines.push('', summaryLine(report) + ' (without --short: interfaces, findings, what to collect)');
    return lines.join('\n') + '\n';
  }

  lines.push('', report.interfaces.length ? paint('bold', 'Interfaces:') : 'Interfaces: none found');
  if (report.interfaces.length) lines.push(...alignedTable(INTERFACE_COLUMNS, interfaceRows(report)).map((line) => `  ${line}`));
  if (report.skippedInterfaces?.length)
    lines.push(paint('grey', `  skipped: ${report.skippedInterfaces.map((entry) => `${entry.name} (${entry.reason})`).join('; ')}`));

  // Where the work lands, when that is what a check found wrong.
  const pictures = workPictures(report);
  for (const chart of pictures.charts.filter((picture) => pictureMatters(report, picture.kind, picture.interface) && uneven(picture)))
    lines.push('', paint('bold', `${chart.title}:`), ...terminalBars(chart, { unicode: options.color }));
  for (const path of pictures.paths.filter((picture) => pictureMatters(report, 'pcie-path', picture.interface)))
    lines.push('', paint('bold', `PCIe path of ${path.interface}:`), ...pciePathLines(path));

  const bench = benchTable(report);
  if (bench) lines.push('', paint('bold', bench.heading), ...bench.result.map((line) => `  ${line}`));

  const findings = report.checks.filter((check) => check.findings.some((finding) => finding.severity !== 'info'));
  if (findings.length) {
    lines.push('', paint('bold', 'Findings:'));
    for (const check of findings) lines.push(...checkLines(check, paint, printed));
  }

  const notes = noteLines(report, false);
  if (notes.length) {
    const shown = notes.slice(0, MAX_NOTES).map((line) => paint('grey', `  - ${line}`));
    if (notes.length > MAX_NOTES) shown.push(paint('grey', `  … and ${notes.length - MAX_NOTES} more (--verbose)`));
    lines.push('', paint('bold', 'Notes:'), ...shown);
  }

  if (report.refuted.length) {
    lines.push('', paint('bold', 'Ruled out by the measurement:'));
    for (const diagnosis of report.refuted)
      lines.push(paint('grey', `  - ${diagnosis.title} (${diagnosis.subject}): ${diagnosis.verdict}`));
  }

  const missing = missingOutputs(report);
  if (missing.length) {
    lines.push('', paint('bold', 'Not examined — the output that would decide it, then the checks:'));
    const commands = missing.filter((entry) => entry.command);
    const width = Math.min(60, Math.max(0, ...commands.map((entry) => entry.what.length)));
    for (const entry of missing) {
      const what = entry.command ? `$ ${entry.what.padEnd(width)}` : `? ${entry.what}`;
      lines.push(paint('yellow', `  ${what}  ${entry.command ? '' : '— '}${entry.checks.join(', ')}`.trimEnd()));
    }
  }

  lines.push('', summaryLine(report) + ' (--verbose: every check)');
  return lines.join('\n') + '\n';
}

/**
 * A picture worth a screen's lines: per-CPU interrupts always (their placement is the question),
 * queues only when the busiest carries at least twice its fair share.
 */
function uneven(picture: Picture): boolean {
  if (picture.kind === 'irq-cpus') return true;
  const total = picture.bars.reduce((sum, bar) => sum + bar.value, 0);
  const max = Math.max(0, ...picture.bars.map((bar) => bar.value));
  return picture.bars.length > 0 && max * picture.bars.length >= 2 * total;
}

function diagnosisLines(diagnosis: Diagnosis, rank: number, paint: Paint, printed: Map<string, string>): string[] {
  const color: Color = diagnosis.mode === 'confirmed' ? 'red' : 'yellow';
  const lines = [
    `  ${paint(color, `${rank}. ${diagnosis.title}`)} — ${diagnosis.subject}, ${diagnosis.confidence} confidence, ${diagnosisModeLabel(diagnosis)}`,
    `     ${diagnosis.explanation}`,
  ];
  if (diagnosis.verdict) lines.push(`     ${diagnosis.verdict}`);
  for (const ruledOut of diagnosis.ruledOut) lines.push(paint('grey', `     ruled out: ${ruledOut}`));
  for (const fix of diagnosis.fixes) {
    const sentence = fixSentence(fix);
    const earlier = printed.get(sentence);
    if (earlier) {
      lines.push(`     fix: as for ${earlier}`);
      continue;
    }
    printed.set(sentence, `diagnosis ${rank}`);
    lines.push(`     fix${fix.disruptive ? ' (disruptive)' : ''}: ${fix.text}`);
    for (const command of fix.commands) lines.push(`       $ ${command}`);
  }
  // One line of links: where the cause and its fix are documented.
  const references = shownReferences(diagnosis.references);
  if (references.length) lines.push(paint('grey', `     see: ${references.map((ref) => ref.url ?? ref.text).join(' · ')}`));
  return lines;
}

function checkLines(check: CheckResult, paint: Paint, printed: Map<string, string>): string[] {
  const lines = [`${paint(check.status === 'fail' ? 'red' : 'yellow', `[${MARK[check.status]}]`)} ${check.title}: ${check.status}`];
  for (const finding of check.findings.filter((entry) => entry.severity !== 'info')) lines.push(...findingLines(finding, paint, printed));
  return lines;
}

function findingLines(finding: Finding, paint: Paint, printed: Map<string, string>): string[] {
  const color: Color = finding.severity === 'critical' ? 'red' : 'yellow';
  const earlier = finding.fix ? printed.get(finding.fix) : undefined;
  // A finding a diagnosis explains is its evidence: one line, pointing at the diagnosis.
  if (earlier) return [`    ${paint(color, `• ${finding.severity}`)} ${finding.message} (fix: see ${earlier})`];
  const lines = [`    ${paint(color, `• ${finding.severity}`)} ${finding.message}`];
  for (const evidence of finding.evidence.slice(0, MAX_EVIDENCE)) lines.push(`        ${formatEvidence(evidence)}`);
  if (finding.fix) {
    printed.set(finding.fix, `the ${finding.check} finding on ${finding.subject}`);
    lines.push(`        fix: ${finding.fix}`);
  }
  return lines;
}
