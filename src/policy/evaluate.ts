import { compareVersions, parseVersionTriple, type VersionTriple } from '../parsers/iperf3-version.js';
import type { CheckResult, Finding, InterfaceSummary, Report, Scalar } from '../report/schema.js';
import { formatGbps, tcpGoodputMbps } from '../domain/goodput.js';
import type { PolicyFacts } from './facts.js';
import { TIER_MINIMUMS, type Policy, type SocketBufferTier } from './schema.js';

export type PolicyItemStatus = 'pass' | 'fail' | 'unknown';

export interface PolicyItem {
  /** Stable id: `mtu:eth0`, `min-bench-gbps`, `check:pcie-link`. */
  id: string;
  title: string;
  /** The interface a per-interface item is about. */
  subject?: string;
  status: PolicyItemStatus;
  observed: Scalar;
  expected: Scalar;
  /** Why it passed, failed or could not be judged; for unknown, how to get the value. */
  reason: string;
}

export interface PolicyResult {
  name: string;
  role?: string;
  items: PolicyItem[];
  counts: Record<PolicyItemStatus, number>;
  /** Whether an unknown item makes the policy fail (`onUnknown: fail`, the default). */
  unknownFails: boolean;
  /** No item failed, and no item is unknown unless the policy says `onUnknown: ignore`. */
  pass: boolean;
}

const HARDWARE_KINDS: ReadonlySet<InterfaceSummary['kind']> = new Set(['physical', 'paravirtual']);
/** Default of the iperf3 check's `threadedSince` option: a passing iperf3 check proves at least this. */
const IPERF3_CHECK_THRESHOLD = '3.16';
const PCIE_DOWNGRADE_SYMPTOMS = new Set(['pcie-link-downgraded', 'pcie-bandwidth-below-port', 'upstream-port-limits']);
const RING_SYMPTOMS = new Set(['rx-ring-below-max', 'tx-ring-below-max']);
const IPERF3_SYMPTOMS = ['single-threaded-version', 'affinity-with-threads', 'missing-feature', 'authentication-before-fix'];

/** Judges a report against a policy. Pure: the report (and optional raw facts) in, items out. */
export function evaluatePolicy(policy: Policy, report: Report, facts: PolicyFacts = {}): PolicyResult {
  const items: PolicyItem[] = [];
  const { selected, item: interfacesItem } = selectInterfaces(policy, report);
  if (interfacesItem) items.push(interfacesItem);

  if (policy.minBenchGbps !== undefined) items.push(benchItem(policy.minBenchGbps, report));
  if (policy.mtu !== undefined) items.push(...perInterface('mtu', 'MTU', selected, (iface) => mtuItem(policy.mtu!, iface)));
  if (policy.ringsAtMax)
    items.push(...perInterface('rings-at-max', 'Rings at their maximum', selected, (iface) => ringsItem(report, iface, facts)));
  if (policy.noPcieDowngrade)
    items.push(...perInterface('no-pcie-downgrade', 'No PCIe downgrade', selected, (iface) => pcieItem(report, iface)));
  if (policy.minIperf3 !== undefined) items.push(iperf3Item(policy.minIperf3, report, facts));
  if (policy.governor !== undefined) items.push(governorItem(policy.governor, report, facts));
  if (policy.socketBufferTier !== undefined) items.push(socketBufferItem(policy.socketBufferTier, report, facts));
  for (const id of policy.checksMustPass ?? []) items.push(checkItem(id, report));

  const counts = { pass: 0, fail: 0, unknown: 0 };
  for (const item of items) counts[item.status] += 1;
  return {
    name: policy.name,
    ...(policy.role ? { role: policy.role } : {}),
    items,
    counts,
    unknownFails: policy.onUnknown === 'fail',
    pass: counts.fail === 0 && (policy.onUnknown === 'ignore' || counts.unknown === 0),
  };
}

type Judged = Omit<PolicyItem, 'id' | 'title' | 'subject'>;

function perInterface(id: string, title: string, selected: InterfaceSummary[], judge: (iface: InterfaceSummary) => Judged): PolicyItem[] {
  if (selected.length === 0) {
    return [
      {
        id,
        title,
        status: 'unknown',
        observed: null,
        expected: null,
        reason: 'no interface to judge: the report lists no physical or paravirtual interface (or none the policy selects)',
      },
    ];
  }
  return selected.map((iface) => ({ id: `${id}:${iface.name}`, title: `${title} (${iface.name})`, subject: iface.name, ...judge(iface) }));
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+@-]/g, (char) => `\\${char}`)
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** The policy's interfaces, or every physical/paravirtual one; a pattern matching nothing fails. */
function selectInterfaces(policy: Policy, report: Report): { selected: InterfaceSummary[]; item: PolicyItem | null } {
  if (!policy.interfaces) return { selected: report.interfaces.filter((iface) => HARDWARE_KINDS.has(iface.kind)), item: null };
  const patterns = policy.interfaces.map((pattern) => ({ pattern, regexp: globToRegExp(pattern) }));
  const selected = report.interfaces.filter((iface) => patterns.some(({ regexp }) => regexp.test(iface.name)));
  const unmatched = patterns
    .filter(({ regexp }) => !report.interfaces.some((iface) => regexp.test(iface.name)))
    .map(({ pattern }) => pattern);
  const present = report.interfaces.map((iface) => iface.name).join(', ') || 'none';
  return {
    selected,
    item: {
      id: 'interfaces',
      title: 'Expected interfaces are present',
      status: unmatched.length ? 'fail' : 'pass',
      observed: selected.map((iface) => iface.name).join(', ') || null,
      expected: policy.interfaces.join(', '),
      reason: unmatched.length
        ? `nothing matches ${unmatched.join(', ')} (interfaces in the report: ${present})`
        : `every pattern matches an interface in the report`,
    },
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function benchItem(minGbps: number, report: Report): PolicyItem {
  const base = { id: 'min-bench-gbps', title: 'Bench reaches the minimum throughput', expected: `>= ${minGbps} Gb/s` };
  const bench = report.bench;
  if (!bench)
    return {
      ...base,
      status: 'unknown',
      observed: null,
      reason: 'no bench in the report: run with --peer HOST (nicdoctor serve on the far end)',
    };
  if (bench.mode === 'loopback') {
    return {
      ...base,
      status: 'unknown',
      observed: null,
      reason: "the loopback bench measures this host's memory-to-memory ceiling, not the link: run with --peer HOST",
    };
  }
  if (!bench.result)
    return {
      ...base,
      status: 'unknown',
      observed: null,
      reason: `the bench produced no result: ${bench.error ?? bench.stopReason ?? 'stopped early'}`,
    };
  const gbps = round2(bench.result.bitsPerSecond / 1e9);
  const ceiling =
    bench.ceilingBitsPerSecond !== null ? `; the link's TCP goodput ceiling is ${formatGbps(bench.ceilingBitsPerSecond / 1e6)}` : '';
  const how = `${gbps} Gb/s received from ${bench.peer} with ${bench.result.processes} process(es) x ${bench.result.streamsPerProcess} stream(s)${ceiling}`;
  if (gbps >= minGbps) return { ...base, status: 'pass', observed: gbps, reason: how };
  // A partial run may have stopped before it ramped up: too little to call it a failure.
  if (!bench.complete)
    return {
      ...base,
      status: 'unknown',
      observed: gbps,
      reason: `${how}, but the bench did not finish (${bench.error ?? 'stopped early'})`,
    };
  return { ...base, status: 'fail', observed: gbps, reason: `${how}, below ${minGbps} Gb/s` };
}

function mtuItem(expectation: NonNullable<Policy['mtu']>, iface: InterfaceSummary): Judged {
  const exact = typeof expectation === 'number' ? expectation : 'exact' in expectation ? expectation.exact : null;
  const min = typeof expectation === 'object' && 'min' in expectation ? expectation.min : null;
  const expected = exact !== null ? exact : `>= ${min}`;
  if (iface.mtu === null)
    return { status: 'unknown', observed: null, expected, reason: `/sys/class/net/${iface.name}/mtu could not be read` };
  const ok = exact !== null ? iface.mtu === exact : iface.mtu >= min!;
  const target = exact ?? min!;
  const note = iface.speedMbps
    ? ` (TCP goodput ceiling at ${iface.speedMbps / 1000} Gb/s: ${formatGbps(tcpGoodputMbps(iface.speedMbps, iface.mtu))} at MTU ${iface.mtu}, ${formatGbps(tcpGoodputMbps(iface.speedMbps, target))} at ${target})`
    : '';
  return {
    status: ok ? 'pass' : 'fail',
    observed: iface.mtu,
    expected,
    reason: `${iface.name} has MTU ${iface.mtu}${ok ? '' : `, the policy wants ${expected}`}${note}`,
  };
}

function findCheck(report: Report, id: string): CheckResult | undefined {
  return report.checks.find((check) => check.id === id);
}

/** Why a check's verdict on this subject cannot be used, or null when it judged it. */
function unjudged(
  report: Report,
  checkId: string,
  subject: string | null,
): { status: CheckResult['status'] | 'missing'; reason: string } | null {
  const check = findCheck(report, checkId);
  if (!check) return { status: 'missing', reason: `the ${checkId} check is not in the report (left out with --only/--skip?)` };
  const result = subject === null ? check : check.subjects.find((candidate) => candidate.subject === subject);
  if (!result) return { status: 'missing', reason: `the ${checkId} check did not examine ${subject}` };
  if (result.status === 'pass' || result.status === 'fail') return null;
  const why = result.reason ?? check.reason ?? 'no reason given';
  const hint = result.hint ?? check.hint;
  return { status: result.status, reason: `${checkId} is ${result.status}: ${why}${hint ? ` (${hint})` : ''}` };
}

function subjectFindings(report: Report, checkId: string, subject: string, symptoms: ReadonlySet<string>): Finding[] {
  return findCheck(report, checkId)?.findings.filter((finding) => finding.subject === subject && symptoms.has(finding.symptom)) ?? [];
}

function ringsItem(report: Report, iface: InterfaceSummary, facts: PolicyFacts): Judged {
  const fromFacts = facts.rings?.[iface.name];
  const below = subjectFindings(report, 'rx-rings', iface.name, RING_SYMPTOMS);
  const data = below[0]?.data ?? fromFacts;
  const describe = (kind: 'Current' | 'Max') =>
    data
      ? (['rx', 'tx'] as const)
          .filter((dir) => data[`${dir}${kind}`] !== null && data[`${dir}${kind}`] !== undefined)
          .map((dir) => `${dir} ${data[`${dir}${kind}`]}`)
          .join(', ') || null
      : null;
  if (below.length) {
    return {
      status: 'fail',
      observed: describe('Current'),
      expected: describe('Max'),
      reason: below.map((finding) => finding.message).join('; '),
    };
  }
  const skipped = unjudged(report, 'rx-rings', iface.name);
  if (skipped?.status === 'not-applicable')
    return { status: 'pass', observed: null, expected: 'driver maximum', reason: `nothing to size: ${skipped.reason}` };
  if (skipped) return { status: 'unknown', observed: null, expected: 'driver maximum', reason: skipped.reason };
  return {
    status: 'pass',
    observed: describe('Current') ?? 'at maximum',
    expected: describe('Max') ?? 'driver maximum',
    reason: `every ring of ${iface.name} is at the driver maximum (ethtool -g)`,
  };
}

function pcieItem(report: Report, iface: InterfaceSummary): Judged {
  const downgrades = subjectFindings(report, 'pcie-link', iface.name, PCIE_DOWNGRADE_SYMPTOMS);
  if (downgrades.length) {
    const data = downgrades[0]!.data;
    const expected =
      data.maxLink ??
      data.minimumLink ??
      (data.maxGts !== undefined && data.maxGts !== null ? `${data.maxGts} GT/s x${data.maxWidth}` : 'full link');
    return {
      status: 'fail',
      observed: data.ceilingLink ?? data.limitingLink ?? data.currentLink ?? null,
      expected,
      reason: downgrades.map((finding) => `${finding.symptom}: ${finding.message}`).join('; '),
    };
  }
  const skipped = unjudged(report, 'pcie-link', iface.name);
  if (skipped?.status === 'not-applicable')
    return { status: 'pass', observed: 'no PCIe link', expected: 'no downgrade', reason: `nothing to downgrade: ${skipped.reason}` };
  if (skipped) return { status: 'unknown', observed: null, expected: 'no downgrade', reason: skipped.reason };
  return {
    status: 'pass',
    observed: 'no downgrade',
    expected: 'no downgrade',
    reason: `the PCIe link of ${iface.name} runs at its capability and carries the port (pcie-link)`,
  };
}

function looseVersion(text: string | null | undefined): VersionTriple | null {
  const match = text ? /(?<!\d)(\d+)\.(\d+)(?:\.(\d+))?/.exec(text) : null;
  return match ? { major: Number(match[1]), minor: Number(match[2]), patch: match[3] === undefined ? null : Number(match[3]) } : null;
}

function iperf3Item(min: string, report: Report, facts: PolicyFacts): PolicyItem {
  const base = { id: 'min-iperf3', title: 'iperf3 is recent enough', expected: `>= ${min}` };
  const wanted = parseVersionTriple(min);
  const fromFinding = findCheck(report, 'iperf3')?.findings.find((finding) => typeof finding.data.version === 'string')?.data.version as
    string | undefined;
  const candidates: Array<[string | undefined | null, string]> = [
    [facts.iperf3Version, 'iperf3 -v'],
    [fromFinding, 'the iperf3 check'],
    [report.bench?.iperf3.client, 'the bench'],
  ];
  for (const [text, where] of candidates) {
    const installed = looseVersion(text);
    if (!installed) continue;
    const ok = compareVersions(installed, wanted) >= 0;
    const why = ok
      ? ''
      : compareVersions(installed, parseVersionTriple(IPERF3_CHECK_THRESHOLD)) < 0
        ? ': it runs every -P stream on one core (CAUSES.md 2)'
        : '';
    return {
      ...base,
      status: ok ? 'pass' : 'fail',
      observed: text!,
      reason: `iperf3 ${text} (from ${where})${ok ? '' : ` is older than ${min}${why}`}`,
    };
  }
  const skipped = unjudged(report, 'iperf3', null);
  if (skipped) return { ...base, status: 'unknown', observed: null, reason: skipped.reason };
  // The check passed without a finding: it proves at least its own threshold, nothing more.
  if (compareVersions(parseVersionTriple(IPERF3_CHECK_THRESHOLD), wanted) >= 0) {
    return {
      ...base,
      status: 'pass',
      observed: `>= ${IPERF3_CHECK_THRESHOLD}`,
      reason: `the iperf3 check found a multi-threaded iperf3 (>= ${IPERF3_CHECK_THRESHOLD})`,
    };
  }
  return {
    ...base,
    status: 'unknown',
    observed: `>= ${IPERF3_CHECK_THRESHOLD}`,
    reason: 'the report does not hold the iperf3 version: run iperf3 -v',
  };
}

function governorItem(wanted: string, report: Report, facts: PolicyFacts): PolicyItem {
  const base = { id: 'governor', title: `CPU governor is ${wanted}`, expected: wanted };
  if (facts.governors?.length) {
    const counts = new Map<string, number>();
    for (const governor of facts.governors) counts.set(governor, (counts.get(governor) ?? 0) + 1);
    const observed = [...counts].map(([governor, count]) => `${governor} x${count}`).join(', ');
    const others = facts.governors.filter((governor) => governor !== wanted).length;
    return {
      ...base,
      status: others ? 'fail' : 'pass',
      observed,
      reason: others
        ? `${others} of ${facts.governors.length} CPUs use another governor (CAUSES.md 12)`
        : `all ${facts.governors.length} CPUs use ${wanted}`,
    };
  }
  const check = findCheck(report, 'cpu-frequency');
  const finding = check?.findings.find((candidate) => candidate.symptom === 'governor-not-performance');
  if (finding) {
    const cpus = Number(finding.data.cpus);
    // governorCounts: "powersave=16,performance=2" (CPUs per governor).
    const counts = String(finding.data.governorCounts ?? '')
      .split(',')
      .filter(Boolean)
      .map((entry) => entry.split('=') as [string, string]);
    const onWanted = Number(counts.find(([governor]) => governor === wanted)?.[1] ?? 0);
    const ok = onWanted === cpus;
    const observed = counts.length ? counts.map(([governor, count]) => `${governor} x${count}`).join(', ') : null;
    return {
      ...base,
      status: ok ? 'pass' : 'fail',
      observed,
      reason: ok ? `all ${cpus} CPUs use ${wanted}` : `${cpus - onWanted} of ${cpus} CPUs use another governor (CAUSES.md 12)`,
    };
  }
  const skipped = unjudged(report, 'cpu-frequency', null);
  if (skipped) return { ...base, status: 'unknown', observed: null, reason: skipped.reason };
  // No finding: every CPU runs the check's wanted governor, `performance` by default.
  return {
    ...base,
    status: wanted === 'performance' ? 'pass' : 'fail',
    observed: 'performance',
    reason:
      wanted === 'performance'
        ? 'the cpu-frequency check found every CPU on performance'
        : `the cpu-frequency check found every CPU on performance, not ${wanted}`,
  };
}

const BUFFER_KEYS = [
  { key: 'rmemMax', sysctl: 'net.core.rmem_max', symptom: 'rmem-max-below-tier', field: 'coreMax' },
  { key: 'wmemMax', sysctl: 'net.core.wmem_max', symptom: 'wmem-max-below-tier', field: 'coreMax' },
  { key: 'tcpRmemMax', sysctl: 'net.ipv4.tcp_rmem max', symptom: 'tcp-rmem-below-tier', field: 'tcpMax' },
  { key: 'tcpWmemMax', sysctl: 'net.ipv4.tcp_wmem max', symptom: 'tcp-wmem-below-tier', field: 'tcpMax' },
] as const;

/** The tier the socket-buffers check applied: the fastest interface in the report (as the check does). */
function checkTier(report: Report): SocketBufferTier {
  const fastest = Math.max(0, ...report.interfaces.map((iface) => iface.speedMbps ?? 0));
  return fastest >= 100_000 ? '100g' : fastest >= 40_000 ? '40g' : '10g';
}

function socketBufferItem(tier: SocketBufferTier, report: Report, facts: PolicyFacts): PolicyItem {
  const minimums = TIER_MINIMUMS[tier];
  const base = {
    id: 'socket-buffer-tier',
    title: `Socket buffers at the ${tier} tier`,
    expected: `rmem_max/wmem_max >= ${minimums.coreMax}, tcp_rmem/tcp_wmem max >= ${minimums.tcpMax} (ESnet, ${minimums.label})`,
  };
  const check = findCheck(report, 'socket-buffers');
  const skipped = facts.socketBuffers ? null : unjudged(report, 'socket-buffers', null);
  if (skipped) return { ...base, status: 'unknown', observed: null, reason: skipped.reason };
  // Exact values from the facts or the findings; otherwise the check proves its own tier's minimum.
  const proven = TIER_MINIMUMS[checkTier(report)];
  const parts: string[] = [];
  const low: string[] = [];
  const open: string[] = [];
  for (const entry of BUFFER_KEYS) {
    const need = minimums[entry.field];
    const finding = check?.findings.find((candidate) => candidate.symptom === entry.symptom);
    const exact = facts.socketBuffers
      ? facts.socketBuffers[entry.key]
      : typeof finding?.data.observed === 'number'
        ? finding.data.observed
        : undefined;
    if (exact === null) {
      open.push(entry.sysctl);
      parts.push(`${entry.sysctl} n/a`);
    } else if (exact !== undefined) {
      parts.push(`${entry.sysctl} ${exact}`);
      if (exact < need) low.push(`${entry.sysctl} ${exact} < ${need}`);
    } else {
      parts.push(`${entry.sysctl} >= ${proven[entry.field]}`);
      if (proven[entry.field] < need) open.push(entry.sysctl);
    }
  }
  const observed = parts.join(', ');
  if (low.length) return { ...base, status: 'fail', observed, reason: `below the ${tier} tier: ${low.join(', ')} (CAUSES.md 10)` };
  if (open.length)
    return {
      ...base,
      status: 'unknown',
      observed,
      reason: `the report does not show the exact value of ${open.join(', ')}; read them with sysctl`,
    };
  return { ...base, status: 'pass', observed, reason: `every socket-buffer limit reaches the ${tier} tier` };
}

function checkItem(id: string, report: Report): PolicyItem {
  const check = findCheck(report, id);
  if (!check)
    return {
      id: `check:${id}`,
      title: `Check ${id} passes`,
      expected: 'pass',
      status: 'unknown',
      observed: null,
      reason: `the ${id} check is not in the report (left out with --only/--skip?)`,
    };
  const item = { id: `check:${id}`, title: `${check.title} (${id})`, expected: 'pass', observed: check.status };
  switch (check.status) {
    case 'pass':
      return { ...item, status: 'pass', reason: check.findings.length ? `passed with ${check.findings.length} info finding(s)` : 'passed' };
    case 'not-applicable':
      return { ...item, status: 'pass', reason: `not applicable: ${check.reason ?? 'nothing to examine'}` };
    case 'fail': {
      const serious = check.findings.filter((finding) => finding.severity !== 'info');
      return {
        ...item,
        status: 'fail',
        reason: serious.map((finding) => `${finding.severity}: ${finding.message}`).join('; ') || 'failed',
      };
    }
    case 'error':
      return { ...item, status: 'fail', reason: `the check broke: ${check.error?.message ?? check.reason ?? 'unknown error'}` };
    case 'unknown':
      return { ...item, status: 'unknown', reason: `${check.reason ?? 'could not be judged'}${check.hint ? ` (${check.hint})` : ''}` };
  }
}

/**
 * The finding data this module reads, by check and symptoms: the conformance test fails when a
 * check stops declaring one of these (a field listed for several symptoms must be declared by at
 * least one of them). Keep it in step with the items above.
 */
export const POLICY_FINDING_FIELDS: ReadonlyArray<{ check: string; symptoms: readonly string[]; fields: readonly string[] }> = [
  { check: 'rx-rings', symptoms: [...RING_SYMPTOMS], fields: ['rxCurrent', 'rxMax', 'txCurrent', 'txMax'] },
  {
    check: 'pcie-link',
    symptoms: [...PCIE_DOWNGRADE_SYMPTOMS],
    fields: ['maxLink', 'minimumLink', 'maxGts', 'maxWidth', 'ceilingLink', 'limitingLink', 'currentLink'],
  },
  { check: 'iperf3', symptoms: IPERF3_SYMPTOMS, fields: ['version'] },
  { check: 'cpu-frequency', symptoms: ['governor-not-performance'], fields: ['cpus', 'governorCounts'] },
  { check: 'socket-buffers', symptoms: BUFFER_KEYS.map((entry) => entry.symptom), fields: ['observed'] },
];
