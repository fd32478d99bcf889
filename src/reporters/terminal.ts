import type { CheckResult, Report } from '../report/schema.js';
import { textInputTerminalFooter, textInputTerminalHeader } from './text-input.js';
import { benchTable, diagnosisHeading, formatEvidence, formatSource, hostLine, interfaceLine, summaryLine } from './format-values.js';

export interface TerminalOptions {
  color: boolean;
  verbose?: boolean;
}

const MARK: Record<CheckResult['status'], string> = {
  pass: '[✓]',
  fail: '[✗]',
  'not-applicable': '[-]',
  unknown: '[?]',
  error: '[☠]',
};

const COLORS = { red: 31, green: 32, yellow: 33, grey: 90, magenta: 35, bold: 1 } as const;
const STATUS_COLOR: Record<CheckResult['status'], keyof typeof COLORS> = {
  pass: 'green',
  fail: 'red',
  'not-applicable': 'grey',
  unknown: 'yellow',
  error: 'magenta',
};

/** flutter-doctor style: one line per check in registry order, findings with evidence and fix below. */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  const paint = (color: keyof typeof COLORS, text: string) => (options.color ? `\u001b[${COLORS[color]}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  lines.push(paint('bold', `nicdoctor ${report.tool.version}`) + ` — ${hostLine(report)} — profile ${report.profile}`);
  if (report.source.mode === 'snapshot') lines.push(`Offline analysis of ${report.source.path ?? 'a snapshot'}`);
  lines.push(...textInputTerminalHeader(report));
  lines.push(report.interfaces.length ? 'Interfaces:' : 'Interfaces: none found');
  for (const iface of report.interfaces) lines.push(`  ${interfaceLine(iface)}`);
  lines.push('');
  for (const check of report.checks) {
    const status = check.status === 'not-applicable' ? 'not applicable' : check.status;
    const detail = check.status === 'pass' || check.status === 'fail' ? '' : ` — ${status}${check.reason ? `: ${check.reason}` : ''}`;
    lines.push(`${paint(STATUS_COLOR[check.status], MARK[check.status])} ${check.title}${detail}`);
    if (check.hint && check.status !== 'pass') lines.push(`    → ${check.hint}`);
    for (const finding of check.findings) {
      const color = finding.severity === 'critical' ? 'red' : finding.severity === 'warning' ? 'yellow' : 'grey';
      lines.push(`    ${paint(color, `• ${finding.severity}`)} ${finding.message}`);
      for (const evidence of finding.evidence) {
        const where = evidence.source ? paint('grey', `  [${formatSource(evidence.source)}]`) : '';
        lines.push(`        ${formatEvidence(evidence)}${where}`);
      }
      if (finding.fix) lines.push(`        fix: ${finding.fix}`);
    }
    if (options.verbose && check.error?.stack) lines.push(...check.error.stack.split('\n').map((line) => `    ${line}`));
  }
  const bench = benchTable(report);
  if (bench) {
    lines.push('', paint('bold', bench.heading));
    const widths = bench.columns.map((column, index) => Math.max(column.length, ...bench.rows.map((row) => row[index]!.length)));
    const format = (cells: string[]) => '  ' + cells.map((cell, index) => cell.padEnd(widths[index]!)).join('  ').trimEnd();
    lines.push(format(bench.columns), ...bench.rows.map(format));
    lines.push(...bench.result.map((line) => `  ${line}`));
  }
  if (report.diagnoses.length) {
    lines.push('', paint('bold', 'Diagnoses, most likely first:'));
    report.diagnoses.forEach((diagnosis, index) => {
      lines.push(`  ${paint(diagnosis.mode === 'confirmed' ? 'red' : 'yellow', diagnosisHeading(diagnosis, index + 1))}`);
      lines.push(`     ${diagnosis.explanation}`);
      if (diagnosis.verdict) lines.push(`     ${diagnosis.verdict}`);
      for (const ruledOut of diagnosis.ruledOut) lines.push(paint('grey', `     ruled out: ${ruledOut}`));
      for (const fix of diagnosis.fixes) {
        lines.push(`     fix${fix.disruptive ? ' (disruptive)' : ''}: ${fix.text}`);
        for (const command of fix.commands) lines.push(`       $ ${command}`);
      }
    });
  }
  lines.push(...textInputTerminalFooter(report));
  lines.push('');
  lines.push(summaryLine(report));
  return lines.join('\n') + '\n';
}
