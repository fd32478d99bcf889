import { exceedsThreshold, type FailOn } from '../report/fail-on.js';
import type { Report, Scalar } from '../report/schema.js';
import type { LoadedInput } from './inputs.js';

export interface FleetHost {
  host: string;
  /** The hostname the report gives (a token when the report is redacted). */
  hostname: string;
  files: string[];
  policy: { name: string; pass: boolean; failed: number; unknown: number } | null;
  topDiagnosis: { ruleId: string; title: string; subject: string; cause: number } | null;
  benchGbps: number | null;
  counts: { critical: number; warning: number; info: number; unknown: number; error: number };
  /** By the policy when there is one, else by --fail-on. */
  failed: boolean;
  why: string;
}

export interface OutlierMember {
  host: string;
  interface: string | null;
  value: Scalar;
}

export interface Outlier {
  /** "interface" settings are compared among interfaces of one NIC model and driver; "host" settings among all hosts. */
  scope: 'interface' | 'host';
  /** NIC model and driver, or "all hosts". */
  group: string;
  setting: string;
  majority: Scalar;
  majorityCount: number;
  compared: number;
  outliers: OutlierMember[];
}

/** An input that could not be read (missing, not a report, an old schema): shown, and the rest go on. */
export interface UnreadInput {
  file: string;
  reason: string;
}

export interface FleetReport {
  generatedAt: string;
  failOn: FailOn;
  hosts: FleetHost[];
  outliers: Outlier[];
  unread: UnreadInput[];
  summary: { hosts: number; failed: number; outliers: number };
}

/** The report that speaks for a host: the one judged by a policy, else a scan without bench, else the first. */
function primaryReport(inputs: readonly LoadedInput[]): Report {
  return (inputs.find((input) => input.report.policy) ?? inputs.find((input) => !input.report.bench) ?? inputs[0]!).report;
}

function benchOf(inputs: readonly LoadedInput[]): number | null {
  const benches = inputs.map((input) => input.report.bench).filter((bench) => bench?.result);
  const best = benches.find((bench) => bench!.complete) ?? benches[0];
  return best?.result ? Math.round(best.result.bitsPerSecond / 1e7) / 100 : null;
}

function topDiagnosis(inputs: readonly LoadedInput[]): FleetHost['topDiagnosis'] {
  const firsts = inputs.map((input) => input.report.diagnoses[0]).filter((entry) => entry !== undefined);
  const top = firsts.sort((a, b) => b.score - a.score)[0];
  return top ? { ruleId: top.ruleId, title: top.title, subject: top.subject, cause: top.cause } : null;
}

function judge(report: Report, failOn: FailOn): { failed: boolean; why: string } {
  if (report.policy) {
    const failedItems = report.policy.items.filter(
      (item) => item.status === 'fail' || (item.status === 'unknown' && report.policy!.unknownFails),
    );
    return {
      failed: !report.policy.pass,
      why: report.policy.pass
        ? `policy ${report.policy.name} passes`
        : `policy ${report.policy.name}: ${failedItems.map((item) => item.id + (item.subject ? ` (${item.subject})` : '')).join(', ')}`,
    };
  }
  const severities = report.checks.flatMap((check) => check.findings.map((finding) => finding.severity));
  const failed = exceedsThreshold(severities, failOn);
  return {
    failed,
    why: failed ? `findings at or above ${failOn}` : failOn === 'never' ? '--fail-on never' : `no finding at or above ${failOn}`,
  };
}

function hostRow(host: string, inputs: readonly LoadedInput[], failOn: FailOn): FleetHost {
  const report = primaryReport(inputs);
  const verdict = judge(report, failOn);
  const policy = report.policy;
  return {
    host,
    hostname: report.host.hostname,
    files: inputs.map((input) => input.file),
    policy: policy ? { name: policy.name, pass: policy.pass, failed: policy.counts.fail, unknown: policy.counts.unknown } : null,
    topDiagnosis: topDiagnosis(inputs),
    benchGbps: benchOf(inputs),
    counts: {
      critical: report.summary.critical,
      warning: report.summary.warning,
      info: report.summary.info,
      unknown: report.summary.unknown,
      error: report.summary.error,
    },
    ...verdict,
  };
}

interface Sample {
  host: string;
  iface: string | null;
  values: Record<string, Scalar>;
}

/** Within one group, the members whose value differs from a strict majority's, per setting. */
function groupOutliers(scope: Outlier['scope'], group: string, samples: readonly Sample[]): Outlier[] {
  const outliers: Outlier[] = [];
  const names = [...new Set(samples.flatMap((sample) => Object.keys(sample.values)))].sort();
  for (const setting of names) {
    const holding = samples.filter((sample) => setting in sample.values);
    // Two hosts that differ have no majority; one of three is the least that makes an odd one out.
    if (holding.length < 3) continue;
    const tally = new Map<string, { value: Scalar; count: number }>();
    for (const sample of holding) {
      const key = JSON.stringify(sample.values[setting]);
      const entry = tally.get(key) ?? { value: sample.values[setting]!, count: 0 };
      entry.count += 1;
      tally.set(key, entry);
    }
    const majority = [...tally.values()].sort((a, b) => b.count - a.count)[0]!;
    if (majority.count * 2 <= holding.length || majority.count === holding.length) continue;
    const majorityKey = JSON.stringify(majority.value);
    outliers.push({
      scope,
      group,
      setting,
      majority: majority.value,
      majorityCount: majority.count,
      compared: holding.length,
      outliers: holding
        .filter((sample) => JSON.stringify(sample.values[setting]) !== majorityKey)
        .map((sample) => ({ host: sample.host, interface: sample.iface, value: sample.values[setting]! })),
    });
  }
  return outliers;
}

/**
 * Inputs are one host when they share a file-name key (h1.json, h1.bench.json, a snapshot
 * directory h1/) AND the hostname their reports give: dA/web1.json and dB/web1.json of two
 * different hosts are two rows, while a host's report and its snapshot in two folders stay one.
 * A redacted report's hostname is a token, not a name: it tells no host apart, so such a report
 * joins the one named host of its key (a redacted scan and its unredacted bench of one host).
 */
function groupByHost(inputs: readonly LoadedInput[]): Map<string, LoadedInput[]> {
  const byKey = new Map<string, LoadedInput[]>();
  for (const input of inputs) byKey.set(input.key, [...(byKey.get(input.key) ?? []), input]);
  const members: LoadedInput[][] = [];
  for (const sameKey of byKey.values()) {
    const names = [...new Set(sameKey.filter((input) => !input.report.redacted).map((input) => input.report.host.hostname))];
    if (names.length <= 1) {
      members.push(sameKey);
      continue;
    }
    for (const name of names) members.push(sameKey.filter((input) => !input.report.redacted && input.report.host.hostname === name));
    const tokens = sameKey.filter((input) => input.report.redacted);
    if (tokens.length > 0) members.push(tokens);
  }
  // Each host's label: its key, with its hostname where the key alone is ambiguous.
  const labelled = new Map<string, LoadedInput[]>();
  for (const group of members) {
    const key = group[0]!.key;
    const shared = members.filter((other) => other[0]!.key === key).length > 1;
    labelled.set(shared ? `${key} (${group[0]!.report.host.hostname})` : key, group);
  }
  return labelled;
}

/** Per host verdicts plus the odd ones out among hosts; the inputs that could not be read are listed. */
export function buildFleet(inputs: readonly LoadedInput[], failOn: FailOn, unread: readonly UnreadInput[] = []): FleetReport {
  const byHost = groupByHost(inputs);
  const hosts = [...byHost].map(([host, group]) => hostRow(host, group, failOn));
  const interfaceSamples = new Map<string, Sample[]>();
  const hostSamples: Sample[] = [];
  for (const [host, group] of byHost) {
    // The raw outputs of a bundle or snapshot know more than a bare report.
    const settings = (group.find((input) => input.facts) ?? group[0]!).settings;
    hostSamples.push({ host, iface: null, values: settings.host });
    for (const iface of settings.interfaces) {
      interfaceSamples.set(iface.model, [...(interfaceSamples.get(iface.model) ?? []), { host, iface: iface.name, values: iface.values }]);
    }
  }
  const outliers = [
    ...[...interfaceSamples]
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([model, samples]) => groupOutliers('interface', model, samples)),
    ...groupOutliers('host', 'all hosts', hostSamples),
  ];
  return {
    generatedAt: new Date().toISOString(),
    failOn,
    hosts,
    outliers,
    unread: [...unread],
    summary: { hosts: hosts.length, failed: hosts.filter((host) => host.failed).length, outliers: outliers.length },
  };
}

/** "h3 (eth1): egress qdisc tbf 0.5 Gb/s where 2 of 3 veth interfaces have noqueue" */
export function describeOutlier(outlier: Outlier): string[] {
  const among = outlier.scope === 'interface' ? `${outlier.group} interfaces` : 'hosts';
  return outlier.outliers.map(
    (member) =>
      `${member.host}${member.interface ? ` (${member.interface})` : ''}: ${outlier.setting} ${String(member.value)} where ${outlier.majorityCount} of ${outlier.compared} ${among} have ${String(outlier.majority)}`,
  );
}
