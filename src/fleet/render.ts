import { escapeHtml, escapeStrings, inertMarkdown, markdownCell, visibleControls, xmlAttr } from '../reporters/escape.js';
import { describeOutlier, type FleetHost, type FleetReport } from './fleet.js';

export const FLEET_FORMATS = ['terminal', 'markdown', 'html', 'json', 'junit'] as const;
export type FleetFormat = (typeof FLEET_FORMATS)[number];

const HEADERS = ['host', 'verdict', 'top diagnosis', 'bench Gb/s', 'critical', 'warning', 'unknown'];

function cells(host: FleetHost): string[] {
  const verdict = host.policy ? `${host.policy.pass ? 'pass' : 'FAIL'} (${host.policy.name})` : host.failed ? 'FAIL' : 'ok';
  const diagnosis = host.topDiagnosis ? `${host.topDiagnosis.title} (${host.topDiagnosis.subject})` : '-';
  return [
    host.host,
    verdict,
    diagnosis,
    host.benchGbps === null ? '-' : host.benchGbps.toFixed(2),
    String(host.counts.critical),
    String(host.counts.warning),
    String(host.counts.unknown),
  ];
}

function outlierLines(report: FleetReport): string[] {
  return report.outliers.flatMap(describeOutlier);
}

function unreadLines(report: FleetReport): string[] {
  return report.unread.map((input) => `${input.file}: ${input.reason}`);
}

function renderTerminal(report: FleetReport): string {
  const rows = [HEADERS, ...report.hosts.map(cells)];
  const widths = HEADERS.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const out = [
    `nicdoctor fleet: ${report.summary.hosts} hosts, ${report.summary.failed} failing, ${report.summary.outliers} settings with odd ones out`,
    '',
    line(rows[0]!),
    ...rows.slice(1).map(line),
    '',
  ];
  out.push(
    report.outliers.length
      ? 'Odd ones out (differ from the majority of the same NIC model and driver):'
      : 'Odd ones out: none (every compared setting agrees, or too few hosts share it).',
  );
  out.push(...outlierLines(report).map((text) => `  - ${text}`));
  if (report.unread.length) out.push('', 'Not read:', ...unreadLines(report).map((text) => `  - ${text}`));
  return out.join('\n') + '\n';
}

const md = markdownCell;

function renderMarkdown(report: FleetReport): string {
  const out = [
    '# nicdoctor fleet',
    '',
    `${report.summary.hosts} hosts, ${report.summary.failed} failing, ${report.summary.outliers} settings with odd ones out.`,
    '',
  ];
  out.push(`| ${HEADERS.join(' | ')} |`, `| ${HEADERS.map(() => '---').join(' | ')} |`);
  for (const host of report.hosts) out.push(`| ${cells(host).map(md).join(' | ')} |`);
  out.push('', '## Odd ones out', '');
  out.push(...(report.outliers.length ? outlierLines(report).map((text) => `- ${md(text)}`) : ['None.']));
  if (report.unread.length) out.push('', '## Not read', '', ...unreadLines(report).map((text) => `- ${md(text)}`));
  return out.join('\n') + '\n';
}

function renderHtml(report: FleetReport): string {
  const row = (values: string[], tag: 'td' | 'th') => `<tr>${values.map((value) => `<${tag}>${escapeHtml(value)}</${tag}>`).join('')}</tr>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nicdoctor fleet</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}tr.fail td{background:#fde2e2}</style>
</head><body>
<h1>nicdoctor fleet</h1>
<p>${report.summary.hosts} hosts, ${report.summary.failed} failing, ${report.summary.outliers} settings with odd ones out.</p>
<table>${row(HEADERS, 'th')}
${report.hosts.map((host) => row(cells(host), 'td').replace('<tr>', host.failed ? '<tr class="fail">' : '<tr>')).join('\n')}
</table>
<h2>Odd ones out</h2>
${
  report.outliers.length
    ? `<ul>${outlierLines(report)
        .map((text) => `<li>${escapeHtml(text)}</li>`)
        .join('')}</ul>`
    : '<p>None.</p>'
}
${
  report.unread.length
    ? `<h2>Not read</h2><ul>${unreadLines(report)
        .map((text) => `<li>${escapeHtml(text)}</li>`)
        .join('')}</ul>`
    : ''
}
</body></html>
`;
}

/** One test case per host (its verdict) and one per setting with odd ones out, for CI dashboards. */
function renderJunit(report: FleetReport): string {
  const hostCases = report.hosts.map(
    (host) =>
      `    <testcase classname="fleet.hosts" name="${xmlAttr(host.host)}">${host.failed ? `<failure message="${xmlAttr(host.why)}"/>` : ''}</testcase>`,
  );
  const outlierCases = report.outliers.map(
    (outlier) =>
      `    <testcase classname="fleet.outliers" name="${xmlAttr(`${outlier.group}: ${outlier.setting}`)}"><failure message="${xmlAttr(describeOutlier(outlier).join('; '))}"/></testcase>`,
  );
  const unreadCases = report.unread.map(
    (input) =>
      `    <testcase classname="fleet.unread" name="${xmlAttr(input.file)}"><error message="${xmlAttr(input.reason)}"/></testcase>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nicdoctor fleet" tests="${hostCases.length + outlierCases.length + unreadCases.length}" failures="${report.summary.failed + outlierCases.length}" errors="${unreadCases.length}">
  <testsuite name="hosts" tests="${hostCases.length}" failures="${report.summary.failed}">
${hostCases.join('\n')}
  </testsuite>
  <testsuite name="outliers" tests="${outlierCases.length}" failures="${outlierCases.length}">
${outlierCases.join('\n')}
  </testsuite>
  <testsuite name="unread" tests="${unreadCases.length}" errors="${unreadCases.length}">
${unreadCases.join('\n')}
  </testsuite>
</testsuites>
`;
}

export function renderFleet(report: FleetReport, format: FleetFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2) + '\n';
  // Host names come from file names and snapshots: shown, never obeyed, in every medium (escape.ts).
  const shown = escapeStrings(report, visibleControls);
  switch (format) {
    case 'markdown':
      return inertMarkdown(renderMarkdown(shown));
    case 'html':
      return renderHtml(shown);
    case 'junit':
      return renderJunit(shown);
    case 'terminal':
      return renderTerminal(shown);
  }
}
