import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { analyzeText } from '../../src/text/analyze.js';
import { silentLogger } from '../../src/util/log.js';
import { realCapture } from '../helpers/fixtures.js';

const analyze = async (text: string) => (await analyzeText(text, { checks, log: silentLogger() }))[0]!.report;
const check = (report: Awaited<ReturnType<typeof analyze>>, id: string) => report.checks.find((result) => result.id === id)!;

describe('kernel events and bonds pasted into a ticket', () => {
  it('a pasted /proc/net/bonding file, named by its command, reaches the bonding check', async () => {
    const report = await analyze(`$ cat /proc/net/bonding/bond0\n${realCapture('bonding/8023ad-no-active-aggregator-layer2-1.txt')}`);
    expect(check(report, 'bonding').findings.map((finding) => `${finding.symptom}@${finding.subject}`)).toEqual([
      'member-not-aggregated@bond0',
      'member-not-aggregated@bond0',
      'layer2-hash@bond0',
    ]);
    expect(report.diagnoses[0]).toMatchObject({ ruleId: 'bond-member-not-aggregated', cause: 25 });
  });

  it('a kernel log with only fault events (no probe or link line) is still read as the kernel log', async () => {
    const report = await analyze(realCapture('kernel-events/conntrack-full-wrapped-syslog-1.txt'));
    expect(check(report, 'kernel-events').findings.map((finding) => [finding.symptom, finding.data.count])).toEqual([
      ['conntrack-full', 5],
    ]);
    expect(report.diagnoses[0]).toMatchObject({ ruleId: 'conntrack-table-full', cause: 24 });
  });

  it('a healthy probe log raises no event, and a text with no bond leaves the bonding check without a verdict', async () => {
    const report = await analyze(realCapture('kernel-events/i40e-healthy-probe-journal-1.txt'));
    expect(check(report, 'kernel-events').status).not.toBe('fail');
    expect(check(report, 'bonding').status).not.toBe('fail');
    expect(report.diagnoses).toEqual([]);
  });
});
