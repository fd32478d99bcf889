import type { PolicyItem, PolicyResult } from '../policy/evaluate.js';
import type { CheckResult, Finding, Report, SubjectResult } from '../report/schema.js';
import { formatEvidence, formatSource, formatValue } from './format-values.js';
import { xmlAttr, xmlText } from './escape.js';

function attrs(values: Record<string, string | number | undefined>): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${xmlAttr(String(value))}"`)
    .join('');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

interface TestCase {
  classname: string;
  name: string;
  timeMs: number;
  outcome:
    { kind: 'pass' } | { kind: 'failure' | 'error'; message: string; type: string; body: string } | { kind: 'skipped'; message: string };
  output?: string;
}

function findingText(finding: Finding): string {
  const lines = [`[${finding.severity}] ${finding.check}/${finding.symptom} on ${finding.subject}: ${finding.message}`];
  for (const evidence of finding.evidence)
    lines.push(`  ${formatEvidence(evidence)}${evidence.source ? ` [${formatSource(evidence.source)}]` : ''}`);
  if (finding.fix) lines.push(`  fix: ${finding.fix}`);
  return lines.join('\n');
}

/** One case per check and subject; a check that examined no subject is one case on its own. */
function checkCases(check: CheckResult): TestCase[] {
  const subjects: SubjectResult[] = check.subjects.length
    ? check.subjects
    : [
        {
          subject: '',
          status: check.status,
          ...(check.reason ? { reason: check.reason } : {}),
          ...(check.hint ? { hint: check.hint } : {}),
        },
      ];
  const timeMs = check.durationMs / subjects.length;
  return subjects.map((subject) => {
    const findings = check.findings.filter((finding) => subject.subject === '' || finding.subject === subject.subject);
    const base = {
      classname: `nicdoctor.checks.${check.id}`,
      name: subject.subject ? `${check.id} [${subject.subject}]` : check.id,
      timeMs,
    };
    const reason = `${subject.reason ?? check.reason ?? 'no reason given'}${(subject.hint ?? check.hint) ? ` (${subject.hint ?? check.hint})` : ''}`;
    const output = findings.length ? findings.map(findingText).join('\n\n') : undefined;
    switch (subject.status) {
      case 'pass':
        return { ...base, outcome: { kind: 'pass' }, ...(output ? { output } : {}) };
      case 'fail': {
        const serious = findings.filter((finding) => finding.severity !== 'info');
        const worst = serious.some((finding) => finding.severity === 'critical') ? 'critical' : 'warning';
        const message = (serious.length ? serious : findings).map((finding) => finding.message).join('; ') || `${check.title}: failed`;
        return { ...base, outcome: { kind: 'failure', message, type: worst, body: output ?? message } };
      }
      case 'error':
        return {
          ...base,
          outcome: {
            kind: 'error',
            message: check.error?.message ?? reason,
            type: 'check-error',
            body: check.error?.stack ?? check.error?.message ?? reason,
          },
        };
      case 'unknown':
      case 'not-applicable':
        return { ...base, outcome: { kind: 'skipped', message: `${subject.status}: ${reason}` }, ...(output ? { output } : {}) };
    }
  });
}

function policyCase(policy: PolicyResult, item: PolicyItem): TestCase {
  const base = { classname: `nicdoctor.policy.${policy.name}`, name: item.id, timeMs: 0 };
  const body = `${item.title}\nobserved: ${formatValue(item.observed)}\nexpected: ${formatValue(item.expected)}\n${item.reason}`;
  if (item.status === 'pass') return { ...base, outcome: { kind: 'pass' }, output: body };
  if (item.status === 'fail')
    return {
      ...base,
      outcome: {
        kind: 'failure',
        message: `${item.title}: observed ${formatValue(item.observed)}, expected ${formatValue(item.expected)}: ${item.reason}`,
        type: 'policy',
        body,
      },
    };
  // An unknown item that fails the policy must fail the CI job too, not hide as skipped.
  if (policy.unknownFails)
    return { ...base, outcome: { kind: 'failure', message: `${item.title}: could not be judged: ${item.reason}`, type: 'unknown', body } };
  return { ...base, outcome: { kind: 'skipped', message: `unknown: ${item.reason}` } };
}

function suite(
  name: string,
  cases: TestCase[],
  extra: Record<string, string | number | undefined>,
  properties: Record<string, string>,
): { xml: string[]; counts: Record<string, number> } {
  const counts = {
    tests: cases.length,
    failures: cases.filter((c) => c.outcome.kind === 'failure').length,
    errors: cases.filter((c) => c.outcome.kind === 'error').length,
    skipped: cases.filter((c) => c.outcome.kind === 'skipped').length,
  };
  const time = cases.reduce((sum, c) => sum + c.timeMs, 0);
  const xml = [`  <testsuite${attrs({ name, ...counts, time: seconds(time), ...extra })}>`];
  const props = Object.entries(properties);
  if (props.length) {
    xml.push('    <properties>');
    for (const [key, value] of props) xml.push(`      <property${attrs({ name: key, value })}/>`);
    xml.push('    </properties>');
  }
  for (const c of cases) {
    const open = `    <testcase${attrs({ classname: c.classname, name: c.name, time: seconds(c.timeMs) })}`;
    const output = c.output ? `      <system-out>${xmlText(c.output)}</system-out>` : null;
    if (c.outcome.kind === 'pass' && !output) {
      xml.push(`${open}/>`);
      continue;
    }
    xml.push(`${open}>`);
    if (c.outcome.kind === 'failure' || c.outcome.kind === 'error') {
      xml.push(
        `      <${c.outcome.kind}${attrs({ message: c.outcome.message, type: c.outcome.type })}>${xmlText(c.outcome.body)}</${c.outcome.kind}>`,
      );
    } else if (c.outcome.kind === 'skipped') {
      xml.push(`      <skipped${attrs({ message: c.outcome.message })}/>`);
    }
    if (output) xml.push(output);
    xml.push('    </testcase>');
  }
  xml.push('  </testsuite>');
  return { xml, counts };
}

/**
 * JUnit XML for CI systems (GitLab, Jenkins, GitHub test reporters): a suite of checks (one case
 * per check and subject) and, with a policy result, a suite of policy items. Pure.
 */
export function renderJunit(report: Report, policy?: PolicyResult): string {
  const common = { timestamp: report.generatedAt.replace(/\.\d+Z$/, ''), hostname: report.host.hostname };
  const suites = [
    suite(`nicdoctor checks: ${report.host.hostname}`, report.checks.flatMap(checkCases), common, {
      'nicdoctor.version': report.tool.version,
      profile: report.profile,
      source: report.source.mode + (report.source.path ? ` ${report.source.path}` : ''),
      kernel: report.host.kernel,
    }),
  ];
  if (policy) {
    suites.push(
      suite(
        `nicdoctor policy: ${policy.name}`,
        policy.items.map((item) => policyCase(policy, item)),
        common,
        {
          ...(policy.role ? { role: policy.role } : {}),
          result: policy.pass ? 'pass' : 'fail',
          'unknown-items': policy.unknownFails ? 'fail' : 'ignored',
        },
      ),
    );
  }
  const total = (key: string) => suites.reduce((sum, s) => sum + s.counts[key]!, 0);
  const head = `<testsuites${attrs({ name: 'nicdoctor', tests: total('tests'), failures: total('failures'), errors: total('errors'), skipped: total('skipped'), time: seconds(report.durationMs) })}>`;
  return ['<?xml version="1.0" encoding="UTF-8"?>', head, ...suites.flatMap((s) => s.xml), '</testsuites>'].join('\n') + '\n';
}
