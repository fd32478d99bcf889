import { checks, type RegisteredCheck } from '../../checks/index.js';
import { phrasesFor, type SymptomIdOf, type SymptomInput, type SymptomMeta } from '../../src/contracts/check.js';
import { fill } from '../../src/rules/template.js';
import { diagnose, type Diagnosis, type FactLookup } from '../../src/rules/engine.js';
import { loadRules } from '../../src/rules/loader.js';
import type { Rule } from '../../src/rules/schema.js';
import {
  reportSchema,
  type Bench,
  type CheckStatus,
  type Finding,
  type InterfaceSummary,
  type Report,
  type Scalar,
  type Severity,
} from '../../src/report/schema.js';

export const catalogue = loadRules();

const severities = new Map<string, Severity>(
  checks.flatMap((check) =>
    Object.entries(check.symptoms).map(([id, meta]) => [`${check.id}/${id}`, (meta as { severity: Severity }).severity] as const),
  ),
);

/**
 * A finding as the check would report it: severity from the check's symptom table, message
 * rendered from its template with the data (placeholders the fixture leaves out stay visible).
 * Two fixtures of one symptom on one subject with different data are two findings, as on a host;
 * the engine merges only findings that share check, symptom, subject and message.
 */
export function finding(symptom: string, subject: string, data: Record<string, Scalar> = {}, severity?: Severity): Finding {
  const [check, id] = symptom.split('/') as [string, string];
  const declared = severities.get(symptom);
  if (!declared) throw new Error(`no check declares ${symptom}`);
  const meta = metas.get(symptom);
  const message = meta ? fill(meta.message, { subject, ...data, ...phrasesFor(meta, data, { subject }) }).text : symptom;
  return { check, symptom: id, subject, severity: severity ?? declared, message, evidence: [], data };
}

/** Every `<check>/<symptom>` a registered check declares. */
export type SymptomId = SymptomIdOf<RegisteredCheck>;

/** What that symptom's check passes to report(): the input type of its data schema. */
export type FindingData<S extends SymptomId> = S extends `${infer C}/${infer N}`
  ? Extract<RegisteredCheck, { id: C }>['symptoms'] extends infer Sy
    ? N extends keyof Sy
      ? SymptomInput<Sy[N]>
      : never
    : never
  : never;

const metas = new Map<string, SymptomMeta>(
  checks.flatMap((check) =>
    Object.entries(check.symptoms as Record<string, SymptomMeta>).map(([id, meta]) => [`${check.id}/${id}`, meta] as const),
  ),
);

/**
 * A finding whose data is typed and validated by the symptom's real schema, as the check would
 * report it: a renamed or retyped field breaks the fixture (at compile time and when it loads).
 */
export function typedFinding<S extends SymptomId>(symptom: S, subject: string, data: FindingData<S>, severity?: Severity): Finding {
  const meta = metas.get(symptom);
  if (!meta?.data) return finding(symptom, subject, data, severity);
  const parsed = meta.data.safeParse(data);
  if (!parsed.success)
    throw new Error(
      `fixture ${symptom}: the data does not match the check's schema: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  const kept = Object.fromEntries(
    Object.entries(parsed.data as Record<string, Scalar | undefined>).filter(([, value]) => value !== undefined),
  ) as Record<string, Scalar>;
  return finding(symptom, subject, kept, severity);
}

export const IF = 'enp65s0f0';

export function nic(name = IF, extra: Partial<InterfaceSummary> = {}): InterfaceSummary {
  return {
    name,
    kind: 'physical',
    driver: 'ixgbe',
    pciAddress: '0000:41:00.0',
    speedMbps: 10_000,
    duplex: 'full',
    mtu: 1500,
    operstate: 'up',
    numaNode: 0,
    master: null,
    ...extra,
  };
}

export interface BenchInput {
  resultGbps?: number;
  processes?: number;
  client?: string | null;
  server?: string | null;
  softnetDropped?: number | null;
  softnetTimeSqueeze?: number | null;
  linkMbps?: number;
  pcieGbps?: number | null;
  mtu?: number;
}

export function bench(input: BenchInput = {}, findings: Finding[] = []): Bench {
  const bps = (input.resultGbps ?? 9.4) * 1e9;
  return {
    mode: 'peer',
    peer: '192.0.2.7',
    direction: 'forward',
    protocol: 'tcp',
    iperf3: { client: input.client === undefined ? '3.16' : input.client, server: input.server === undefined ? '3.16' : input.server },
    interface: IF,
    linkSpeedMbps: input.linkMbps ?? 10_000,
    mtu: input.mtu ?? 1500,
    ceilingBitsPerSecond: 9.41e9,
    pcieBitsPerSecond: input.pcieGbps === undefined || input.pcieGbps === null ? null : input.pcieGbps * 1e9,
    ports: [5101],
    cpus: [0],
    steps: [],
    stopReason: 'plateau',
    result: {
      bitsPerSecond: bps,
      senderBitsPerSecond: bps,
      reverseBitsPerSecond: null,
      retransmits: 0,
      durationSeconds: 10,
      processes: input.processes ?? 1,
      streamsPerProcess: 1,
      intervals: [],
      perProcess: [],
    },
    counters: {
      softnetDropped: input.softnetDropped ?? null,
      softnetTimeSqueeze: input.softnetTimeSqueeze ?? null,
      nicDrops: {},
      interruptsPerCpu: [],
    },
    findings,
    complete: true,
    error: null,
    cpuSeconds: { nicdoctor: 0.1, iperf3: 1 },
    durationMs: 10_000,
  };
}

export interface ScenarioInput {
  findings?: Finding[];
  interfaces?: InterfaceSummary[];
  /** Check verdicts per subject: { 'pcie-link': { enp65s0f0: 'pass' } }. */
  statuses?: Record<string, Record<string, CheckStatus>>;
  bench?: Bench;
  physicalCores?: number;
  profile?: Report['profile'];
}

/** A valid report: findings grouped under their checks, verdicts as given (fail where a finding is). */
export function report(input: ScenarioInput = {}): Report {
  const findings = input.findings ?? [];
  const interfaces = input.interfaces ?? [nic()];
  const ids = new Set([...findings.map((item) => item.check), ...Object.keys(input.statuses ?? {})]);
  return reportSchema.parse({
    schemaVersion: '1.0',
    tool: { name: 'nicdoctor', version: '0.1.0' },
    generatedAt: '2026-11-29T12:00:00.000Z',
    source: { mode: 'snapshot' },
    profile: input.profile ?? 'throughput',
    host: {
      hostname: 'db-7',
      kernel: '6.1.0',
      os: 'Debian 12',
      arch: 'x64',
      cpuModel: 'Xeon',
      logicalCpus: 16,
      physicalCores: input.physicalCores ?? 8,
      virtualization: null,
      root: true,
    },
    interfaces,
    checks: [...ids].map((id) => {
      const own = findings.filter((item) => item.check === id);
      const statuses = input.statuses?.[id] ?? {};
      const subjects = new Set([...own.map((item) => item.subject), ...Object.keys(statuses)]);
      return {
        id,
        title: id,
        status: own.length ? 'fail' : 'pass',
        durationMs: 1,
        subjects: [...subjects].map((subject) => ({ subject, status: statuses[subject] ?? 'fail' })),
        findings: own,
      };
    }),
    summary: { pass: 0, fail: 0, notApplicable: 0, unknown: 0, error: 0, critical: 0, warning: 0, info: 0 },
    collectors: [],
    ...(input.bench ? { bench: input.bench } : {}),
    durationMs: 1,
  });
}

export type Facts = Record<string, unknown>;

export function lookup(facts: Facts = {}): FactLookup {
  return (id) => facts[id];
}

export function run(input: ScenarioInput & { facts?: Facts; rules?: readonly Rule[] } = {}): Diagnosis[] {
  return diagnose({ report: report(input), facts: lookup(input.facts), rules: input.rules ?? catalogue, checks });
}
