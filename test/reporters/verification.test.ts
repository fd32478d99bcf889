import { describe, expect, it } from 'vitest';
import { reportSchema } from '../../src/report/schema.js';
import { render } from '../../src/reporters/index.js';
import { verificationChart } from '../../src/reporters/verification-chart.js';
import { sampleHtmlReport } from '../helpers/browser.js';
import { sampleVerification } from '../helpers/sample-verification.js';

const report = () => ({ ...sampleHtmlReport(), verification: sampleVerification() });
const options = { color: false, verbose: false, short: false };

describe('the verification section in every report format', () => {
  it('is valid in the report schema and survives JSON', () => {
    const parsed = reportSchema.parse(JSON.parse(render(report(), 'json', options)));
    expect(parsed.verification?.steps.map((step) => step.verdict)).toEqual(['reverted', 'kept']);
  });

  it('terminal (one-screen, short and long): each step with before/after Gb/s, retransmits, CPU, verdict and why', () => {
    for (const variant of [options, { ...options, short: true }, { ...options, verbose: true }]) {
      const text = render(report(), 'terminal', variant);
      expect(text).toContain('1. ethtool -L enp65s0f0 rx 2 tx 2: reverted');
      expect(text).toContain('2. ethtool -K enp65s0f0 tso on gso on: kept');
      expect(text).toMatch(/2\.80 ± 0\.20 \(3 runs\) → 6\.37 ± 0\.25 \(3 runs\) Gb\/s, retransmits 29 → 3, CPU 14 % → 18 %/);
      expect(text).toContain('throughput +3.57 Gb/s, beyond the noise');
      expect(text).toContain('--allow-disruptive runs it');
    }
  });

  it('Markdown: a table row per step', () => {
    const text = render(report(), 'markdown', options);
    expect(text).toContain('## Verification');
    expect(text).toMatch(
      /^\| 2 \| ethtool -K enp65s0f0 tso on gso on \| 2\.80 ± 0\.20 \(3 runs\) \| 6\.37 ± 0\.25 \(3 runs\) \| 29 → 3 \| 14 % → 18 % \| kept \|/m,
    );
  });

  it('HTML: the before/after chart, kept bars outlined, and the persistent file of the kept change', () => {
    const html = render(report(), 'html', options);
    expect(html).toContain('<section id="verification">');
    expect(html).toContain('id="chart-verification"');
    const chart = html.slice(html.indexOf('id="chart-verification"'), html.indexOf('</svg>', html.indexOf('id="chart-verification"')));
    expect(chart.match(/<rect class="bar[ "]/g)).toHaveLength(4);
    expect(chart.match(/class="bar bar-marked"/g)).toHaveLength(1);
    expect(html).toContain('/etc/systemd/network/10-nicdoctor-enp65s0f0.link');
    expect(render(sampleHtmlReport(), 'html', options)).not.toContain('id="verification"');
  });

  it('no chart when no step was measured on both sides', () => {
    const verification = { ...sampleVerification(), steps: [] };
    expect(verificationChart(verification)).toEqual({ svg: null, missing: 'No step was measured before and after.' });
  });
});
