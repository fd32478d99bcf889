import type { Logger } from 'pino';
import { collectors as allCollectors } from '../collectors/index.js';
import { SYS_CLASS_NET, summarize, type NetDevice } from '../collectors/net-device.js';
import type { HostIO } from '../hostio/types.js';
import { SCHEMA_VERSION, type CheckResult, type Profile, type Report } from '../report/schema.js';
import { VERSION } from '../util/version.js';
import type { AnyCheck } from '../contracts/check.js';
import { FactStore, type Collector } from '../contracts/collector.js';
import { UsageError } from '../util/errors.js';
import { runChecks } from './run-checks.js';
import { validateReport } from './validate-report.js';
import { loadRules, type LoadedRule } from '../rules/loader.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { collectPolicyFacts } from '../policy/facts.js';
import type { Policy } from '../policy/schema.js';
import { collectRuleFacts, diagnose, partitionDiagnoses } from '../rules/engine.js';
import { knownIssueFacts, loadKnownIssues, matchKnownIssues } from '../rules/known-issues.js';
import type { KnownIssue } from '../rules/known-issue-schema.js';
import { fixFindingsFromDiagnoses } from '../rules/finding-fixes.js';
import { reportVerdict } from '../report/verdict.js';
import { isPhysical } from '../domain/interface-kinds.js';
import { reportSettings } from './report-settings.js';

export interface ScanOptions {
  io: HostIO;
  checks: readonly AnyCheck[];
  log: Logger;
  profile?: Profile;
  /** Interfaces to examine; all but loopback (and down ones, unless `all`) when empty. */
  ifaces?: readonly string[];
  /** Keep interfaces that are down (they are skipped when no interface is named). */
  all?: boolean;
  /**
   * --link-speed: the speed to judge the selected interfaces by when they report no negotiated
   * speed of their own (a lab veth, a VM's virtio NIC whose real uplink is known).
   */
  linkSpeedMbps?: number;
  only?: readonly string[];
  skip?: readonly string[];
  collectors?: readonly Collector[];
  sourcePath?: string;
  checkOptions?: Record<string, unknown>;
  /** A pre-deployment checklist to judge the report against (scan --policy). */
  policy?: Policy;
  /** The rule catalogue; rules/*.yaml when not given. */
  rules?: readonly LoadedRule[];
  /** known-issues/*.yaml unless given (tests pass their own). */
  knownIssues?: readonly KnownIssue[];
  /** Runs after the interfaces are known and before the checks (the bench, which provides a fact). */
  beforeChecks?: (store: FactStore) => Promise<void>;
}

export interface ScanOutcome {
  report: Report;
  store: FactStore;
}

export function selectChecks(checks: readonly AnyCheck[], only: readonly string[] = [], skip: readonly string[] = []): AnyCheck[] {
  const known = new Set(checks.map((check) => check.id));
  for (const [flag, ids] of [
    ['--only', only],
    ['--skip', skip],
  ] as const) {
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) throw new UsageError(`${flag}: unknown check ${unknown.join(', ')} (see \`nicdoctor checks\`)`);
  }
  return checks.filter((check) => (only.length === 0 || only.includes(check.id)) && !skip.includes(check.id));
}

/** Collect → check → one validated report. Never throws for what the host holds, only for bad usage. */
export async function scan(options: ScanOptions): Promise<ScanOutcome> {
  const started = performance.now();
  // Each phase is logged (debug) as it starts: where a slow or interrupted analysis was.
  options.log.debug({ phase: 'collect' }, 'scan phase');
  const checks = selectChecks(options.checks, options.only, options.skip);
  const store = new FactStore(options.io, options.collectors ?? allCollectors, options.log);
  await refuseMissingInterfaces(options.io, options.ifaces);
  const [inventory, interfacesResult] = await Promise.all([options.io.inventory(), store.get('interfaces')]);
  const all: NetDevice[] = interfacesResult.ok ? interfacesResult.value : [];
  let selected = all;
  if (options.ifaces?.length) {
    const names = new Set(all.map((device) => device.name));
    const missing = options.ifaces.filter((name) => !names.has(name));
    if (missing.length && interfacesResult.ok) {
      throw new UsageError(`--iface: no interface named ${missing.join(', ')} on this host (present: ${[...names].join(', ') || 'none'})`);
    }
    selected = all.filter((device) => options.ifaces!.includes(device.name));
  }
  const skippedInterfaces: Array<{ name: string; reason: string }> = [];
  if (!options.ifaces?.length && !options.all) {
    selected = selected.filter((device) => {
      const reason = skipReason(device);
      if (reason) skippedInterfaces.push({ name: device.name, reason });
      return reason === null;
    });
  }
  if (options.linkSpeedMbps) selected = withLinkSpeed(store, all, selected, options.linkSpeedMbps);
  const interfaces = selected.map(summarize);
  const profile = options.profile ?? 'throughput';
  // The bench runs before the checks so that their commands do not disturb its measurement.
  await options.beforeChecks?.(store);
  options.log.debug({ phase: 'checks', interfaces: interfaces.length }, 'scan phase');
  const results = await runChecks({ store, checks, interfaces, profile, log: options.log, checkOptions: options.checkOptions });
  if (!interfacesResult.ok) {
    // Without the interface list nothing per-interface can be judged; say why on each such check.
    for (const result of results) {
      if (result.subjects.length === 0) {
        result.status = 'unknown';
        result.reason = `interfaces: ${interfacesResult.error.message}`;
      }
    }
  }
  const report: Report = {
    schemaVersion: SCHEMA_VERSION,
    tool: { name: 'nicdoctor', version: VERSION },
    generatedAt: new Date().toISOString(),
    source: { mode: options.io.mode, ...(options.sourcePath ? { path: options.sourcePath } : {}) },
    profile,
    host: {
      hostname: inventory.hostname,
      kernel: inventory.kernel,
      os: inventory.os,
      arch: inventory.arch,
      cpuModel: inventory.cpuModel,
      logicalCpus: inventory.logicalCpus,
      physicalCores: inventory.physicalCores,
      virtualization: inventory.virtualization,
      root: inventory.uid === 0,
    },
    interfaces,
    ...(skippedInterfaces.length ? { skippedInterfaces } : {}),
    checks: results,
    summary: countResults(results),
    diagnoses: [],
    notes: [],
    refuted: [],
    collectors: store.runs.map((run) => ({
      fact: run.fact,
      ...(run.subject ? { subject: run.subject } : {}),
      ok: run.ok,
      durationMs: round(run.durationMs),
      ...(run.error
        ? { error: { kind: run.error.kind, message: run.error.message, ...(run.error.hint ? { hint: run.error.hint } : {}) } }
        : {}),
    })),
    durationMs: round(performance.now() - started),
  };
  const bench = await store.get('bench.result');
  if (bench.ok) {
    report.bench = { ...bench.value, findings: results.find((result) => result.id === 'throughput')?.findings ?? [] };
  }
  // Diagnoses read only facts already collected: rules never make the scan run anything.
  options.log.debug({ phase: 'rules' }, 'scan phase');
  const rules = options.rules ?? loadRules();
  const knownIssues = options.knownIssues ?? loadKnownIssues();
  const facts = await collectRuleFacts(
    store,
    rules,
    interfaces.map((iface) => iface.name),
    knownIssueFacts(knownIssues),
  );
  Object.assign(
    report,
    partitionDiagnoses([...diagnose({ report, facts, rules, checks: options.checks }), ...matchKnownIssues(report, facts, knownIssues)]),
  );
  fixFindingsFromDiagnoses(report);
  report.verdict = reportVerdict(report);
  if (options.policy) report.policy = evaluatePolicy(options.policy, report, await collectPolicyFacts(store, report));
  report.settings = await reportSettings(store, interfaces, inventory.kernel);
  for (const check of report.checks) check.durationMs = round(check.durationMs);
  // The report is the contract: validate what we emit, so a bug shows here and not in a user's jq;
  // a finding that breaks it turns its check into an error instead of losing the report.
  options.log.debug({ phase: 'report' }, 'scan phase');
  const valid = validateReport(report, (fixed) => {
    fixed.summary = countResults(fixed.checks);
    fixed.verdict = reportVerdict(fixed);
  });
  return { report: valid, store };
}

/**
 * A named interface that is not there is bad usage: said before any tool runs (collecting the
 * interfaces runs `ip`, `ethtool` on captures), from the same listing the collectors read.
 */
async function refuseMissingInterfaces(io: HostIO, ifaces: readonly string[] | undefined): Promise<void> {
  if (!ifaces?.length) return;
  const present = await io.readDir(SYS_CLASS_NET).catch(() => null);
  if (!present) return;
  const missing = ifaces.filter((name) => !present.includes(name));
  if (missing.length) {
    const listed = present.filter((name) => name !== 'lo' && !name.startsWith('.') && name !== 'bonding_masters');
    throw new UsageError(`--iface: no interface named ${missing.join(', ')} on this host (present: ${listed.join(', ') || 'none'})`);
  }
}

/** The user's --link-speed stands in for the speed an interface does not report, in every fact that carries it. */
function withLinkSpeed(store: FactStore, all: readonly NetDevice[], selected: readonly NetDevice[], linkSpeedMbps: number): NetDevice[] {
  const given = (device: NetDevice): NetDevice =>
    device.speedMbps !== null || !selected.includes(device)
      ? device
      : { ...device, speedMbps: linkSpeedMbps, identity: [...device.identity, `--link-speed ${linkSpeedMbps}`] };
  const updated = all.map(given);
  for (const device of updated) store.provide('net.device', device, device.name);
  store.provide('interfaces', updated);
  return updated.filter((device) => selected.some((chosen) => chosen.name === device.name));
}

/**
 * Why a scan of every interface leaves this one out, or null. A down software device (an unused
 * ifb, a bridge with no ports) or a port the administrator set down has nothing to say about
 * throughput; a physical port that is up but has no carrier stays: that is a fault to report.
 */
function skipReason(device: NetDevice): string | null {
  if (device.operstate !== 'down' && device.operstate !== 'notpresent') return null;
  if (device.adminUp === false) return 'administratively down (name it with --iface, or use --all)';
  if (!isPhysical(device)) return `down ${device.kind} interface (name it with --iface, or use --all)`;
  return null;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function countResults(results: readonly CheckResult[]): Report['summary'] {
  const count = (status: CheckResult['status']) => results.filter((result) => result.status === status).length;
  const findings = results.flatMap((result) => result.findings);
  const severity = (level: string) => findings.filter((finding) => finding.severity === level).length;
  return {
    pass: count('pass'),
    fail: count('fail'),
    notApplicable: count('not-applicable'),
    unknown: count('unknown'),
    error: count('error'),
    critical: severity('critical'),
    warning: severity('warning'),
    info: severity('info'),
  };
}
