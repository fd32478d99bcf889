import { describe, expect, it } from 'vitest';
import iperf3 from '../../checks/iperf3.js';
import { parseIperf3Version } from '../../src/parsers/iperf3-version.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';
import type { TicketReports } from '../../src/collectors/ticket-reports.js';
import { ticketReports } from '../helpers/ticket-reports.js';

const FEATURES_3_17 =
  "Optional features available: CPU affinity setting, IPv6 flow label, SCTP, TCP congestion algorithm setting, sendfile / zerocopy, socket pacing, authentication, bind to device, support IPv4 don't fragment, POSIX threads";
const version = (text: string) => parseIperf3Version(text);

const tester = checkTester(iperf3);

describe('iperf3 check', () => {
  it.each(['iperf3/version-3.12-debian12.txt', 'iperf3/version-3.12-moler.txt'])(
    'warns that the real Debian 12 build (%s) is single-threaded on a 100G host',
    async (file) => {
      const result = await tester.run(
        { 'iperf3.version': version(realCapture(file)) },
        { interfaces: [{ name: 'eth0', speedMbps: 100_000 }] },
      );
      expect(result.status).toBe('fail');
      expect(result.findings).toEqual([
        expect.objectContaining({
          symptom: 'single-threaded-version',
          severity: 'warning',
          subject: 'host',
          data: expect.objectContaining({ version: '3.12', threadedSince: '3.16' }),
        }),
      ]);
      const finding = result.findings[0]!;
      expect(finding.message).toContain('iperf3 3.12 runs every -P stream on one thread');
      expect(finding.message).toContain('roughly 25 Gb/s');
      expect(finding.message).toContain('one iperf3 process per core on separate ports');
      expect(finding.fix).toContain('Upgrade iperf3 to 3.16 or newer on both ends (3.19.1 or newer if you use authentication)');
      expect(finding.evidence).toEqual([
        { label: 'iperf3 version', observed: '3.12', expected: '>= 3.16' },
        { label: 'fastest physical link', observed: 100_000, unit: 'Mb/s' },
      ]);
    },
  );

  it('only notes a single-threaded build where no physical port is fast enough for one core to be the limit (10G, or a VM)', async () => {
    for (const interfaces of [[{ name: 'eth0', speedMbps: 10_000 }], [{ name: 'eth0', kind: 'paravirtual' as const, speedMbps: null }]]) {
      const result = await tester.run({ 'iperf3.version': version(realCapture('iperf3/version-3.12-debian12.txt')) }, { interfaces });
      expect(result.status).toBe('pass');
      expect(result.findings).toEqual([expect.objectContaining({ symptom: 'single-threaded-version', severity: 'info' })]);
    }
  });

  describe('a ticket that shows the single-threaded iperf3 to be the ceiling', () => {
    const old = () => version('iperf 3.9\n');
    const reports = (over: Partial<TicketReports>): TicketReports => ticketReports(over);

    it.each([
      ['iperf 2 faster by the numbers', reports({ iperf2BestMbps: 9_400, iperf3BestMbps: 5_900 })],
      ['iperf 2 faster in words', reports({ iperf2Faster: true })],
      ['iperf3 at a one-core rate below the stated 10G link', reports({ iperf3BestMbps: 5_200, statedLinkMbps: 10_000 })],
      [
        'netperf with as many clients far faster',
        reports({ iperf3BestMbps: 900, benchBestMbps: 9_000, benchTool: 'netperf', benchOverIperf3: 10 }),
      ],
    ])('warns on a 10G host: %s', async (_name, toolReports) => {
      const result = await tester.run({ 'iperf3.version': old(), 'ticket.reports': toolReports });
      expect(result.status).toBe('fail');
      expect(result.findings).toEqual([expect.objectContaining({ symptom: 'single-threaded-version', severity: 'warning' })]);
    });

    it.each([
      ['a rate far below what one core moves (35 Mb/s on gigabit)', reports({ iperf3BestMbps: 35, statedLinkMbps: 1_000 })],
      ['iperf3 at line rate', reports({ iperf3BestMbps: 9_400, statedLinkMbps: 10_000 })],
      ['iperf 2 no faster than iperf3', reports({ iperf2BestMbps: 9_300, iperf3BestMbps: 9_200, iperf2Faster: true })],
    ])('only notes it for %s', async (_name, toolReports) => {
      const result = await tester.run({ 'iperf3.version': old(), 'ticket.reports': toolReports });
      expect(result.findings).toEqual([expect.objectContaining({ symptom: 'single-threaded-version', severity: 'info' })]);
    });

    it('judges a stated 40G link as a physical one', async () => {
      const result = await tester.run({ 'iperf3.version': old(), 'ticket.reports': reports({ statedLinkMbps: 40_000 }) });
      expect(result.findings[0]).toEqual(
        expect.objectContaining({ severity: 'warning', data: expect.objectContaining({ fastestMbps: 40_000 }) }),
      );
    });
  });

  it('warns about an old release without a features line, and says nothing about features it cannot know', async () => {
    const result = await tester.run(
      { 'iperf3.version': version('iperf 3.1.3\nLinux ps-test1 2.6.32 x86_64\n') },
      { interfaces: [{ name: 'eth0', speedMbps: 40_000 }] },
    );
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['single-threaded-version']);
  });

  it('passes 3.19.1 with a note about -A and threads', async () => {
    const result = await tester.run({
      'iperf3.version': version(`iperf 3.19.1 (cJSON 1.7.15)\nLinux h 6.12.0 x86_64\n${FEATURES_3_17}\n`),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'affinity-with-threads', severity: 'info', data: expect.objectContaining({ version: '3.19.1' }) }),
    ]);
    expect(result.findings[0]!.message).toContain('every stream ends up on the same CPU');
    expect(result.findings[0]!.fix).toContain('taskset -c');
    expect(result.findings[0]!.fix).toContain('numactl -N');
  });

  it('passes 3.17.1 with notes on -A and on the authentication release', async () => {
    const result = await tester.run({ 'iperf3.version': version(`iperf 3.17.1 (cJSON 1.7.15)\nLinux h 6.8.0 x86_64\n${FEATURES_3_17}\n`) });
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['affinity-with-threads', 'info'],
      ['authentication-before-fix', 'info'],
    ]);
    expect(result.findings[1]!.fix).toContain('3.19.1');
  });

  it('notes a build without CPU affinity support instead of the -A advice', async () => {
    const result = await tester.run({
      'iperf3.version': version(
        'iperf 3.16 (cJSON 1.7.15)\nDarwin mac 23.0 arm64\nOptional features available: IPv6 flow label, sendfile / zerocopy\n',
      ),
    });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'missing-feature',
        severity: 'info',
        data: expect.objectContaining({ feature: 'CPU affinity setting', features: 'IPv6 flow label, sendfile / zerocopy' }),
      }),
    ]);
  });

  it('follows the threadedSince option', async () => {
    const result = await tester.run(
      { 'iperf3.version': version(realCapture('iperf3/version-3.12-debian12.txt')) },
      { options: { threadedSince: '3.12' } },
    );
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['affinity-with-threads', 'authentication-before-fix']);
  });

  it('is an error, not a verdict, with a malformed version option', async () => {
    const result = await tester.run(
      { 'iperf3.version': version(realCapture('iperf3/version-3.12-debian12.txt')) },
      { options: { threadedSince: 'sixteen' } },
    );
    expect(result.status).toBe('error');
  });

  it('is unknown, with the install hint, when iperf3 is not installed', async () => {
    const result = await tester.run({
      'iperf3.version': failed(
        'tool-missing',
        'iperf3: command not found',
        'install iperf3: apt-get install iperf3 (dnf install iperf3 on RHEL)',
      ),
    });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('command not found');
    expect(result.hint).toContain('apt-get install iperf3');
  });

  it('is unknown when iperf3 -v printed something else', async () => {
    const result = await tester.run({ 'iperf3.version': failed('parse-failed', 'iperf3 -v: no "iperf 3.x" version line') });
    expect(result.status).toBe('unknown');
    expect(result.reason).toContain('version line');
  });
});
