import type { Report } from '../report/schema.js';
import { reportVerdict } from '../report/verdict.js';
import { codeFence, codeSpan, markdownCell } from './escape.js';
import { renderTicketReply } from './text-input.js';
import { shownReferences } from './references.js';
import { verificationTable } from './verification-table.js';
import {
  STATUS_LABEL,
  benchTable,
  diagnosisModeLabel,
  formatSource,
  formatValue,
  hostLine,
  interfaceLine,
  summaryLine,
} from './format-values.js';

const STATUS_ICON: Record<string, string> = { pass: '✅', fail: '❌', 'not-applicable': '➖', unknown: '❔', error: '💥' };

function markdownLinkText(text: string): string {
  return text.replace(/[[\]\\`*_]/g, (char) => `\\${char}`);
}

function markdownLinkTarget(url: string): string {
  return url.replace(/[()<>\s]/g, (char) => encodeURIComponent(char));
}

/** A report to paste into a ticket: renders on GitHub, GitLab and Jira (which accept GFM tables). */
export function renderMarkdown(report: Report): string {
  if (report.source.mode === 'text') return renderTicketReply(report);
  const out: string[] = [];
  out.push(`# nicdoctor report: ${report.host.hostname}`);
  out.push('');
  out.push(`- **Host:** ${hostLine(report)}`);
  out.push(
    `- **nicdoctor:** ${report.tool.version}, profile \`${report.profile}\`, ${report.source.mode === 'snapshot' ? `offline analysis of ${codeSpan(report.source.path ?? 'snapshot')}` : 'live scan'}, ${report.generatedAt}`,
  );
  out.push(`- **Result:** ${summaryLine(report)}`);
  out.push('');
  const verdict = report.verdict ?? reportVerdict(report);
  out.push(`## ${verdict.headline}`, '');
  for (const line of verdict.examined) out.push(`- Examined: ${line}`);
  for (const line of verdict.notExamined) out.push(`- Not examined: ${line}`);
  if (report.skippedInterfaces?.length)
    out.push(`- Skipped: ${report.skippedInterfaces.map((entry) => `${codeSpan(entry.name)} (${entry.reason})`).join(', ')}`);
  out.push('');
  if (report.diagnoses.length) {
    out.push('## Diagnoses (most likely first)');
    report.diagnoses.forEach((diagnosis, index) => {
      out.push('', `### ${index + 1}. ${diagnosis.title}`, '');
      out.push(
        `${codeSpan(diagnosis.subject)} · cause ${diagnosis.cause} · ${diagnosis.confidence} confidence · ${diagnosisModeLabel(diagnosis)} · rule \`${diagnosis.ruleId}\``,
        '',
      );
      out.push(diagnosis.explanation, '');
      if (diagnosis.verdict) out.push(`*${diagnosis.verdict}*`, '');
      if (diagnosis.ruledOut.length) out.push('Ruled out:', ...diagnosis.ruledOut.map((line) => `- ${line}`), '');
      for (const fix of diagnosis.fixes) {
        out.push(`**Fix${fix.disruptive ? ' (disruptive)' : ''}:** ${fix.text}`, '');
        if (fix.commands.length) out.push(`${codeFence(fix.commands)}sh`, ...fix.commands, codeFence(fix.commands), '');
        if (fix.persistent)
          out.push(
            `Persistent, in ${codeSpan(fix.persistent.file)}:`,
            '',
            codeFence([fix.persistent.content]),
            fix.persistent.content.trimEnd(),
            codeFence([fix.persistent.content]),
            '',
          );
      }
      const references = shownReferences(diagnosis.references);
      // A link's text and target are the URL itself; parentheses and brackets in it are escaped.
      if (references.length)
        out.push(
          'References:',
          ...references.map((ref) => `- ${ref.url ? `[${markdownLinkText(ref.url)}](${markdownLinkTarget(ref.url)})` : ref.text}`),
          '',
        );
    });
    out.push('');
  }
  if (report.notes.length) {
    out.push('## Notes (low confidence, not a bottleneck by themselves)', '');
    for (const note of report.notes)
      out.push(`- **${note.title}** (${codeSpan(note.subject)}, rule \`${note.ruleId}\`): ${note.explanation}`);
    out.push('');
  }
  if (report.refuted.length) {
    out.push('## Ruled out by the measurement', '');
    for (const diagnosis of report.refuted) out.push(`- **${diagnosis.title}** (${codeSpan(diagnosis.subject)}): ${diagnosis.verdict}`);
    out.push('');
  }
  out.push('## Interfaces');
  out.push('');
  if (report.interfaces.length === 0) out.push('No network interfaces were found.');
  for (const iface of report.interfaces) out.push(`- ${codeSpan(iface.name)} ${interfaceLine(iface).slice(iface.name.length + 1)}`);
  out.push('');
  out.push('## Checks');
  out.push('');
  out.push('| | Check | Status | Detail |');
  out.push('|---|---|---|---|');
  for (const check of report.checks) {
    const detail = check.findings.length ? `${check.findings.length} finding${check.findings.length > 1 ? 's' : ''}` : (check.reason ?? '');
    out.push(
      `| ${STATUS_ICON[check.status]} | ${markdownCell(check.title)} (\`${check.id}\`) | ${STATUS_LABEL[check.status]} | ${markdownCell(detail)}${check.hint ? ` — ${markdownCell(check.hint)}` : ''} |`,
    );
  }
  const bench = benchTable(report);
  if (bench) {
    out.push('', '## Bench', '', bench.heading, '');
    out.push(`| ${bench.columns.join(' | ')} |`, `|${bench.columns.map(() => '---').join('|')}|`);
    for (const row of bench.rows) out.push(`| ${row.map(markdownCell).join(' | ')} |`);
    out.push('', ...bench.result.map((line) => `- ${line}`));
  }
  const verification = verificationTable(report);
  if (verification) {
    out.push('', '## Verification', '', verification.heading, '');
    out.push(`| ${verification.columns.join(' | ')} |`, `|${verification.columns.map(() => '---').join('|')}|`);
    for (const row of verification.rows) out.push(`| ${row.map(markdownCell).join(' | ')} |`);
    out.push('', ...verification.lines.map((line) => `- ${markdownCell(line)}`));
  }
  const findings = report.checks.flatMap((check) => check.findings);
  if (findings.length) {
    out.push('');
    out.push('## Findings');
    for (const finding of findings) {
      out.push('');
      out.push(`### ${finding.severity.toUpperCase()}: ${finding.message}`);
      out.push('');
      out.push(`\`${finding.check}/${finding.symptom}\` on ${codeSpan(finding.subject)}`);
      out.push('');
      if (finding.evidence.length) {
        out.push('| Evidence | Observed | Expected | Source |');
        out.push('|---|---|---|---|');
        for (const evidence of finding.evidence) {
          const expected = evidence.expected === undefined ? '' : formatValue(evidence.expected, evidence.unit);
          const source = evidence.source ? markdownCell(codeSpan(formatSource(evidence.source))) : '';
          out.push(
            `| ${markdownCell(evidence.label)} | ${markdownCell(formatValue(evidence.observed, evidence.unit))} | ${markdownCell(expected)} | ${source} |`,
          );
        }
        out.push('');
      }
      if (finding.fix) out.push(`**Fix:** ${finding.fix}`);
    }
  }
  return out.join('\n') + '\n';
}
