import type { Finding, Report } from '../report/schema.js';
import { verificationTable } from './verification-table.js';
import { verificationChart } from './verification-chart.js';
import { irqCpuChart, processTimeChart, rampChart, type ChartOutcome } from './bench-charts.js';
import { STATUS_LABEL, benchTable, diagnosisModeLabel, formatSource, formatValue, hostLine, summaryLine } from './format-values.js';
import { escapeXml as esc } from './svg-charts.js';
import { pciePathHtml, pictureSvg, workPictures } from './work-pictures.js';
import { shownReferences } from './references.js';

/*
 * One self-contained HTML file: inline CSS and SVG, no scripts, and a Content-Security-Policy
 * that forbids every fetch, so it opens offline from a ticket attachment and cannot phone home
 * even if some report text slipped through unescaped.
 */

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const CSS = `
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; font-size: 14px; line-height: 1.45; color: #1d1d1f; background: #fff; margin: 0 auto; padding: 24px; max-width: 1100px; }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 28px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 0 0 6px; }
code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12.5px; }
code { background: #f3f3f3; padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0; width: 100%; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f6f6; font-weight: 600; }
dl.host { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0; }
dl.host dt { font-weight: 600; }
dl.host dd { margin: 0; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.status-pass .badge, .badge.status-pass { background: #dcf3dc; color: #1b5e20; }
.status-fail .badge, .badge.status-fail { background: #fbdada; color: #8e1b1b; }
.status-unknown .badge, .badge.status-unknown { background: #fff1c2; color: #6d5200; }
.status-not-applicable .badge, .badge.status-not-applicable { background: #eee; color: #555; }
.status-error .badge, .badge.status-error { background: #f1dcf7; color: #6a1b7a; }
.severity-critical { border-left: 5px solid #c62828; }
.severity-warning { border-left: 5px solid #e0a000; }
.severity-info { border-left: 5px solid #8a8a8a; }
.badge.severity-critical { background: #c62828; color: #fff; border: 0; }
.badge.severity-warning { background: #e0a000; color: #fff; border: 0; }
.badge.severity-info { background: #8a8a8a; color: #fff; border: 0; }
article.finding { padding: 8px 12px; margin: 12px 0; background: #fafafa; }
.fix { margin: 6px 0 0; }
.fix code { white-space: pre-wrap; }
.hint { color: #555; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure.chart-figure { margin: 0; padding: 8px; border: 1px solid #e3e3e3; border-radius: 4px; max-width: 100%; }
figure.chart-figure svg { display: block; max-width: 100%; height: auto; }
figure.pcie-path li.narrowest { font-weight: bold; color: #b00020; }
figcaption { font-size: 12.5px; color: #555; max-width: 640px; margin-top: 4px; }
p.missing, p.no-bench { color: #6d5200; background: #fff8de; padding: 6px 10px; border-radius: 3px; }
ul.bench-result { padding-left: 20px; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
`;

function table(headers: string[], rows: string[][], className: string): string {
  const head = `<thead><tr>${headers.map((header) => `<th scope="col">${header}</th>`).join('')}</tr></thead>`;
  return `<table class="${className}">${head}<tbody>${rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function header(report: Report): string {
  const source =
    report.source.mode === 'snapshot'
      ? `offline analysis of <code>${esc(report.source.path ?? 'snapshot')}</code>`
      : report.source.mode === 'recording'
        ? `replay of <code>${esc(report.source.path ?? 'recording')}</code>`
        : 'live scan';
  const s = report.summary;
  const badges = [
    [s.pass, 'pass', 'passed'],
    [s.fail, 'fail', 'failed'],
    [s.unknown, 'unknown', 'unknown'],
    [s.notApplicable, 'not-applicable', 'not applicable'],
    [s.error, 'error', 'errors'],
  ]
    .map(([count, status, label]) => `<span class="badge status-${status}">${count} ${label}</span>`)
    .join(' ');
  return [
    `<header><h1>nicdoctor report: ${esc(report.host.hostname)}</h1>`,
    '<dl class="host">',
    `<dt>Host</dt><dd>${esc(hostLine(report))}</dd>`,
    `<dt>nicdoctor</dt><dd>${esc(report.tool.version)}, profile <code>${esc(report.profile)}</code>, ${source}, <time datetime="${esc(report.generatedAt)}">${esc(report.generatedAt)}</time></dd>`,
    `<dt>Result</dt><dd><span class="summary-line">${esc(summaryLine(report))}</span><br>${badges}</dd>`,
    '</dl></header>',
  ].join('\n');
}

function interfaces(report: Report): string {
  if (report.interfaces.length === 0)
    return '<section id="interfaces"><h2>Interfaces</h2><p>No network interfaces were found.</p></section>';
  const rows = report.interfaces.map((iface) => [
    `<code>${esc(iface.name)}</code>`,
    esc(iface.kind),
    esc(iface.driver ?? ''),
    iface.pciAddress ? `<code>${esc(iface.pciAddress)}</code>` : '',
    esc(iface.speedMbps ? `${iface.speedMbps} Mb/s` : 'unknown'),
    esc(iface.mtu === null ? '' : String(iface.mtu)),
    esc(iface.operstate ?? ''),
    esc(iface.numaNode === null ? '' : String(iface.numaNode)),
    esc(iface.master ?? ''),
  ]);
  return `<section id="interfaces"><h2>Interfaces</h2>${table(['Name', 'Kind', 'Driver', 'PCI', 'Speed', 'MTU', 'State', 'NUMA', 'Member of'], rows, 'interfaces')}</section>`;
}

function checks(report: Report): string {
  const rows = report.checks.map((check) => {
    const detail = check.findings.length ? `${check.findings.length} finding${check.findings.length > 1 ? 's' : ''}` : (check.reason ?? '');
    const hint = check.hint ? ` <span class="hint">— ${esc(check.hint)}</span>` : '';
    return `<tr class="check status-${check.status}" data-check="${esc(check.id)}"><td><span class="badge">${esc(STATUS_LABEL[check.status])}</span></td><td>${esc(check.title)} <code>${esc(check.id)}</code></td><td>${esc(detail)}${hint}</td></tr>`;
  });
  return `<section id="checks"><h2>Checks</h2><table class="checks"><thead><tr><th scope="col">Status</th><th scope="col">Check</th><th scope="col">Detail</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

function finding(item: Finding): string {
  const parts = [`<article class="finding severity-${item.severity}" data-symptom="${esc(`${item.check}/${item.symptom}`)}">`];
  parts.push(`<h3><span class="badge severity-${item.severity}">${esc(item.severity.toUpperCase())}</span> ${esc(item.message)}</h3>`);
  parts.push(`<p><code>${esc(`${item.check}/${item.symptom}`)}</code> on <code>${esc(item.subject)}</code></p>`);
  if (item.evidence.length) {
    parts.push(
      table(
        ['Evidence', 'Observed', 'Expected', 'Source'],
        item.evidence.map((evidence) => [
          esc(evidence.label),
          esc(formatValue(evidence.observed, evidence.unit)),
          esc(evidence.expected === undefined ? '' : formatValue(evidence.expected, evidence.unit)),
          evidence.source ? `<code>${esc(formatSource(evidence.source))}</code>` : '',
        ]),
        'evidence',
      ),
    );
  }
  if (item.fix) parts.push(`<p class="fix"><strong>Fix:</strong> <code>${esc(item.fix)}</code></p>`);
  parts.push('</article>');
  return parts.join('\n');
}

function figure(outcome: ChartOutcome, heading: string, id: string): string {
  if (outcome.svg === null)
    return `<figure class="chart-figure chart-missing" id="${id}"><h3>${esc(heading)}</h3><p class="missing">${esc(outcome.missing)}</p></figure>`;
  return `<figure class="chart-figure" id="${id}"><h3>${esc(heading)}</h3>${outcome.svg}<figcaption>${esc(outcome.caption)}</figcaption></figure>`;
}

function bench(report: Report): string {
  const table_ = benchTable(report);
  if (!report.bench || !table_) {
    return '<section id="bench"><h2>Bench</h2><p class="no-bench">No bench was run, so there are no throughput or interrupt charts. Run <code>nicdoctor scan --peer HOST</code> (far end running <code>nicdoctor serve</code>) or <code>nicdoctor scan --loopback</code> to measure.</p></section>';
  }
  const data = report.bench;
  const parts = ['<section id="bench"><h2>Bench</h2>', `<p class="bench-heading">${esc(table_.heading)}</p>`];
  parts.push('<div class="charts" id="bench-charts">');
  parts.push(figure(rampChart(data), 'Ramp: processes vs throughput', 'figure-ramp'));
  parts.push(figure(processTimeChart(data), 'Per-process throughput over time', 'figure-process-time'));
  parts.push(figure(irqCpuChart(data), 'NIC interrupts per CPU', 'figure-irq-cpus'));
  parts.push('</div>');
  parts.push(
    table(
      table_.columns.map(esc),
      table_.rows.map((row) => row.map(esc)),
      'bench-ramp',
    ),
  );
  if (table_.result.length) parts.push(`<ul class="bench-result">${table_.result.map((line) => `<li>${esc(line)}</li>`).join('')}</ul>`);
  if (data.findings.length) parts.push('<h3>Bench findings</h3>', ...data.findings.map(finding));
  parts.push('</section>');
  return parts.join('\n');
}

/** fix --apply --verify: the before/after chart and the steps. */
function verification(report: Report): string {
  const table_ = verificationTable(report);
  if (!report.verification || !table_) return '';
  const parts = ['<section id="verification"><h2>Verification</h2>', `<p class="bench-heading">${esc(table_.heading)}</p>`];
  parts.push('<div class="charts" id="verification-charts">');
  parts.push(figure(verificationChart(report.verification), 'Before and after each fix', 'figure-verification'));
  parts.push('</div>');
  parts.push(
    table(
      table_.columns.map(esc),
      table_.rows.map((row) => row.map(esc)),
      'verification-steps',
    ),
  );
  parts.push(`<ul class="bench-result">${table_.lines.map((line) => `<li>${esc(line)}</li>`).join('')}</ul>`);
  for (const file of report.verification.persistent)
    parts.push(`<p>Persistent, in <code>${esc(file.file)}</code>:</p><pre>${esc(file.content)}</pre>`);
  parts.push('</section>');
  return parts.join('\n');
}

function diagnoses(report: Report): string {
  if (report.diagnoses.length === 0) return '';
  const items = report.diagnoses.map((diagnosis, index) => {
    const fixes = diagnosis.fixes
      .map(
        (fix) =>
          `<p><strong>Fix${fix.disruptive ? ' (disruptive)' : ''}:</strong> ${esc(fix.text)}</p>${fix.commands.length ? `<pre>${esc(fix.commands.join('\n'))}</pre>` : ''}${fix.persistent ? `<p>Persistent, in <code>${esc(fix.persistent.file)}</code>:</p><pre>${esc(fix.persistent.content)}</pre>` : ''}`,
      )
      .join('');
    const ruledOut = diagnosis.ruledOut.length
      ? `<p>Ruled out:</p><ul>${diagnosis.ruledOut.map((line) => `<li>${esc(line)}</li>`).join('')}</ul>`
      : '';
    const references = shownReferences(diagnosis.references);
    const referenceList = references.length
      ? `<p>References:</p><ul class="references">${references.map((ref) => `<li>${ref.url ? `<a href="${esc(ref.url)}" rel="noopener noreferrer">${esc(ref.text)}</a>` : esc(ref.text)}</li>`).join('')}</ul>`
      : '';
    return `<article class="diagnosis ${esc(diagnosis.mode)}"><h3>${index + 1}. ${esc(diagnosis.title)}</h3><p class="meta"><code>${esc(diagnosis.subject)}</code> · cause ${diagnosis.cause} · ${esc(diagnosis.confidence)} confidence · ${esc(diagnosisModeLabel(diagnosis))}</p><p>${esc(diagnosis.explanation)}</p><p><em>${esc(diagnosis.verdict)}</em></p>${ruledOut}${fixes}${referenceList}</article>`;
  });
  return `<section id="diagnoses"><h2>Diagnoses, most likely first</h2>\n${items.join('\n')}\n</section>`;
}

function findings(report: Report): string {
  const all = report.checks.flatMap((check) => check.findings);
  if (all.length === 0) return '';
  return `<section id="findings"><h2>Findings</h2>\n${all.map(finding).join('\n')}\n</section>`;
}

/** Interrupts per CPU and per queue, packets per RX queue, the PCIe path: drawn from the capture, no bench needed. */
function whereWorkLands(report: Report): string {
  const pictures = workPictures(report);
  if (!pictures.charts.length && !pictures.paths.length) return '';
  const charts = pictures.charts.map(
    (picture) =>
      `<figure class="chart-figure" id="figure-${picture.id}"><h3>${esc(picture.title)}</h3>${pictureSvg(picture)}<figcaption>${esc(picture.caption)}</figcaption></figure>`,
  );
  return `<section id="work"><h2>Where the work lands</h2><div class="charts" id="work-charts">${charts.join('')}${pictures.paths.map(pciePathHtml).join('')}</div></section>`;
}

/** The report as one self-contained HTML document (pure: report in, string out). */
export function renderHtml(report: Report): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="generator" content="nicdoctor ${esc(report.tool.version)}">`,
    `<title>nicdoctor report: ${esc(report.host.hostname)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    header(report),
    '<main>',
    diagnoses(report),
    interfaces(report),
    whereWorkLands(report),
    checks(report),
    bench(report),
    verification(report),
    findings(report),
    '</main>',
    `<footer>Generated by nicdoctor ${esc(report.tool.version)} (report schema ${esc(report.schemaVersion)}). This file is self-contained: it loads nothing from the network.</footer>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
