import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { loadPolicy } from '../../src/policy/schema.js';
import type { Report } from '../../src/report/schema.js';
import { escapeLabelValue, renderPrometheus } from '../../src/reporters/prometheus.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { scanScenario, scenarioNames, syntheticBench } from '../helpers/scenario-reports.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/y;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const VALUE = /^(?:[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|NaN|[-+]Inf)$/;

/**
 * A strict checker of the text exposition format as node_exporter's textfile collector reads it:
 * HELP then TYPE once per family before its samples, families contiguous, valid names, escaped
 * label values, no timestamps, no duplicate series, newline-terminated.
 */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string>; help: Map<string, string> } {
  expect(text.endsWith('\n'), 'ends with a newline').toBe(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const finished = new Set<string>();
  const series = new Set<string>();
  let current: string | null = null;
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, index) => {
    const where = `line ${index + 1}: ${line}`;
    expect(line.length, `${where}: no empty lines`).toBeGreaterThan(0);
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      expect(name, where).toMatch(METRIC_NAME);
      if (kind === 'HELP') {
        expect(help.has(name) || finished.has(name), `${where}: one HELP per family`).toBe(false);
        expect(rest, `${where}: HELP escapes backslash and newline only`).not.toMatch(/\\[^\\n]/);
        help.set(name, rest);
        if (current !== null && current !== name) finished.add(current);
        current = name;
      } else {
        expect(['counter', 'gauge', 'histogram', 'summary', 'untyped'], where).toContain(rest);
        expect(types.has(name), `${where}: one TYPE per family`).toBe(false);
        expect(current, `${where}: TYPE follows its HELP`).toBe(name);
        types.set(name, rest);
      }
      return;
    }
    expect(line.startsWith('#'), `${where}: only HELP and TYPE comments`).toBe(false);
    const match = SAMPLE.exec(line);
    expect(match, `${where}: name{labels} value, no timestamp`).not.toBeNull();
    const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
    expect(name, `${where}: sample of the family just declared`).toBe(current);
    expect(types.has(name), `${where}: TYPE before samples`).toBe(true);
    expect(valueText, where).toMatch(VALUE);
    const labels: Record<string, string> = {};
    if (labelText !== undefined) {
      LABEL_PAIR.lastIndex = 0;
      while (LABEL_PAIR.lastIndex < labelText.length) {
        const start = LABEL_PAIR.lastIndex;
        const pair = LABEL_PAIR.exec(labelText);
        expect(pair, `${where}: label at ${start}`).not.toBeNull();
        const [, key, raw] = pair as unknown as [string, string, string];
        expect(key.startsWith('__'), `${where}: reserved label name`).toBe(false);
        expect(key in labels, `${where}: label ${key} repeated`).toBe(false);
        labels[key] = raw.replace(/\\(["\\n])/g, (_, char: string) => (char === 'n' ? '\n' : char));
      }
    }
    const id = `${name}{${Object.keys(labels)
      .sort()
      .map((key) => `${key}=${JSON.stringify(labels[key])}`)
      .join(',')}}`;
    expect(series.has(id), `${where}: duplicate series`).toBe(false);
    series.add(id);
    samples.push({ name, labels, value: Number(valueText.replace(/^\+Inf$/, 'Infinity').replace(/^-Inf$/, '-Infinity')) });
  });
  return { samples, types, help };
}

const pick = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));

describe('renderPrometheus', () => {
  it.each(scenarioNames)('scenario %s: valid exposition, one state per check subject, findings per severity', async (name) => {
    const { report } = await scanScenario(name);
    const { samples, types } = parseExposition(renderPrometheus(report));
    for (const type of types.values()) expect(type).toBe('gauge');
    for (const check of report.checks) {
      const subjects = check.subjects.length ? check.subjects : [{ subject: '', status: check.status }];
      for (const subject of subjects) {
        const states = pick(samples, 'nicdoctor_check_status', { check: check.id, subject: subject.subject });
        expect(states.map((sample) => sample.labels.status).sort()).toEqual(['error', 'fail', 'not-applicable', 'pass', 'unknown']);
        expect(states.filter((sample) => sample.value === 1).map((sample) => sample.labels.status)).toEqual([subject.status]);
      }
      for (const severity of ['critical', 'warning', 'info'] as const) {
        expect(pick(samples, 'nicdoctor_findings', { check: check.id, severity })[0]?.value).toBe(
          check.findings.filter((finding) => finding.severity === severity).length,
        );
      }
    }
    for (const iface of report.interfaces) {
      expect(pick(samples, 'nicdoctor_interface_mtu_bytes', { interface: iface.name })[0]?.value).toBe(iface.mtu ?? undefined);
      expect(pick(samples, 'nicdoctor_interface_speed_mbps', { interface: iface.name })[0]?.value).toBe(iface.speedMbps ?? undefined);
    }
    expect(pick(samples, 'nicdoctor_scan_timestamp_seconds')[0]?.value).toBe(Date.parse(report.generatedAt) / 1000);
    expect(pick(samples, 'nicdoctor_scan_duration_seconds')[0]?.value).toBe(report.durationMs / 1000);
    expect(pick(samples, 'nicdoctor_bench_bits_per_second')).toEqual([]);
  });

  it('the ixgbe scenario reports its 10G speed and a critical pcie-link finding', async () => {
    const { report } = await scanScenario('ixgbe-10g-pcie-degraded');
    const { samples } = parseExposition(renderPrometheus(report));
    expect(pick(samples, 'nicdoctor_interface_speed_mbps', { interface: 'eth2' })[0]?.value).toBe(10_000);
    expect(pick(samples, 'nicdoctor_findings', { check: 'pcie-link', severity: 'critical' })[0]?.value).toBe(1);
    expect(pick(samples, 'nicdoctor_check_status', { check: 'pcie-link', subject: 'eth2', status: 'fail' })[0]?.value).toBe(1);
  });

  it('bench and policy metrics', async () => {
    const { report } = await scanScenario(
      'ixgbe-10g-pcie-degraded',
      syntheticBench({ processes: 4, perProcessGbps: 1.75, retransmits: 12, interface: 'eth2' }),
    );
    const result = evaluatePolicy(await loadPolicy(`${FIXTURES}/../policies/10g.yaml`), report);
    const { samples } = parseExposition(renderPrometheus(report, result));
    const benchLabels = { mode: 'peer', peer: '192.0.2.7', direction: 'forward', protocol: 'tcp', interface: 'eth2' };
    expect(pick(samples, 'nicdoctor_bench_bits_per_second', benchLabels)[0]?.value).toBeCloseTo(7e9, -3);
    expect(pick(samples, 'nicdoctor_bench_ceiling_bits_per_second', benchLabels)[0]?.value).toBeCloseTo(9.41e9, -7);
    expect(pick(samples, 'nicdoctor_bench_retransmits', benchLabels)[0]?.value).toBe(48);
    expect(pick(samples, 'nicdoctor_bench_complete')[0]?.value).toBe(1);
    expect(pick(samples, 'nicdoctor_policy_pass', { policy: '10g' })[0]?.value).toBe(0);
    for (const item of result.items) {
      expect(pick(samples, 'nicdoctor_policy_item_pass', { policy: '10g', item: item.id })[0]?.value).toBe(item.status === 'pass' ? 1 : 0);
      expect(pick(samples, 'nicdoctor_policy_item_status', { policy: '10g', item: item.id, status: item.status })[0]?.value).toBe(1);
    }
    expect(pick(samples, 'nicdoctor_policy_item_pass', { item: 'min-bench-gbps' })[0]?.value).toBe(0);
    expect(pick(samples, 'nicdoctor_policy_item_pass', { item: 'mtu:eth2' })[0]?.value).toBe(1);
  });

  it('escapes label values and help text, and never repeats a series', async () => {
    const { report } = await scanScenario('virtio-vm-single-queue');
    const hostile: Report = JSON.parse(JSON.stringify(report));
    hostile.host.hostname = 'a"b\\c\nd';
    hostile.checks.push({ ...hostile.checks[0]!, id: 'odd "check"\\' });
    hostile.checks.push({ ...hostile.checks[0]! });
    const text = renderPrometheus(hostile);
    const { samples } = parseExposition(text);
    expect(text).toContain('hostname="a\\"b\\\\c\\nd"');
    expect(pick(samples, 'nicdoctor_info')[0]?.labels.hostname).toBe('a"b\\c\nd');
    expect(pick(samples, 'nicdoctor_findings', { check: 'odd "check"\\' })).toHaveLength(3);
    expect(escapeLabelValue('x"\\\n')).toBe('x\\"\\\\\\n');
  });
});
