import { describe, expect, it } from 'vitest';
import { reportSchema } from '../../src/report/schema.js';
import { renderHtml } from '../../src/reporters/html.js';
import { escapeXml, niceTicks } from '../../src/reporters/svg-charts.js';
import { sampleHtmlReport } from '../helpers/browser.js';

/** The <svg id="..."> element's markup, or null. */
function svg(html: string, id: string): string | null {
  const start = html.indexOf(`<svg xmlns="http://www.w3.org/2000/svg" id="${id}"`);
  if (start < 0) return null;
  return html.slice(start, html.indexOf('</svg>', start) + 6);
}

/** Attribute values of an element class inside a fragment, e.g. every path's d. */
const all = (fragment: string, pattern: RegExp) => [...fragment.matchAll(pattern)].map((match) => match[1]!);

describe('renderHtml', () => {
  const withBench = sampleHtmlReport();
  const html = renderHtml(withBench);

  it('is one complete, self-contained document', () => {
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    // Nothing may be fetched: no external URLs, no scripts, and a CSP that forbids loading anything.
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/<[a-z][^>]*\s(src|href)=/i);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg")/);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
  });

  it("carries the Markdown report's content: host, interfaces, checks with states, findings, evidence, fixes", () => {
    expect(html).toContain('Debian GNU/Linux 12, kernel 6.1.0-22-amd64, Intel Xeon Silver 4108, 8 CPUs');
    expect(html).toContain('1 passed, 2 failed, 1 unknown, 1 not applicable, 1 errors — findings: 1 critical, 1 warning, 0 info');
    expect(html).toContain(
      '<td><code>enp65s0f0</code></td><td>physical</td><td>ixgbe</td><td><code>0000:41:00.0</code></td><td>10000 Mb/s</td><td>1500</td><td>up</td><td>1</td>',
    );
    const states = all(html, /<tr class="check status-([a-z-]+)" data-check="[^"]+">/g);
    expect(states).toEqual(['fail', 'fail', 'pass', 'unknown', 'not-applicable', 'error']);
    expect(html).toContain(
      '<tr class="check status-unknown" data-check="irq-affinity"><td><span class="badge">unknown</span></td><td>IRQ affinity <code>irq-affinity</code></td><td>cannot read /proc/irq <span class="hint">— run as root</span></td></tr>',
    );
    expect(html).toContain('<td><span class="badge">n/a</span></td><td>NUMA <code>numa-locality</code></td><td>single NUMA node</td>');
    expect(html).toContain('<article class="finding severity-warning" data-symptom="rx-rings/rings-below-max">');
    expect(html).toContain('<p class="fix"><strong>Fix:</strong> <code>ethtool -G enp65s0f0 rx 4096 tx 4096</code></p>');
    expect(html).toContain(
      '<td>usable PCIe bandwidth</td><td>7.88 Gb/s</td><td>10 Gb/s</td><td><code>lspci -vv -s 0000:41:00.0</code></td>',
    );
    expect(html).toContain('<code>/sys/bus/pci/devices/0000:41:00.0/current_link_width</code>');
  });

  it('escapes every text from the report: injected markup shows as text', () => {
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('10G port on PCIe Gen2 x2 &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('current link &lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<title>nicdoctor report: db-7 &lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;</title>');
    expect(html).toContain('electrically x8 slot &amp;&amp; reboot');
    expect(html).not.toContain('<b>');
    expect(escapeXml(`<a href='x'>&</a>`)).toBe('&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('shows the bench ramp as a table with the result and ceilings', () => {
    expect(html).toContain('<p class="bench-heading">Bench: peer 10.0.0.2 via enp65s0f0, forward, TCP, iperf3 3.16</p>');
    expect(html).toContain('<tr><td>1</td><td>1</td><td>6.04 Gb/s</td><td>12</td><td>91%</td></tr>');
    expect(html).toContain('<tr><td>2</td><td>1</td><td>7.48 Gb/s</td><td>24</td><td>91% 91%</td></tr>');
    expect(html).toContain('<li>Link goodput ceiling: 9.41 Gb/s (10000 Mb/s, MTU 1500)</li>');
    expect(html).toContain('<li>PCIe budget: 7.88 Gb/s</li>');
    expect(html).toContain('Bench findings');
    expect(html).toContain('data-symptom="bench/below-pcie-budget"');
  });

  it('draws the ramp: one point per step, the result highlighted, link and PCIe lines', () => {
    const ramp = svg(html, 'chart-ramp');
    expect(ramp).not.toBeNull();
    expect(ramp).toContain('role="img"');
    expect(ramp).toContain('aria-labelledby="chart-ramp-title chart-ramp-desc"');
    expect(ramp).toContain('<title id="chart-ramp-title">Bench ramp: throughput by number of iperf3 processes</title>');
    expect(ramp).toContain('1 → 6.04, 2 → 7.48');
    expect(all(ramp!, /<circle class="(point[^"]*)"/g)).toEqual(['point', 'point point-highlight']);
    expect(all(ramp!, /<path class="series-line" d="([^"]+)"/g)).toHaveLength(1);
    expect(ramp).toContain('class="reference-line ref-ceiling"');
    expect(ramp).toContain('link goodput ceiling 9.41 Gb/s');
    expect(ramp).toContain('class="reference-line ref-pcie"');
    expect(ramp).toContain('PCIe budget 7.88 Gb/s');
    // The ceiling sits above the PCIe line (smaller y in SVG) and above every point.
    const ceilingY = Number(/ref-ceiling"><line x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)"/.exec(ramp!)![1]);
    const pcieY = Number(/ref-pcie"><line x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)"/.exec(ramp!)![1]);
    const pointYs = all(ramp!, /<circle class="point[^"]*" cx="[\d.]+" cy="([\d.]+)"/g).map(Number);
    expect(ceilingY).toBeLessThan(pcieY);
    for (const y of pointYs) expect(y).toBeGreaterThan(pcieY);
    expect(pointYs[1]).toBeLessThan(pointYs[0]!); // 7.48 Gb/s is drawn higher than 6.04
  });

  it('draws one line per process over time, with a legend', () => {
    const chart = svg(html, 'chart-process-time')!;
    expect(chart).not.toBeNull();
    expect(all(chart, /<g class="series series-\d+" data-label="([^"]+)"/g)).toEqual(['p1 (CPU 2)', 'p2 (CPU 3)']);
    const paths = all(chart, /<path class="series-line" d="([^"]+)"/g);
    expect(paths).toHaveLength(2);
    for (const d of paths) expect(d.match(/[ML]/g)).toHaveLength(5); // five intervals each
    expect(chart).toContain('<g class="legend"');
    expect(chart).toContain('>p2 (CPU 3)</text>');
  });

  it('draws the per-CPU interrupt map: one heat-coloured bar per CPU, pinned CPUs marked', () => {
    const chart = svg(html, 'chart-irq-cpus')!;
    expect(chart).not.toBeNull();
    expect(all(chart, /<rect class="bar[^"]*" data-label="(\d+)"/g)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(all(chart, /<rect class="bar[^"]*" data-label="\d+" data-value="(\d+)"/g).map(Number)).toEqual([
      120500, 12, 98210, 0, 4, 0, 61000, 3,
    ]);
    expect(all(chart, /<rect class="(bar bar-marked)" data-label="(?:2|3)"/g)).toHaveLength(2);
    const fills = all(chart, /<rect class="bar[^"]*"[^>]* fill="(rgb\([^"]+\))"/g);
    expect(fills[0]).toBe('rgb(165,15,21)'); // the busiest CPU is the darkest
    expect(fills[3]).toBe('rgb(254,224,210)'); // an idle CPU is the palest
    expect(chart).toContain('279729 interrupts over 8 CPUs; the busiest is CPU 0 with 120500.');
  });

  it('says there was no bench instead of drawing empty charts', () => {
    const plain = renderHtml(sampleHtmlReport({ withBench: false }));
    expect(plain).toContain('<p class="no-bench">No bench was run');
    expect(plain).not.toContain('<svg');
    expect(plain).not.toContain('bench-ramp');
    expect(plain).toContain('<section id="findings">');
  });

  it('explains a missing chart when the bench lacks its data', () => {
    const report = sampleHtmlReport();
    const bench = report.bench!;
    const partial = reportSchema.parse({
      ...report,
      bench: {
        ...bench,
        ceilingBitsPerSecond: null,
        pcieBitsPerSecond: null,
        result: null,
        complete: false,
        error: 'interrupted',
        steps: bench.steps.map((step) => ({ ...step, perProcess: step.perProcess.map((process) => ({ ...process, intervals: [] })) })),
        counters: { ...bench.counters, interruptsPerCpu: [] },
      },
    });
    const out = renderHtml(partial);
    const ramp = svg(out, 'chart-ramp')!;
    expect(ramp).not.toBeNull();
    expect(ramp).not.toContain('reference-line ');
    expect(ramp).not.toContain('point-highlight');
    expect(out).toContain('link ceiling unknown (link speed not known); PCIe budget unknown.');
    expect(svg(out, 'chart-process-time')).toBeNull();
    expect(out).toContain('No per-interval throughput was recorded for the bench processes.');
    expect(svg(out, 'chart-irq-cpus')).toBeNull();
    expect(out).toContain('The NIC&#39;s interrupt counts were not available');
    expect(out).toContain('<li>INCOMPLETE: interrupted (partial results above)</li>');
  });

  it("falls back to the last step's processes when the bench has no result", () => {
    const report = sampleHtmlReport();
    const out = renderHtml(reportSchema.parse({ ...report, bench: { ...report.bench!, result: null } }));
    expect(all(svg(out, 'chart-process-time')!, /<path class="series-line" d="([^"]+)"/g)).toHaveLength(2);
    expect(out).toContain('No final result was recorded: these are the last ramp step&#39;s processes.');
  });

  it('is deterministic', () => {
    expect(renderHtml(sampleHtmlReport())).toBe(html);
  });

  it('computes round axis ticks', () => {
    expect(niceTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0, 8.1)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0.5, 6)).toEqual([0, 2, 4, 6]);
    expect(niceTicks(2, 6, 6)).toEqual([2, 3, 4, 5, 6]);
    expect(niceTicks(0, 130000)).toEqual([0, 50000, 100000, 150000]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });
});
