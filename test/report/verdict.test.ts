import { describe, expect, it } from 'vitest';
import { reportVerdict, VERDICT_COVERAGE } from '../../src/report/verdict.js';
import type { Report } from '../../src/report/schema.js';
import { nic, report } from '../rules/helpers.js';

type Check = Report['checks'][number];

const check = (id: string, status: Check['status'], extra: Partial<Check> = {}): Check => ({
  id,
  title: id,
  status,
  durationMs: 1,
  subjects: [],
  findings: [],
  ...extra,
});

/** A report whose checks are exactly these, with no findings or diagnoses. */
function withChecks(checks: Check[], extra: Partial<Report> = {}): Report {
  return { ...report({ interfaces: [nic()] }), checks, ...extra };
}

describe('the verdict', () => {
  it('states its coverage threshold as data, with a reason', () => {
    expect(VERDICT_COVERAGE.minJudgedShare).toBeGreaterThan(0);
    expect(VERDICT_COVERAGE.reason.length).toBeGreaterThan(20);
  });

  it('is "Inconclusive: the capture lets N of M checks judge" when one check of twenty could run, never "No bottleneck found"', () => {
    const checks = [
      check('mtu', 'pass'),
      ...Array.from({ length: 17 }, (_, index) =>
        check(`c${index}`, 'unknown', {
          reason: 'not captured',
          hint: index % 2 ? 'capture `ethtool -S eth0`' : 'capture `ethtool -k eth0`',
        }),
      ),
      check('numa-locality', 'not-applicable'),
      check('throughput', 'unknown', { reason: 'no bench' }),
    ];
    const verdict = reportVerdict(withChecks(checks));
    expect(verdict.status).toBe('inconclusive');
    expect(verdict.headline).toMatch(/^Inconclusive: the capture lets 1 of 18 checks judge/);
    expect(verdict.headline).not.toContain('No bottleneck');
    // One line per missing output, however many checks it would decide; the bench on its own line.
    expect(verdict.notExamined).toEqual([
      'capture `ethtool -k eth0` (would decide c0, c2, c4, c6, c8, c10, c12, c14, c16)',
      'capture `ethtool -S eth0` (would decide c1, c3, c5, c7, c9, c11, c13, c15)',
      'throughput: no bench was run (add --peer HOST or --loopback)',
    ]);
  });

  it('names the command asked for (pasted text) once, with every check it would decide', () => {
    const checks = [check('mtu', 'pass'), check('rx-rings', 'unknown', { reason: 'x' }), check('nic-drops', 'unknown', { reason: 'y' })];
    const askFor = [{ command: 'ethtool -S eth0', checks: ['rx-rings', 'nic-drops'], subject: 'eth0' }];
    expect(reportVerdict(withChecks(checks, { askFor })).notExamined[0]).toBe('ethtool -S eth0 (would decide rx-rings, nic-drops)');
  });

  it('says "No bottleneck found" when most checks that apply could judge', () => {
    const checks = [
      check('mtu', 'pass'),
      check('rx-rings', 'pass'),
      check('nic-drops', 'unknown', { reason: 'x' }),
      check('numa', 'not-applicable'),
    ];
    expect(reportVerdict(withChecks(checks)).headline).toBe('No bottleneck found');
  });
});
