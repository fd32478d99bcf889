/**
 * Checks against real ethtool output (issue 3): in a lab namespace, turn TSO off and cut a
 * veth to one channel with ethtool, then `nicdoctor scan --iface <veth>` must report both,
 * with fixes naming the real interface and evidence from the real ethtool commands. The other
 * end of the pair, in its own namespace, is the control.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCpuList } from '../../src/parsers/cpulist.js';
import type { Finding, Report } from '../../src/report/schema.js';
import { brokenChecks, hasStackTrace, parseReport, runCli } from '../../lab/cli.js';
import { cleanupStale, createLab, labAvailable, type Lab, type Side } from '../../lab/lab.js';

const skipReason = labAvailable(['ip', 'ethtool']);
if (skipReason) console.warn(`checks-live lab tests skipped: ${skipReason}`);

// A veth gets one queue per possible CPU at most: with a single CPU there is nothing to cut.
const possibleCpus = skipReason ? 0 : parseCpuList(readFileSync('/sys/devices/system/cpu/possible', 'utf8')).length;
const channelsReason = possibleCpus < 2 ? `a veth on this ${possibleCpus}-CPU machine has a single channel at most` : undefined;
if (!skipReason && channelsReason) console.warn(`checks-live channel tests skipped: ${channelsReason}`);

function check(report: Report, id: string) {
  const found = report.checks.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no ${id} check in the report (${report.checks.map((candidate) => candidate.id).join(', ')})`);
  return found;
}

function findings(report: Report, id: string, subject: string, symptoms: readonly string[]): Finding[] {
  return check(report, id).findings.filter((finding) => finding.subject === subject && symptoms.includes(finding.symptom));
}

const QUEUE_SYMPTOMS = ['single-queue-fast-port', 'queues-below-max'] as const;

describe.skipIf(skipReason)('checks against real ethtool output in a lab namespace', () => {
  let lab: Lab;
  const reports: Partial<Record<Side, Report>> = {};

  async function scan(side: Side): Promise<Report> {
    const iface = lab[side].iface;
    // A veth's 10000 Mb/s is nominal, never a link speed: --link-speed says this lab link is 10G.
    const run = await runCli(['scan', '--iface', iface, '--link-speed', '10000', '--format', 'json'], { lab, ns: side });
    expect([0, 1], `exit ${run.exitCode}; stderr: ${run.stderr}`).toContain(run.exitCode);
    expect(hasStackTrace(run.stderr), run.stderr).toBe(false);
    const report = parseReport(run.stdout);
    expect(brokenChecks(report)).toEqual([]);
    expect(report.interfaces.map((candidate) => candidate.name)).toEqual([iface]);
    return report;
  }

  beforeAll(async () => {
    cleanupStale();
    lab = await createLab();
    await lab.offloads('a', { tso: false });
    if (!channelsReason) {
      await lab.channels('a', 1);
      // A new veth starts with one channel, itself a finding: the control gets its maximum.
      await lab.channels('b', possibleCpus);
    }
    reports.a = await scan('a');
    reports.b = await scan('b');
  });

  afterAll(async () => {
    await lab?.destroy();
  });

  it('reports TSO off on the veth, with an ethtool -K fix for that interface', () => {
    const iface = lab.a.iface;
    const offloads = check(reports.a!, 'offloads');
    expect(offloads.status).toBe('fail');
    const [finding, ...others] = findings(reports.a!, 'offloads', iface, ['offload-off']);
    expect(others).toEqual([]);
    expect(finding, JSON.stringify(offloads)).toBeDefined();
    expect(finding!.message).toContain('TSO');
    // The data names features as ethtool -K does; the wording (TSO) is the message's.
    expect(finding!.data).toMatchObject({ features: expect.stringMatching(/(^|,)tso(,|$)/) });
    // The finding shows the fix of the diagnosis that explains it (prose, then the command).
    expect(finding!.fix).toMatch(new RegExp(`(^|\\. )ethtool -K ${iface} .*\\btso on\\b`));
    const tso = finding!.evidence.find((item) => item.label === 'tcp-segmentation-offload');
    expect(tso).toMatchObject({ observed: 'off', expected: 'on' });
    // ethtool 6+ answers --json -k; older ethtool falls back to the text form.
    expect([
      ['ethtool', '--json', '-k', iface],
      ['ethtool', '-k', iface],
    ]).toContainEqual(tso!.source?.kind === 'command' ? tso!.source.argv : tso!.source);
  });

  it.skipIf(channelsReason)('reports the single channel on the veth, with an ethtool -L fix for that interface', () => {
    const iface = lab.a.iface;
    const queues = findings(reports.a!, 'rss-queues', iface, QUEUE_SYMPTOMS);
    expect(queues.length, JSON.stringify(check(reports.a!, 'rss-queues'))).toBeGreaterThan(0);
    expect(check(reports.a!, 'rss-queues').status).toBe('fail');
    for (const finding of queues) {
      expect(finding.fix).toContain(`ethtool -L ${iface} `);
      const fromEthtool = finding.evidence.filter((item) => item.source?.kind === 'command');
      expect(fromEthtool.length).toBeGreaterThan(0);
      for (const item of fromEthtool) expect(item.source).toEqual({ kind: 'command', argv: ['ethtool', '-l', iface] });
    }
    // --link-speed 10000: one queue on a "10G port" is the single-queue finding.
    const single = queues.find((finding) => finding.symptom === 'single-queue-fast-port');
    expect(single?.data).toMatchObject({ current: 1, max: possibleCpus, linkGbps: 10 });
    expect(single?.evidence[0]).toMatchObject({ label: 'receive queues', observed: 1, expected: possibleCpus });
  });

  it('reports neither on the untouched end of the pair', () => {
    const iface = lab.b.iface;
    expect(check(reports.b!, 'offloads').status).toBe('pass');
    expect(findings(reports.b!, 'offloads', iface, ['offload-off'])).toEqual([]);
    expect(findings(reports.b!, 'rss-queues', iface, QUEUE_SYMPTOMS)).toEqual([]);
    if (!channelsReason) expect(check(reports.b!, 'rss-queues').status).toBe('pass');
  });
});
