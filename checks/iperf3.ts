import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { compareVersions, parseVersionTriple } from '../src/parsers/iperf3-version.js';
import type { Evidence } from '../src/report/schema.js';
import type { TicketReports } from '../src/collectors/ticket-reports.js';

const version = z.string().regex(/^\d+\.\d+(\.\d+)?$/, 'a version such as 3.16 or 3.19.1');

const options = z.object({
  /** First release that runs each -P stream in its own thread (CAUSES.md, iperf3 facts). */
  threadedSince: version.default('3.16'),
  /** First release advised when iperf3 authentication (--username, RSA keys) is used. */
  authenticationFixedSince: version.default('3.19.1'),
  /** Feature name iperf3 -v lists when the build supports -A. */
  affinityFeature: z.string().default('CPU affinity setting'),
  /**
   * One iperf3 thread on a current core moves roughly 25 Gb/s: below this physical link speed a
   * single-threaded iperf3 is a note (it matters on weak cores), from it up a likely limit.
   */
  singleThreadLimitMbps: z.number().positive().default(40_000),
  /**
   * One iperf3 thread moves at least this much even on old or slow cores: a reported rate below it
   * is not a one-core ceiling (35 Mb/s on gigabit is something else), from it up it can be.
   */
  oneCoreFloorMbps: z.number().positive().default(2_000),
  /** A reported iperf3 rate below this fraction of the link leaves the tool as a suspect. */
  belowLinkRatio: z.number().positive().max(1).default(0.85),
  /** iperf 2 (or netperf, nuttcp) faster than iperf3 by this factor on the same hosts: the tool, not the path, is the limit. */
  otherToolRatio: z.number().min(1).default(1.15),
});

/** Every iperf3 finding names the installed version and the releases the advice refers to. */
const versions = z.object({ version: z.string(), threadedSince: z.string(), authenticationFixedSince: z.string() });

export default defineCheck({
  id: 'iperf3',
  title: 'iperf3 version and features',
  description:
    'Reads `iperf3 -v`. Before 3.16 one iperf3 process runs every -P stream on one thread, so one CPU core is the limit (roughly 25 Gb/s, far less on slow cores); on 3.16+ -A pins every thread to the same CPU. Either way the tool, not the network, can be what a test measures.',
  scope: 'host',
  requires: ['iperf3.version'],
  optionalFacts: ['ticket.reports'],
  options,
  symptoms: {
    'single-threaded-version': symptom({
      severity: 'warning',
      data: versions.extend({
        major: z.number().int(),
        minor: z.number().int(),
        fastestMbps: z.number(),
        /** Best iperf3 rate the ticket reports (Mb/s), null when none (a live host). */
        reportedMbps: z.number().nullable(),
        /** The ticket shows iperf 2 (one thread per stream) faster than iperf3 on the same hosts. */
        iperf2Faster: z.boolean(),
      }),
      message:
        'iperf3 {version} runs every -P stream on one thread, so on one CPU core: one process cannot fill a link above roughly 25 Gb/s, and far less on slow cores, however many streams it opens. nicdoctor bench works around this by running one iperf3 process per core on separate ports and summing them',
      fix: 'Upgrade iperf3 to {threadedSince} or newer on both ends ({authenticationFixedSince} or newer if you use authentication); until then run one iperf3 process per core on separate ports (-p 5101, 5102, ...) and add up the results',
    }),
    'affinity-with-threads': symptom({
      severity: 'info',
      data: versions,
      message:
        'iperf3 {version} runs each stream in its own thread, but -A pins the whole process before the threads start, so every stream ends up on the same CPU',
      fix: "Do not use -A with several streams; pin from outside instead: taskset -c <cpus> iperf3 ... or numactl -N <node> iperf3 ... (CPUs on the NIC's NUMA node)",
    }),
    'missing-feature': symptom({
      severity: 'info',
      data: versions.extend({
        feature: z.string(),
        /** The optional features iperf3 -v lists, comma-separated as it prints them ("none" when it lists none). */
        features: z.string(),
      }),
      message: 'iperf3 {version} was built without "{feature}" (features: {features}): -A is not available',
      fix: 'Pin iperf3 with taskset -c <cpus> or numactl -N <node> instead of -A',
    }),
    'authentication-before-fix': symptom({
      severity: 'info',
      data: versions,
      message:
        'iperf3 {version} is older than {authenticationFixedSince}, the release to use when iperf3 authentication (--username, RSA keys) is enabled',
      fix: 'If you use iperf3 authentication, upgrade to {authenticationFixedSince} or newer on both ends',
    }),
  },
  run({ facts, optional, interfaces, options: opts, report, source }) {
    const installed = facts['iperf3.version'];
    const reports = optional['ticket.reports'].ok ? optional['ticket.reports'].value : null;
    const threadedSince = parseVersionTriple(opts.threadedSince);
    const authFixed = parseVersionTriple(opts.authenticationFixedSince);
    const from = source('iperf3.version');
    const versionEvidence = (expected?: string): Evidence => ({
      label: 'iperf3 version',
      observed: installed.version,
      ...(expected ? { expected } : {}),
      ...(from ? { source: from } : {}),
    });
    const base = { version: installed.version, threadedSince: opts.threadedSince, authenticationFixedSince: opts.authenticationFixedSince };

    const threaded = compareVersions(installed, threadedSince) >= 0;
    if (!threaded) {
      // Only a physical port's negotiated speed says how fast a test must go (a veth's 10000 is
      // nominal); a ticket's stated link speed stands in where it names no port.
      const fastestMbps = Math.max(0, reports?.statedLinkMbps ?? 0, ...interfaces.map((iface) => iface.speedMbps ?? 0));
      const limited = toolIsTheCeiling(reports, fastestMbps, opts);
      report('single-threaded-version', {
        ...(fastestMbps >= opts.singleThreadLimitMbps || limited ? {} : { severity: 'info' as const }),
        evidence: [
          versionEvidence(`>= ${opts.threadedSince}`),
          ...(fastestMbps ? [{ label: 'fastest physical link', observed: fastestMbps, unit: 'Mb/s' }] : []),
          ...(reports?.iperf3BestMbps ? [{ label: 'iperf3 rate reported', observed: reports.iperf3BestMbps, unit: 'Mb/s' }] : []),
          ...(reports?.iperf2BestMbps ? [{ label: 'iperf 2 rate reported', observed: reports.iperf2BestMbps, unit: 'Mb/s' }] : []),
        ],
        data: {
          ...base,
          major: installed.major,
          minor: installed.minor,
          fastestMbps,
          reportedMbps: reports?.iperf3BestMbps ?? null,
          iperf2Faster: reports?.iperf2Faster ?? false,
        },
      });
    }

    // Unknown features (old builds print no list) are not reported as missing.
    const hasAffinity = installed.features === null ? null : installed.features.includes(opts.affinityFeature);
    if (hasAffinity === false) {
      report('missing-feature', {
        evidence: [
          {
            label: 'iperf3 optional features',
            observed: installed.features!.join(', ') || 'none',
            expected: opts.affinityFeature,
            ...(from ? { source: from } : {}),
          },
        ],
        data: { ...base, feature: opts.affinityFeature, features: installed.features!.join(', ') || 'none' },
      });
    } else if (threaded) {
      report('affinity-with-threads', { evidence: [versionEvidence()], data: base });
    }

    // Below threadedSince the upgrade advice already names the authentication release.
    const hasAuthentication = installed.features === null || installed.features.includes('authentication');
    if (threaded && hasAuthentication && compareVersions(installed, authFixed) < 0) {
      report('authentication-before-fix', { evidence: [versionEvidence(`>= ${opts.authenticationFixedSince}`)], data: base });
    }
    return undefined;
  },
});

/**
 * A single-threaded iperf3 is the ceiling, not a note, when the test shows it: iperf 2 (one thread
 * per stream) went faster on the same hosts, or iperf3 stayed below the link at a rate one core
 * can plausibly cap (a few Gb/s and up; far below that, something else holds the link back).
 */
function toolIsTheCeiling(reports: TicketReports | null, linkMbps: number, opts: z.output<typeof options>): boolean {
  if (!reports) return false;
  const iperf3 = reports.iperf3BestMbps;
  const iperf2 = reports.iperf2BestMbps;
  // netperf or nuttcp with as many clients, on the same hosts, moving far more: the tool is the cap.
  if (reports.benchOverIperf3 !== null && reports.benchOverIperf3 >= opts.otherToolRatio) return true;
  if (iperf2 !== null && iperf3 !== null) return iperf2 >= iperf3 * opts.otherToolRatio;
  if (reports.iperf2Faster) return true;
  return iperf3 !== null && linkMbps > 0 && iperf3 >= opts.oneCoreFloorMbps && iperf3 < linkMbps * opts.belowLinkRatio;
}
