import { describe, expect, it } from 'vitest';
import { render } from '../../src/reporters/index.js';
import { shownReferences } from '../../src/reporters/references.js';
import { scanScenario } from '../helpers/scenario-reports.js';

// A real scenario (a 10G ixgbe port on a degraded PCIe link) has a diagnosis with references.
const outcome = await scanScenario('ixgbe-10g-pcie-degraded');
const report = outcome.report;
const diagnosis = report.diagnoses[0]!;

describe('references in reports', () => {
  it('the scenario has a diagnosis citing its cause and a URL', () => {
    expect(diagnosis.references).toContain(`docs/causes.md#cause-${diagnosis.cause}`);
    expect(diagnosis.references.some((reference) => reference.startsWith('https://'))).toBe(true);
  });

  it('HTML links each URL and names the cause', () => {
    const html = render(report, 'html', { color: false });
    for (const reference of diagnosis.references.filter((item) => item.startsWith('https://')))
      expect(html).toContain(`<a href="${reference.replace(/&/g, '&amp;')}" rel="noopener noreferrer">`);
    expect(html).toContain(`nicdoctor explain cause ${diagnosis.cause}`);
  });

  it('Markdown links each URL', () => {
    const markdown = render(report, 'markdown', { color: false });
    const url = diagnosis.references.find((item) => item.startsWith('https://'))!;
    expect(markdown).toContain(`- [${url}](${url})`);
  });

  it('the terminal prints each URL', () => {
    const terminal = render(report, 'terminal', { color: false });
    for (const reference of diagnosis.references.filter((item) => item.startsWith('https://'))) expect(terminal).toContain(reference);
  });

  it('a reference that is not an http(s) URL never becomes a link', () => {
    const hostile = {
      ...report,
      diagnoses: [
        { ...diagnosis, references: ['javascript:alert(1)', 'https://example.org/"><script>x</script>', 'docs/causes.md#cause-7'] },
      ],
    };
    const html = render(hostile, 'html', { color: false });
    expect(html).not.toContain('href="javascript:');
    expect(html).not.toContain('<script>x');
    expect(shownReferences(['javascript:alert(1)'])).toEqual([{ text: 'javascript:alert(1)', url: null }]);
    const markdown = render(hostile, 'markdown', { color: false });
    expect(markdown).not.toContain('](javascript:');
    expect(markdown).not.toContain('<script>');
  });
});
