import type { Report, TextSegment } from '../report/schema.js';
import { summaryLine } from './format-values.js';

/**
 * What a report on pasted text adds to the usual layout: which outputs were recognised (with
 * their line ranges) and which text was ignored, what was repaired or inferred, the commands to
 * ask for, and, in Markdown, a reply to paste back into the ticket. The terminal and Markdown
 * reporters call these with one line each; for any other source they add nothing.
 */

function lineRange(segment: TextSegment): string {
  return segment.firstLine === segment.lastLine ? `line ${segment.firstLine}` : `lines ${segment.firstLine}–${segment.lastLine}`;
}

function describe(segment: TextSegment): string {
  const what = [
    segment.kind,
    segment.interface ? `(${segment.interface})` : '',
    segment.command ? `\`${segment.command}\`` : '',
    segment.filtered ? '[filtered: partial]' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `${lineRange(segment)}: ${what}${segment.note ? ` — ${segment.note}` : ''}`;
}

/** Lines after the header of the terminal report. */
export function textInputTerminalHeader(report: Report): string[] {
  if (report.source.mode !== 'text') return [];
  const segments = report.source.segments ?? [];
  const recognised = segments.filter((segment) => segment.recognised);
  const other = segments.filter((segment) => !segment.recognised);
  const lines = [
    `Pasted text${report.source.path ? ` ${report.source.path}` : ''}: ${recognised.length} output(s) recognised, ${other.length} part(s) not used`,
  ];
  for (const segment of recognised) lines.push(`  ✓ ${describe(segment)}`);
  for (const segment of other)
    lines.push(
      `  · ${lineRange(segment)}: ${segment.kind === 'ignored' ? 'ignored' : segment.kind}${segment.note ? ` — ${segment.note}` : ''}`,
    );
  for (const note of report.source.notes ?? []) lines.push(`  note: ${note}`);
  return lines;
}

/**
 * The one-screen form of the header: what was read in one line (kinds, with a count where one
 * repeats), then the notes on what was inferred, which change how the report reads.
 */
export function textInputSummary(report: Report): string[] {
  if (report.source.mode !== 'text') return [];
  const segments = report.source.segments ?? [];
  const kinds = new Map<string, number>();
  for (const segment of segments.filter((entry) => entry.recognised)) {
    const label = segment.interface ? `${segment.kind} (${segment.interface})` : segment.kind;
    kinds.set(label, (kinds.get(label) ?? 0) + 1);
  }
  const read = [...kinds].map(([label, count]) => (count > 1 ? `${label} ×${count}` : label)).join(', ') || 'no output recognised';
  const unused = segments.filter((segment) => !segment.recognised).length;
  const lines = [
    `Pasted text${report.source.path ? ` ${report.source.path}` : ''}: read ${read}${unused ? `; ${unused} part(s) not used` : ''}`,
  ];
  for (const note of report.source.notes ?? []) lines.push(`  note: ${note}`);
  return lines;
}

/** Lines before the summary of the terminal report. */
export function textInputTerminalFooter(report: Report): string[] {
  if (report.source.mode !== 'text' || !report.askFor?.length) return [];
  return ['', 'To confirm, ask for:', ...report.askFor.map((ask) => `  $ ${ask.command}    (${ask.checks.join(', ')})`)];
}

/** The Markdown form of a text report: a reply to paste into the ticket. */
export function renderTicketReply(report: Report): string {
  const out: string[] = [];
  const host = report.host.hostname !== 'unknown' ? ` (${report.host.hostname})` : '';
  out.push(`### nicdoctor: what the outputs you sent show${host}`, '');
  const segments = report.source.segments ?? [];
  const recognised = segments.filter((segment) => segment.recognised);
  out.push(`We read ${recognised.length} command output${recognised.length === 1 ? '' : 's'} from your message:`, '');
  for (const segment of recognised) out.push(`- ${describe(segment)}`);
  const notUsed = segments.filter((segment) => !segment.recognised && segment.kind !== 'ignored');
  for (const segment of notUsed) out.push(`- ${lineRange(segment)}: ${segment.kind}, not used${segment.note ? ` (${segment.note})` : ''}`);
  out.push('');
  if (report.diagnoses.length) {
    out.push('**What we found, most likely first:**', '');
    report.diagnoses.forEach((diagnosis, index) => {
      out.push(`${index + 1}. **${diagnosis.title}** (\`${diagnosis.subject}\`, ${diagnosis.confidence} confidence)`);
      out.push(`   ${diagnosis.explanation}`);
      for (const fix of diagnosis.fixes) {
        out.push(`   - ${fix.text}`);
        if (fix.commands.length) out.push('', '     ```sh', ...fix.commands.map((command) => `     ${command}`), '     ```', '');
      }
    });
    out.push('');
  } else {
    const findings = report.checks.flatMap((check) => check.findings).filter((finding) => finding.severity !== 'info');
    if (findings.length) {
      out.push('**What we found:**', '');
      for (const finding of findings) out.push(`- ${finding.message}${finding.fix ? ` — ${finding.fix}` : ''}`);
      out.push('');
    } else {
      out.push('The outputs you sent show no fault by themselves.', '');
    }
  }
  if (report.askFor?.length) {
    out.push('**To confirm, could you run these and paste the output (read-only, as root where it says sudo):**', '');
    out.push('```sh', ...report.askFor.map((ask) => ask.command), '```', '');
    out.push(
      'Or, if you cannot install anything, run the collection script we attach (`nicdoctor collect --script > collect.sh`, then `sh collect.sh`) and send us the .tar.gz it writes.',
      '',
    );
  }
  out.push(`<sub>${summaryLine(report)} · nicdoctor ${report.tool.version}</sub>`);
  return out.join('\n') + '\n';
}
