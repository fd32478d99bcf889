import type { CheckResult, Finding, Report } from '../report/schema.js';
import { reportVerdict } from '../report/verdict.js';
import { textInputTerminalFooter, textInputTerminalHeader } from './text-input.js';
import { shownReferences } from './references.js';
import { verificationLines } from './verification-table.js';
import {
  benchTable,
  diagnosisHeading,
  formatEvidence,
  formatSource,
  hostLine,
  interfaceLine,
  summaryLine,
  type Diagnosis,
  noteLines,
} from './format-values.js';
import { renderOneScreen } from './one-screen.js';
import { pciePathLines, terminalBars, workPictures } from './work-pictures.js';

export interface TerminalOptions {
  color: boolean;
  /** Every check, every finding, stack traces: the long form. */
  verbose?: boolean;
  /** The verdict and the diagnoses only. */
  short?: boolean;
}

const MARK: Record<CheckResult['status'], string> = {
  pass: '[✓]',
  fail: '[✗]',
  'not-applicable': '[-]',
  unknown: '[?]',
  error: '[☠]',
};

const COLORS = { red: 31, green: 32, yellow: 33, grey: 90, magenta: 35, bold: 1 } as const;
type Color = keyof typeof COLORS;
const STATUS_COLOR: Record<CheckResult['status'], Color> = {
  pass: 'green',
  fail: 'red',
  'not-applicable': 'grey',
  unknown: 'yellow',
  error: 'magenta',
};

type Paint = (color: Color, text: string) => string;

/**
 * Short, like a doctor: the verdict first, then the causes and the warning/critical findings
 * with their evidence and fix, info notes one line each. `--verbose` adds every check in
 * registry order (flutter-doctor style) with all findings and stack traces.
 */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  if (!options.verbose) return renderOneScreen(report, options);
  const paint: Paint = (color, text) => (options.color ? `\u001b[${COLORS[color]}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  lines.push(paint('bold', `nicdoctor ${report.tool.version}`) + ` — ${hostLine(report)} — profile ${report.profile}`);
  if (report.source.mode === 'snapshot') lines.push(`Offline analysis of ${report.source.path ?? 'a snapshot'}`);
  lines.push(...textInputTerminalHeader(report));
  lines.push(report.interfaces.length ? 'Interfaces:' : 'Interfaces: none found');
  for (const iface of report.interfaces) lines.push(`  ${interfaceLine(iface)}`);
  if (report.skippedInterfaces?.length)
    lines.push(paint('grey', `  skipped: ${report.skippedInterfaces.map((entry) => `${entry.name} (${entry.reason})`).join('; ')}`));

  const verdict = report.verdict ?? reportVerdict(report);
  lines.push(
    '',
    paint(
      'bold',
      paint(verdict.status === 'no-bottleneck' ? 'green' : verdict.status === 'bottleneck' ? 'red' : 'yellow', verdict.headline),
    ),
  );
  if (verdict.status === 'no-bottleneck') {
    for (const line of verdict.examined) lines.push(`  examined: ${line}`);
  }

  const pictures = workPictures(report);
  for (const chart of pictures.charts) lines.push('', paint('bold', `${chart.title}:`), ...terminalBars(chart, { unicode: options.color }));
  for (const path of pictures.paths) lines.push('', paint('bold', `PCIe path of ${path.interface}:`), ...pciePathLines(path));

  const bench = benchTable(report);
  if (bench) {
    lines.push('', paint('bold', bench.heading));
    const widths = bench.columns.map((column, index) => Math.max(column.length, ...bench.rows.map((row) => row[index]!.length)));
    const format = (cells: string[]) =>
      '  ' +
      cells
        .map((cell, index) => cell.padEnd(widths[index]!))
        .join('  ')
        .trimEnd();
    lines.push(format(bench.columns), ...bench.rows.map(format));
    lines.push(...bench.result.map((line) => `  ${line}`));
  }

  lines.push(...verificationLines(report, paint));

  if (report.diagnoses.length) {
    lines.push('', paint('bold', 'Diagnoses, most likely first:'));
    report.diagnoses.forEach((diagnosis, index) => lines.push(...diagnosisLines(diagnosis, index + 1, paint)));
  }

  if (options.verbose) {
    lines.push('', paint('bold', 'Checks:'));
    for (const check of report.checks) lines.push(...checkLines(check, paint, { allFindings: true, verbose: true }));
  } else {
    const failing = report.checks.filter((check) => check.findings.some((finding) => finding.severity !== 'info'));
    if (failing.length) {
      lines.push('', paint('bold', 'Findings:'));
      for (const check of failing) lines.push(...checkLines(check, paint, { allFindings: false, verbose: false }));
    }
  }

  const notes = noteLines(report, true);
  if (notes.length) lines.push('', paint('bold', 'Notes:'), ...notes.map((line) => paint('grey', `  - ${line}`)));

  if (report.refuted.length) {
    lines.push('', paint('bold', 'Ruled out by the measurement:'));
    for (const diagnosis of report.refuted)
      lines.push(paint('grey', `  - ${diagnosis.title} (${diagnosis.subject}): ${diagnosis.verdict}`));
  }

  if (!options.verbose && verdict.notExamined.length) {
    lines.push('', paint('bold', 'Not examined:'));
    for (const line of verdict.notExamined) lines.push(paint('yellow', `  ? ${line}`));
  }

  lines.push(...textInputTerminalFooter(report));
  lines.push('');
  lines.push(summaryLine(report) + (options.verbose ? '' : ' (--verbose: every check)'));
  return lines.join('\n') + '\n';
}

function diagnosisLines(diagnosis: Diagnosis, rank: number, paint: Paint): string[] {
  const lines = [
    `  ${paint(diagnosis.mode === 'confirmed' ? 'red' : 'yellow', diagnosisHeading(diagnosis, rank))}`,
    `     ${diagnosis.explanation}`,
  ];
  if (diagnosis.verdict) lines.push(`     ${diagnosis.verdict}`);
  for (const ruledOut of diagnosis.ruledOut) lines.push(paint('grey', `     ruled out: ${ruledOut}`));
  for (const fix of diagnosis.fixes) {
    lines.push(`     fix${fix.disruptive ? ' (disruptive)' : ''}: ${fix.text}`);
    for (const command of fix.commands) lines.push(`       $ ${command}`);
  }
  const references = shownReferences(diagnosis.references);
  if (references.length) lines.push(paint('grey', `     see: ${references.map((ref) => ref.url ?? ref.text).join(' · ')}`));
  return lines;
}

function checkLines(check: CheckResult, paint: Paint, options: { allFindings: boolean; verbose: boolean }): string[] {
  const status = check.status === 'not-applicable' ? 'not applicable' : check.status;
  const detail = check.status === 'pass' || check.status === 'fail' ? '' : ` — ${status}${check.reason ? `: ${check.reason}` : ''}`;
  const lines = [
    `${paint(STATUS_COLOR[check.status], MARK[check.status])} ${check.status === 'fail' ? check.title : check.title}${detail}`,
  ];
  if (check.hint && check.status !== 'pass') lines.push(`    → ${check.hint}`);
  const shown = options.allFindings ? check.findings : check.findings.filter((finding) => finding.severity !== 'info');
  for (const finding of shown) lines.push(...findingLines(finding, paint));
  if (options.verbose && check.error?.stack) lines.push(...check.error.stack.split('\n').map((line) => `    ${line}`));
  return lines;
}

function findingLines(finding: Finding, paint: Paint): string[] {
  const color: Color = finding.severity === 'critical' ? 'red' : finding.severity === 'warning' ? 'yellow' : 'grey';
  const lines = [`    ${paint(color, `• ${finding.severity}`)} ${finding.message}`];
  for (const evidence of finding.evidence) {
    const where = evidence.source ? paint('grey', `  [${formatSource(evidence.source)}]`) : '';
    lines.push(`        ${formatEvidence(evidence)}${where}`);
  }
  if (finding.fix) lines.push(`        fix: ${finding.fix}`);
  return lines;
}
