import { collectors } from '../collectors/index.js';
import { phrasesFor, type AnyCheck, type SymptomMeta } from '../contracts/check.js';
import type { FactStore } from '../contracts/collector.js';
import type { FactId } from '../contracts/facts.js';
import type { Finding, Report, Scalar, Severity } from '../report/schema.js';
import { evaluate, references, type DiagnosisEvidence, type EvalContext } from './conditions.js';
import type { Confidence, Rule } from './schema.js';
import type { Operation } from '../report/fix-operations.js';
import { fillDropIn, fillOperations } from './fix-render.js';
import { render, type Bindings } from './template.js';

/** A collected fact's value for a subject (undefined: not collected, failed, or host fact asked per interface). */
export type FactLookup = (fact: string, subject?: string) => unknown;

export interface DiagnosisFix {
  text: string;
  /** Shell text of the operations, in order (what reports print). */
  commands: string[];
  /** The same, as typed operations: what `nicdoctor fix` plans and --apply runs. */
  operations: Operation[];
  persistent?: { file: string; content: string };
  disruptive: boolean;
}

export type DiagnosisMode = 'static' | 'confirmed' | 'not-confirmed' | 'refuted';

export interface Diagnosis {
  ruleId: string;
  title: string;
  /** CAUSES.md number. */
  cause: number;
  relatedCauses: number[];
  /** The interface, or "host". */
  subject: string;
  confidence: Confidence;
  /** The strongest severity among the findings that triggered the rule (warning when only facts did). */
  severity: Severity;
  score: number;
  mode: DiagnosisMode;
  explanation: string;
  /** What the bench says about it, or that it was not measured. */
  verdict: string;
  /** The limit the cause predicts ("≈ 3.56 Gb/s"), when the rule knows it. */
  limit: string | null;
  evidence: DiagnosisEvidence[];
  ruledOut: string[];
  fixes: DiagnosisFix[];
  references: string[];
  /** Commands or fixes left out because a value was unknown (never printed half-filled). */
  notes: string[];
}

export interface DiagnoseInput {
  report: Report;
  facts: FactLookup;
  rules: readonly Rule[];
  /** The check registry: its symptoms' phrases are available to rule templates. */
  checks?: readonly AnyCheck[];
}

/** A finding's phrases, computed from its data by the symptom that declared them (never stored). */
export function phraseLookup(checks: readonly AnyCheck[]): (finding: Finding) => Record<string, string> {
  const symptoms = new Map<string, SymptomMeta>();
  for (const check of checks)
    for (const [id, meta] of Object.entries(check.symptoms as Record<string, SymptomMeta>)) symptoms.set(`${check.id}/${id}`, meta);
  const cache = new WeakMap<Finding, Record<string, string>>();
  return (finding) => {
    let phrases = cache.get(finding);
    if (!phrases) {
      phrases = phrasesFor(symptoms.get(`${finding.check}/${finding.symptom}`), finding.data, finding);
      cache.set(finding, phrases);
    }
    return phrases;
  };
}

const HOST = 'host';
const BENCH_CHECK = 'throughput';
const SEVERITY_WEIGHT: Record<Severity, number> = { critical: 3, warning: 2, info: 1 };
const CONFIDENCE_WEIGHT: Record<Confidence, number> = { high: 3, medium: 2, low: 1 };
/**
 * Evidence strength, in tiers that never overlap (the bonuses exceed the largest possible rest,
 * 30 + 4 x 4 + 15 = 61):
 * - measured (+100): the rule's `when` matched a bench symptom: the measurement is the diagnosis;
 * - confirmed (+50): a static finding whose predicted bench symptom (`confirmedBy`) was seen,
 *   or a checklist rule (relatedCauses) triggered by a bench symptom: it names suspects, not one cause;
 * - static (0, no bench run) / not confirmed (-10: the bench ran and did not show it).
 * Within a tier: the severity of what triggered the rule, how many independent sources
 * triggered it (at most 4), and the rule's confidence. Confirming evidence is listed but adds
 * no source: it is what earned the tier.
 */
const SCORE = { severity: 10, source: 4, maxSources: 4, confidence: 5, measured: 100, confirmed: 50, notConfirmed: -10 } as const;
/**
 * CAUSES.md 18 (not the network) and 19 (test-harness artefacts) are never host faults: they
 * are shown after every actionable diagnosis, whatever their score.
 */
const INFORMATIONAL_CAUSES: ReadonlySet<number> = new Set([18, 19]);

export function isInformational(diagnosis: Pick<Diagnosis, 'cause'>): boolean {
  return INFORMATIONAL_CAUSES.has(diagnosis.cause);
}

const INTERFACE_FACTS = new Set<string>(collectors.filter((collector) => collector.scope === 'interface').map((collector) => collector.id));

/** Whether a fact is collected per interface (its collector's scope). */
export function isInterfaceFact(id: string): boolean {
  return INTERFACE_FACTS.has(id);
}

const gbps = (bps: number | null | undefined): number | null => (bps === null || bps === undefined ? null : Number((bps / 1e9).toFixed(2)));

const interfaceIndex = new WeakMap<Report, Map<string, Report['interfaces'][number]>>();

/** The report's interfaces by name, built once per report (rules × subjects look them up). */
function interfaceNamed(report: Report, name: string): Report['interfaces'][number] | undefined {
  let index = interfaceIndex.get(report);
  if (!index) {
    index = new Map(report.interfaces.map((iface) => [iface.name, iface]));
    interfaceIndex.set(report, index);
  }
  return index.get(name);
}

/** The names every rule template may use besides what its conditions bind (conformance-tested). */
export const BUILTIN_BINDINGS = [
  'subject',
  'interface',
  'pciAddress',
  'driver',
  'speedMbps',
  'linkGbps',
  'mtu',
  'numaNode',
  'hostname',
  'kernel',
  'physicalCores',
  'logicalCpus',
  'profile',
  'bench.interface',
  'bench.pciAddress',
  'bench.peer',
  'bench.client',
  'bench.server',
  'bench.resultGbps',
  'bench.processes',
  'bench.ceilingGbps',
  'bench.pcieGbps',
  'bench.linkGbps',
] as const;

/** Built-in template values: the subject's interface, the host, the bench. */
function builtins(report: Report, subject: string): Bindings {
  const iface = interfaceNamed(report, subject);
  const bench = report.bench;
  const values: Record<(typeof BUILTIN_BINDINGS)[number], Scalar | undefined> = {
    subject,
    interface: iface?.name,
    pciAddress: iface?.pciAddress,
    driver: iface?.driver,
    speedMbps: iface?.speedMbps,
    linkGbps: iface?.speedMbps ? iface.speedMbps / 1000 : undefined,
    mtu: iface?.mtu,
    numaNode: iface?.numaNode,
    hostname: report.host.hostname,
    kernel: report.host.kernel,
    physicalCores: report.host.physicalCores,
    logicalCpus: report.host.logicalCpus,
    profile: report.profile,
    'bench.interface': bench?.interface,
    'bench.pciAddress': bench?.interface ? interfaceNamed(report, bench.interface)?.pciAddress : undefined,
    'bench.peer': bench?.peer,
    'bench.client': bench?.iperf3.client,
    'bench.server': bench?.iperf3.server,
    'bench.resultGbps': gbps(bench?.result?.bitsPerSecond),
    'bench.processes': bench?.result?.processes,
    'bench.ceilingGbps': gbps(bench?.ceilingBitsPerSecond),
    'bench.pcieGbps': gbps(bench?.pcieBitsPerSecond),
    'bench.linkGbps': bench?.linkSpeedMbps ? bench.linkSpeedMbps / 1000 : undefined,
  };
  const bindings: Bindings = {};
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null) bindings[name] = value;
  return bindings;
}

/** Check findings plus the bench's (the same throughput findings may be in both). */
function allFindings(report: Report): Finding[] {
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const finding of [...report.checks.flatMap((check) => check.findings), ...(report.bench?.findings ?? [])]) {
    const key = `${finding.check}/${finding.symptom}@${finding.subject}:${finding.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(finding);
  }
  return findings;
}

function renderSentences(template: string | string[], bindings: Bindings): string {
  const sentences = (Array.isArray(template) ? template : [template])
    .map((sentence) => render(sentence, bindings))
    .filter((rendered) => rendered.ok);
  return sentences.map((rendered) => rendered.text).join(' ');
}

function renderFixes(rule: Rule, ctx: EvalContext, bindings: Bindings, notes: string[]): DiagnosisFix[] {
  const fixes: DiagnosisFix[] = [];
  for (const fix of rule.fixes) {
    if (fix.when && !evaluate(fix.when, ctx, bindings)) continue;
    const text = render(fix.text, bindings);
    if (!text.ok) {
      notes.push(`fix "${fix.text}" left out: no value for ${text.missing.join(', ')}`);
      continue;
    }
    const filled = fillOperations(fix.ops ?? [], bindings);
    notes.push(...filled.notes);
    const persistent = fix.persistent ? fillDropIn(fix.persistent, bindings, notes) : undefined;
    fixes.push({
      text: text.text,
      commands: filled.commands,
      operations: filled.operations,
      ...(persistent ? { persistent } : {}),
      disruptive: fix.disruptive,
    });
  }
  return fixes;
}

function independentSources(evidence: readonly DiagnosisEvidence[]): number {
  return Math.min(SCORE.maxSources, new Set(evidence.map((item) => ('check' in item ? `check:${item.check}` : `fact:${item.fact}`))).size);
}

function strongestSeverity(evidence: readonly DiagnosisEvidence[], findings: readonly Finding[]): Severity {
  let best = 0;
  for (const item of evidence) {
    if (!('check' in item)) continue;
    for (const finding of findings) {
      if (finding.check === item.check && finding.symptom === item.symptom && finding.subject === item.subject)
        best = Math.max(best, SEVERITY_WEIGHT[finding.severity]);
    }
  }
  // Triggered by facts alone (no finding): as strong as a warning, the rule's own judgement.
  if (best === 0) return 'warning';
  return best === 3 ? 'critical' : best === 2 ? 'warning' : 'info';
}

/**
 * Confidence follows what was seen: an info finding (a negligible rate, a note about a default)
 * can at most back a low-confidence note, whatever the rule claims.
 */
function cappedConfidence(rule: Confidence, severity: Severity): Confidence {
  if (severity === 'info') return 'low';
  return rule;
}

function verdictFor(mode: DiagnosisMode, limit: string | null, bindings: Bindings): string {
  const measured = bindings['bench.resultGbps'];
  if (mode === 'static')
    return limit
      ? `Not measured (no bench run): likely to limit throughput to ${limit}.`
      : 'Not measured (no bench run): a diagnosis from the configuration alone.';
  if (mode === 'confirmed') return `Confirmed by the bench${measured !== undefined ? ` (${measured} Gb/s measured)` : ''}.`;
  return `Not confirmed: the bench${measured !== undefined ? ` measured ${measured} Gb/s but` : ''} did not show the symptom this cause predicts${limit ? ` (a limit of ${limit})` : ''}.`;
}

function dedupeEvidence(evidence: readonly DiagnosisEvidence[]): DiagnosisEvidence[] {
  const seen = new Set<string>();
  return evidence.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A bench that reached the link's goodput ceiling refutes every cause that predicts a lower
 * ceiling on the benched path: what the configuration suggested did not happen. Causes the
 * measurement itself triggered, and informational ones, stand.
 */
function refutedByMeasurement(report: Report, subject: string, measuredTrigger: boolean, rule: Rule): boolean {
  const bench = report.bench;
  if (!bench || measuredTrigger || INFORMATIONAL_CAUSES.has(rule.cause)) return false;
  const atCeiling = [
    ...report.checks.filter((check) => check.id === BENCH_CHECK).flatMap((check) => check.findings),
    ...bench.findings,
  ].some((finding) => finding.check === BENCH_CHECK && finding.symptom === 'at-link-ceiling');
  if (!atCeiling) return false;
  const onPath =
    subject === HOST ||
    subject === bench.interface ||
    report.interfaces.some((iface) => iface.name === bench.interface && iface.master === subject);
  return onPath || !bench.interface;
}

/** The fact text analysis provides from a ticket's own words (src/collectors/ticket-reports.ts). */
const TICKET_REPORTS = 'ticket.reports';

/** Causes of the measuring tool itself (CAUSES.md 2, 3). */
const TOOL_CAUSES: ReadonlySet<number> = new Set([2, 3]);

/**
 * Among measured diagnoses, a fault of the network or the host ranks before the measuring tool's
 * own one-process limit: the multi-process bench already worked around that limit, so when loss
 * or a plateau was measured too, that is what the path suffers from. Alone, the tool limit still
 * ranks first (a bench whose throughput scaled with processes). 0 measured, 1 measured tool limit, 2 the rest.
 */
function measuredGroup(diagnosis: Diagnosis): number {
  // The lowest score a measured diagnosis can have; confirmed ones stay below it (50 + at most 61).
  if (diagnosis.score < SCORE.measured + SCORE.severity + SCORE.source + SCORE.confidence) return 2;
  return TOOL_CAUSES.has(diagnosis.cause) ? 1 : 0;
}

/** Where each diagnosis belongs in a report: ranked diagnoses, low-confidence notes, or refuted by the bench. */
export function partitionDiagnoses(all: readonly Diagnosis[]): { diagnoses: Diagnosis[]; notes: Diagnosis[]; refuted: Diagnosis[] } {
  const refuted = all.filter((diagnosis) => diagnosis.mode === 'refuted');
  const standing = all.filter((diagnosis) => diagnosis.mode !== 'refuted');
  return {
    diagnoses: standing.filter((diagnosis) => diagnosis.severity !== 'info'),
    notes: standing.filter((diagnosis) => diagnosis.severity === 'info'),
    refuted: refuted.map((diagnosis) => ({
      ...diagnosis,
      verdict: `Refuted by the measurement: the bench reached the link's goodput ceiling${diagnosis.limit ? `, not the ${diagnosis.limit} this cause predicts` : ''}.`,
    })),
  };
}

function interfacesOf(report: Report): string[] {
  return report.interfaces.map((iface) => iface.name);
}

/** builtins() of each subject, computed once per diagnose() rather than once per rule and subject. */
type BuiltinsOf = (subject: string) => Bindings;

function builtinsCache(report: Report): BuiltinsOf {
  const cache = new Map<string, Bindings>();
  return (subject) => {
    let bindings = cache.get(subject);
    if (!bindings) {
      bindings = builtins(report, subject);
      cache.set(subject, bindings);
    }
    return bindings;
  };
}

function diagnoseRule(
  rule: Rule,
  ctx: EvalContext,
  report: Report,
  findings: readonly Finding[],
  builtinsOf: BuiltinsOf,
): Diagnosis | null {
  const base = builtinsOf(ctx.subject);
  const match = evaluate(rule.when, ctx, base);
  if (!match) return null;
  // Host-level evidence only: the diagnosis belongs to the host evaluation, not to each interface.
  if (!match.interfaceSpecific && ctx.subject !== HOST) return null;
  const bindings: Bindings = { ...match.bindings, ...base };
  if (rule.unless && evaluate(rule.unless, ctx, bindings)) return null;

  // What triggered the rule is scored; confirming evidence is shown but only sets the tier.
  const trigger = dedupeEvidence(match.evidence);
  let evidence = [...match.evidence];
  let mode: DiagnosisMode = 'static';
  let bonus = 0;
  if (report.bench) {
    const measured = match.evidence.some((item) => 'check' in item && item.check === BENCH_CHECK);
    const confirmation = !measured && rule.confirmedBy ? evaluate(rule.confirmedBy, ctx, bindings) : null;
    if (confirmation) {
      evidence.push(...confirmation.evidence);
      for (const [name, value] of Object.entries(confirmation.bindings)) if (bindings[name] === undefined) bindings[name] = value;
    }
    mode = measured || confirmation ? 'confirmed' : 'not-confirmed';
    const checklist = (rule.relatedCauses?.length ?? 0) > 0;
    bonus = measured && !checklist ? SCORE.measured : mode === 'confirmed' ? SCORE.confirmed : SCORE.notConfirmed;
  }
  evidence = dedupeEvidence(evidence);

  const notes: string[] = [];
  const limitText = rule.limit ? render(rule.limit, bindings) : null;
  const limit = limitText?.ok ? limitText.text : null;
  const ruledOut: string[] = [];
  // A host diagnosis is ruled in or out by each interface's facts (the PCIe link of every port).
  const contexts = ctx.subject === HOST ? [...interfacesOf(report).map((subject) => ({ ...ctx, subject })), ctx] : [ctx];
  for (const entry of rule.ruledOut ?? []) {
    for (const where of contexts) {
      const local = where === ctx ? bindings : { ...bindings, ...builtinsOf(where.subject) };
      const held = evaluate(entry.when, where, local);
      if (!held) continue;
      const line = render(entry.text, { ...held.bindings, ...local });
      if (line.ok && !ruledOut.includes(line.text)) ruledOut.push(line.text);
    }
  }
  const severity = strongestSeverity(trigger, findings);
  const confidence = cappedConfidence(rule.confidence, severity);
  const score =
    SEVERITY_WEIGHT[severity] * SCORE.severity +
    independentSources(trigger) * SCORE.source +
    CONFIDENCE_WEIGHT[confidence] * SCORE.confidence +
    bonus;
  // What the ticket's poster reports from their own tests (a cure, a before-and-after rate) is a
  // measurement too: pasted runs at the ceiling, often of another direction or setting, do not refute it.
  const measuredTrigger = match.evidence.some(
    (item) => ('check' in item && item.check === BENCH_CHECK) || ('fact' in item && item.fact === TICKET_REPORTS),
  );
  return {
    ruleId: rule.id,
    title: rule.title,
    cause: rule.cause,
    relatedCauses: rule.relatedCauses ?? [],
    subject: ctx.subject,
    confidence,
    severity,
    score,
    mode: refutedByMeasurement(report, ctx.subject, measuredTrigger, rule) ? 'refuted' : mode,
    explanation: renderSentences(rule.explanation, bindings) || rule.title,
    verdict: verdictFor(mode, limit, bindings),
    limit,
    evidence,
    ruledOut,
    fixes: renderFixes(rule, ctx, bindings, notes),
    references: rule.references,
    notes,
  };
}

/**
 * Rules × subjects (each selected interface, then the host) → diagnoses: actionable ones first,
 * strongest evidence first (see SCORE), informational ones (causes 18, 19) last. Pure: reads the report and already-collected facts, runs nothing.
 */
export function diagnose({ report, facts, rules, checks }: DiagnoseInput): Diagnosis[] {
  const findings = allFindings(report);
  const phrases = checks ? phraseLookup(checks) : undefined;
  const subjects = [
    ...new Set([
      ...report.interfaces.map((iface) => iface.name),
      ...findings.map((finding) => finding.subject).filter((subject) => subject !== HOST),
    ]),
    HOST,
  ];
  const lookup: FactLookup = (id, subject) => {
    const value = facts(id, subject);
    // The bench result travels in the report; scan() need not hand it over as a fact too.
    if (value === undefined && id === 'bench.result') return report.bench;
    return value;
  };
  const statuses = new Map(
    report.checks.map((result) => [
      result.id,
      { result, bySubject: new Map(result.subjects.map((entry) => [entry.subject, entry.status])) },
    ]),
  );
  const checkStatus = (check: string, subject: string) => {
    const entry = statuses.get(check);
    if (!entry) return undefined;
    const own = entry.bySubject.get(subject) ?? entry.bySubject.get(HOST);
    return own ?? (entry.result.subjects.length === 0 ? entry.result.status : undefined);
  };
  // Findings by symptom and by "symptom@subject": each condition looks at its own few.
  const bySymptom = new Map<string, Finding[]>();
  const bySymptomSubject = new Map<string, Finding[]>();
  for (const finding of findings) {
    const symptom = `${finding.check}/${finding.symptom}`;
    (bySymptom.get(symptom) ?? bySymptom.set(symptom, []).get(symptom)!).push(finding);
    const key = `${symptom}@${finding.subject}`;
    (bySymptomSubject.get(key) ?? bySymptomSubject.set(key, []).get(key)!).push(finding);
  }
  const findingsOf = (symptom: string, subject: string): readonly Finding[] => {
    if (subject === 'any') return bySymptom.get(symptom) ?? [];
    const own = bySymptomSubject.get(`${symptom}@${subject}`) ?? [];
    const host = subject === HOST ? [] : (bySymptomSubject.get(`${symptom}@${HOST}`) ?? []);
    return host.length ? [...own, ...host] : own;
  };
  const diagnoses: Diagnosis[] = [];
  const builtinsOf = builtinsCache(report);
  for (const subject of subjects) {
    const ctx: EvalContext = {
      subject,
      findings,
      findingsOf,
      checkStatus,
      fact: lookup,
      isInterfaceFact: (id) => INTERFACE_FACTS.has(id),
      ...(phrases ? { phrases } : {}),
    };
    for (const rule of rules) {
      const diagnosis = diagnoseRule(rule, ctx, report, findings, builtinsOf);
      if (diagnosis) diagnoses.push(diagnosis);
    }
  }
  return diagnoses.sort(
    (a, b) =>
      Number(isInformational(a)) - Number(isInformational(b)) ||
      measuredGroup(a) - measuredGroup(b) ||
      b.score - a.score ||
      CONFIDENCE_WEIGHT[b.confidence] - CONFIDENCE_WEIGHT[a.confidence] ||
      a.cause - b.cause ||
      a.subject.localeCompare(b.subject) ||
      a.ruleId.localeCompare(b.ruleId),
  );
}

/** The symptoms, facts and checks one rule's conditions name (when, unless, confirmedBy, ruledOut, fixes). */
export function ruleReferences(rule: Rule, refs = { symptoms: new Set<string>(), facts: new Set<string>(), checks: new Set<string>() }) {
  for (const condition of [
    rule.when,
    rule.unless,
    rule.confirmedBy,
    ...(rule.ruledOut ?? []).map((entry) => entry.when),
    ...rule.fixes.map((fix) => fix.when),
  ])
    references(condition, refs);
  return refs;
}

/** Fact ids the rules read, for building the lookup. */
export function referencedFacts(rules: readonly Rule[]): string[] {
  const refs = { symptoms: new Set<string>(), facts: new Set<string>(), checks: new Set<string>() };
  for (const rule of rules) ruleReferences(rule, refs);
  return [...refs.facts].sort();
}

/**
 * A synchronous lookup over the facts the scan already collected: rules never cause a
 * collector to run (no command is started for a rule).
 */
export async function collectRuleFacts(
  store: Pick<FactStore, 'get' | 'runs'> & Partial<Pick<FactStore, 'provided'>>,
  rules: readonly Rule[],
  subjects: readonly string[],
  /** Facts read by something other than the rules (the known issues). */
  extraFacts: readonly string[] = [],
): Promise<FactLookup> {
  const values = new Map<string, unknown>();
  // Which facts were collected, once: a lookup per fact and subject stays linear in interfaces.
  const collectedRuns = new Set(store.runs.filter((run) => run.ok).map((run) => `${run.fact}@${run.subject ?? ''}`));
  for (const id of new Set([...referencedFacts(rules), ...extraFacts])) {
    const perInterface = INTERFACE_FACTS.has(id);
    for (const subject of perInterface ? subjects : ['']) {
      const collected = collectedRuns.has(`${id}@${subject}`) || Boolean(store.provided?.has(`${id}@${subject}`));
      if (!collected) continue;
      const result = await store.get(id as FactId, subject || undefined);
      if (result.ok) values.set(`${id}@${subject}`, result.value);
    }
  }
  return (id, subject) => values.get(`${id}@${INTERFACE_FACTS.has(id) ? (subject ?? '') : ''}`);
}
