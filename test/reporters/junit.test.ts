import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { loadPolicy, parsePolicy } from '../../src/policy/schema.js';
import type { Report } from '../../src/report/schema.js';
import { renderJunit } from '../../src/reporters/junit.js';
import { xmlAttr, xmlText } from '../../src/reporters/escape.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { scanScenario, scenarioNames, syntheticBench } from '../helpers/scenario-reports.js';

type Node = Record<string, unknown>;
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
});

/** Well-formed (fast-xml-parser's validator), then parsed back. */
function parse(xml: string): { testsuites: Node & { testsuite: Array<Node & { testcase: Node[] }> } } {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as never;
}

const text = (node: unknown): string =>
  typeof node === 'string' ? node : String(((node as Node)['#text'] as string | number | undefined) ?? '');

describe('renderJunit', () => {
  it.each(scenarioNames)('scenario %s: well-formed, one case per check and subject, outcome per status', async (name) => {
    const { report } = await scanScenario(name);
    const xml = renderJunit(report);
    const doc = parse(xml);
    expect(doc.testsuites.testsuite).toHaveLength(1);
    const suite = doc.testsuites.testsuite[0]!;
    const cases = suite.testcase;
    const expected = report.checks.flatMap((check) =>
      check.subjects.length ? check.subjects.map((subject) => ({ check, status: subject.status })) : [{ check, status: check.status }],
    );
    expect(cases).toHaveLength(expected.length);
    expected.forEach(({ check, status }, index) => {
      const testcase = cases[index]!;
      expect(testcase['@classname']).toBe(`nicdoctor.checks.${check.id}`);
      expect('failure' in testcase).toBe(status === 'fail');
      expect('error' in testcase).toBe(status === 'error');
      expect('skipped' in testcase).toBe(status === 'unknown' || status === 'not-applicable');
    });
    const count = (key: string) => cases.filter((testcase) => key in testcase).length;
    expect(suite['@tests']).toBe(String(cases.length));
    expect(suite['@failures']).toBe(String(count('failure')));
    expect(suite['@skipped']).toBe(String(count('skipped')));
    expect(doc.testsuites['@tests']).toBe(String(cases.length));
  });

  it("a failure carries the findings' messages, evidence with sources, and the fix", async () => {
    const { report } = await scanScenario('ixgbe-10g-pcie-degraded');
    const doc = parse(renderJunit(report));
    const testcase = doc.testsuites.testsuite[0]!.testcase.find((candidate) => candidate['@name'] === 'pcie-link [eth2]')!;
    const failure = testcase.failure as Node;
    const finding = report.checks.find((check) => check.id === 'pcie-link')!.findings[0]!;
    expect(failure['@type']).toBe('critical');
    expect(failure['@message']).toBe(finding.message);
    expect(text(failure)).toContain(`fix: ${finding.fix}`);
    expect(text(failure)).toContain('lspci');
    const skipped = doc.testsuites.testsuite[0]!.testcase.find((candidate) => candidate['@name'] === 'iperf3 [host]')!;
    expect((skipped.skipped as Node)['@message']).toMatch(/^unknown: iperf3\.version: the snapshot holds no output/);
  });

  it('adds a policy suite: one case per item; unknown items fail when the policy counts them, else are skipped', async () => {
    const { report } = await scanScenario(
      'ixgbe-10g-pcie-degraded',
      syntheticBench({ processes: 4, perProcessGbps: 1.75, interface: 'eth2' }),
    );
    const policy = await loadPolicy(`${FIXTURES}/../policies/10g.yaml`);
    const result = evaluatePolicy(policy, report);
    const doc = parse(renderJunit(report, result));
    expect(doc.testsuites.testsuite).toHaveLength(2);
    const suite = doc.testsuites.testsuite[1]!;
    expect(suite['@name']).toBe('nicdoctor policy: 10g');
    expect(suite.testcase.map((testcase) => testcase['@name'])).toEqual(result.items.map((item) => item.id));
    const bench = suite.testcase.find((testcase) => testcase['@name'] === 'min-bench-gbps')!;
    expect((bench.failure as Node)['@message']).toMatch(/observed 7, expected >= 9 Gb\/s/);
    const unknownIds = result.items.filter((item) => item.status === 'unknown').map((item) => item.id);
    expect(unknownIds.length).toBeGreaterThan(0);
    for (const id of unknownIds)
      expect((suite.testcase.find((testcase) => testcase['@name'] === id)!.failure as Node)['@type']).toBe('unknown');
    expect(suite['@failures']).toBe(String(result.counts.fail + result.counts.unknown));

    const lenient = evaluatePolicy({ ...policy, onUnknown: 'ignore' }, report);
    const lenientSuite = parse(renderJunit(report, lenient)).testsuites.testsuite[1]!;
    expect(lenientSuite['@skipped']).toBe(String(lenient.counts.unknown));
    expect(lenientSuite['@failures']).toBe(String(lenient.counts.fail));
  });

  it('escapes hostile text in attributes and bodies and shows the control characters XML cannot hold', async () => {
    const { report } = await scanScenario('i40e-small-rings-drops');
    const nasty = 'a <b> & "c" \'d\' ]]> e\u0001\u001f\nline2\ttab';
    const hostile: Report = JSON.parse(JSON.stringify(report));
    const check = hostile.checks.find((candidate) => candidate.id === 'nic-drops')!;
    // A failing drops finding (the scenario's real one is negligible, an info note).
    check.status = 'fail';
    check.subjects = check.subjects.map((subject) => ({ ...subject, status: 'fail' }));
    check.findings[0]!.severity = 'warning';
    check.findings[0]!.message = nasty;
    check.findings[0]!.fix = `echo "${nasty}"`;
    check.title = nasty;
    hostile.host.hostname = 'host<&>"';
    hostile.checks.push({
      id: 'broken',
      title: 'Broken',
      status: 'error',
      reason: 'the check broke: <boom>',
      durationMs: 1,
      subjects: [],
      findings: [],
      error: { message: '<boom> & "bang"', stack: 'Error: <boom>\n    at x (y.ts:1:1)' },
    });
    const xml = renderJunit(hostile, evaluatePolicy(parsePolicy('name: "p<&>"\nmtu: 1500\n', 'p.yaml'), hostile));
    expect(xml).not.toContain('\u0001');
    const doc = parse(xml);
    const cases = doc.testsuites.testsuite[0]!.testcase;
    const drops = cases.find((testcase) => testcase['@name'] === 'nic-drops [eth0]')!;
    // The test's own control characters, made visible as in every other medium (escape.ts).
    const clean = nasty.replace('\u0001', '\\x01').replace('\u001f', '\\x1f');
    expect((drops.failure as Node)['@message']).toBe(clean);
    expect(text(drops.failure)).toContain(`fix: echo "${clean}"`);
    const broken = cases.find((testcase) => testcase['@name'] === 'broken')!;
    expect((broken.error as Node)['@message']).toBe('<boom> & "bang"');
    expect(text(broken.error)).toContain('at x (y.ts:1:1)');
    expect(doc.testsuites.testsuite[0]!['@errors']).toBe('1');
    expect(doc.testsuites.testsuite[0]!['@hostname']).toBe('host<&>"');
    expect(doc.testsuites.testsuite[1]!['@name']).toBe('nicdoctor policy: p<&>');
  });

  it('escape helpers', () => {
    expect(xmlText('a<b>&c')).toBe('a&lt;b&gt;&amp;c');
    expect(xmlAttr('"x"\n\'y\'')).toBe('&quot;x&quot;&#10;&apos;y&apos;');
    expect(xmlText('ok \uD83D\uDE00 lone \uD800 end')).toBe('ok \uD83D\uDE00 lone  end');
  });
});
