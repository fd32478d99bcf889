import { z } from 'zod';
import { verificationSchema } from './verification-schema.js';
import { operationSchema } from './fix-operations.js';

/**
 * The JSON report: nicdoctor's public contract. Later features and outside tools rely on it,
 * so changes are additive; a breaking change bumps SCHEMA_VERSION.
 */
export const SCHEMA_VERSION = '1.0';

export const sourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: z.string() }),
  z.object({ kind: z.literal('command'), argv: z.array(z.string()) }),
  z.object({ kind: z.literal('inventory'), field: z.string() }),
]);
export type Source = z.infer<typeof sourceSchema>;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type Scalar = z.infer<typeof scalar>;

export const evidenceSchema = z.object({
  /** What was looked at: "LnkSta speed", "net.core.rmem_max". */
  label: z.string(),
  observed: scalar,
  expected: scalar.optional(),
  unit: z.string().optional(),
  source: sourceSchema.optional(),
});
export type Evidence = z.infer<typeof evidenceSchema>;

export const severitySchema = z.enum(['critical', 'warning', 'info']);
export type Severity = z.infer<typeof severitySchema>;

export const findingSchema = z.object({
  /** Stable id of what was seen, scoped to the check: rules match on `<check>/<symptom>`. */
  symptom: z.string(),
  check: z.string(),
  subject: z.string(),
  severity: severitySchema,
  message: z.string(),
  fix: z.string().optional(),
  evidence: z.array(evidenceSchema),
  /** Structured numbers behind the message, for rules and other tools. */
  data: z.record(z.string(), scalar).default({}),
});
export type Finding = z.infer<typeof findingSchema>;

export const checkStatusSchema = z.enum(['pass', 'fail', 'not-applicable', 'unknown', 'error']);
export type CheckStatus = z.infer<typeof checkStatusSchema>;

export const subjectResultSchema = z.object({
  subject: z.string(),
  status: checkStatusSchema,
  reason: z.string().optional(),
  hint: z.string().optional(),
});
export type SubjectResult = z.infer<typeof subjectResultSchema>;

export const checkResultSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: checkStatusSchema,
  /** Why the check is unknown, not-applicable or error (the first such subject's reason). */
  reason: z.string().optional(),
  hint: z.string().optional(),
  durationMs: z.number().nonnegative(),
  subjects: z.array(subjectResultSchema),
  findings: z.array(findingSchema),
  error: z.object({ message: z.string(), stack: z.string().optional() }).optional(),
});
export type CheckResult = z.infer<typeof checkResultSchema>;

export const interfaceSummarySchema = z.object({
  name: z.string(),
  /** `unknown`: the capture holds too little to tell a NIC from a software device. */
  kind: z.enum(['physical', 'paravirtual', 'virtual', 'bond', 'bridge', 'vlan', 'other', 'unknown']),
  /** veth, vxlan, tun, ifb, ... for software interfaces. */
  softwareType: z.string().nullable().optional(),
  /** The signals that decided the kind ("sysfs device link", "ethtool Port: FIBRE", ...). */
  identity: z.array(z.string()).optional(),
  driver: z.string().nullable(),
  pciAddress: z.string().nullable(),
  /** Negotiated speed of a physical port (or a bond of them): the only speed that is a link speed. */
  speedMbps: z.number().nullable(),
  /** Where the speed was read: "sysfs", or the output a capture derived it from ("ethtool", "kernel log", "prose"). */
  speedSource: z.string().optional(),
  /** The speed a virtual, paravirtual or unidentified interface reports (veth 10000): nominal, never used as a ceiling. */
  nominalSpeedMbps: z.number().nullable().optional(),
  duplex: z.string().nullable(),
  mtu: z.number().nullable(),
  operstate: z.string().nullable(),
  numaNode: z.number().nullable(),
  master: z.string().nullable(),
});
export type InterfaceSummary = z.infer<typeof interfaceSummarySchema>;

export const collectorRunSchema = z.object({
  fact: z.string(),
  subject: z.string().optional(),
  ok: z.boolean(),
  durationMs: z.number().nonnegative(),
  error: z.object({ kind: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
});

export const benchProcessSchema = z.object({
  label: z.string(),
  port: z.number().int(),
  /** CPU the client was pinned to (taskset), null when not pinned. */
  cpu: z.number().int().nullable(),
  pid: z.number().int().nullable(),
  bitsPerSecond: z.number().nullable(),
  senderBitsPerSecond: z.number().nullable(),
  retransmits: z.number().nullable(),
  /** iperf3's own figure: process CPU time over wall time, in % of one core. */
  hostCpuPercent: z.number().nullable(),
  remoteCpuPercent: z.number().nullable(),
  /** Sampled from /proc/<pid>/stat while it ran, in % of one core. */
  measuredCpuPercent: z.number().nullable(),
  /** cgroup CPU quota in % of one core, when the process had one. */
  cpuQuotaPercent: z.number().nullable(),
  throttledPeriods: z.number().nullable(),
  serverVersion: z.string().nullable(),
  error: z.string().nullable(),
  /** This process's rate per interval (omitted slow-start intervals left out). */
  intervals: z.array(z.object({ start: z.number(), end: z.number(), bitsPerSecond: z.number() })).default([]),
});
export type BenchProcess = z.infer<typeof benchProcessSchema>;

export const benchStepSchema = z.object({
  processes: z.number().int().positive(),
  streamsPerProcess: z.number().int().positive(),
  durationSeconds: z.number(),
  /** Receiver-side aggregate over all processes. */
  bitsPerSecond: z.number(),
  senderBitsPerSecond: z.number(),
  retransmits: z.number(),
  perProcess: z.array(benchProcessSchema),
});
export type BenchStep = z.infer<typeof benchStepSchema>;

export const benchSchema = z.object({
  mode: z.enum(['peer', 'loopback']),
  peer: z.string(),
  direction: z.enum(['forward', 'reverse', 'bidir']),
  protocol: z.enum(['tcp', 'udp']),
  iperf3: z.object({ client: z.string().nullable(), server: z.string().nullable() }),
  /** Interface the traffic leaves by, its speed and MTU (null on loopback). */
  interface: z.string().nullable(),
  linkSpeedMbps: z.number().nullable(),
  mtu: z.number().nullable(),
  /** TCP goodput ceiling of the link (CAUSES.md), null when the link speed is unknown. */
  ceilingBitsPerSecond: z.number().nullable(),
  /** Usable PCIe bandwidth of the NIC's link (pcie.link fact), when known. */
  pcieBitsPerSecond: z.number().nullable(),
  ports: z.array(z.number().int()),
  cpus: z.array(z.number().int()),
  steps: z.array(benchStepSchema),
  stopReason: z.string(),
  result: z
    .object({
      bitsPerSecond: z.number(),
      senderBitsPerSecond: z.number(),
      reverseBitsPerSecond: z.number().nullable(),
      retransmits: z.number(),
      durationSeconds: z.number(),
      processes: z.number().int(),
      streamsPerProcess: z.number().int(),
      /** Aggregate per interval, aligned across processes (omitted intervals left out). */
      intervals: z.array(z.object({ start: z.number(), end: z.number(), bitsPerSecond: z.number() })),
      perProcess: z.array(benchProcessSchema),
    })
    .nullable(),
  counters: z.object({
    softnetDropped: z.number().nullable(),
    softnetTimeSqueeze: z.number().nullable(),
    nicDrops: z.record(z.string(), z.number()),
    interruptsPerCpu: z.array(z.number()),
    /**
     * The sender's TCP loss recoveries during the run (SACK/Reno recoveries and timeouts) and how
     * many it undid once DSACK or timestamps showed the segments had arrived: reordered, not lost.
     * Absent in bundles older than this field and in pasted runs; null when unreadable.
     */
    tcpRecovery: z.object({ episodes: z.number(), undone: z.number() }).nullable().optional(),
  }),
  findings: z.array(findingSchema),
  /** False when the bench stopped early (error, interrupted): what is here is partial. */
  complete: z.boolean(),
  error: z.string().nullable(),
  cpuSeconds: z.object({ nicdoctor: z.number(), iperf3: z.number() }),
  durationMs: z.number(),
});
export type Bench = z.infer<typeof benchSchema>;

export const diagnosisSchema = z.object({
  ruleId: z.string(),
  title: z.string(),
  /** Number of the cause in the project's cause catalogue (CAUSES.md). */
  cause: z.number().int(),
  relatedCauses: z.array(z.number().int()),
  subject: z.string(),
  confidence: z.enum(['high', 'medium', 'low']),
  /** The strongest severity of the findings that triggered it: info makes a note, not a diagnosis. */
  severity: severitySchema.optional(),
  score: z.number(),
  /** static: predicted from facts; confirmed / not-confirmed: by the bench; refuted: the bench reached the ceiling this cause would lower. */
  mode: z.enum(['static', 'confirmed', 'not-confirmed', 'refuted']),
  explanation: z.string(),
  verdict: z.string(),
  limit: z.string().nullable(),
  evidence: z.array(
    z.union([
      z.object({ check: z.string(), symptom: z.string(), subject: z.string() }),
      z.object({ fact: z.string(), path: z.string(), value: scalar }),
    ]),
  ),
  ruledOut: z.array(z.string()),
  fixes: z.array(
    z.object({
      text: z.string(),
      commands: z.array(z.string()),
      /** The commands as typed operations (src/fix/operations.ts): what `nicdoctor fix` plans from, without parsing text. */
      operations: z.array(operationSchema).optional(),
      persistent: z.object({ file: z.string(), content: z.string() }).optional(),
      disruptive: z.boolean(),
    }),
  ),
  references: z.array(z.string()),
  notes: z.array(z.string()),
});
export type DiagnosisEntry = z.infer<typeof diagnosisSchema>;

export const textSegmentSchema = z.object({
  /** Format recognised (ethtool-stats, proc-interrupts, iperf3-text, ...) or 'ignored'. */
  kind: z.string(),
  recognised: z.boolean(),
  /** 1-based line range in the text as given. */
  firstLine: z.number().int(),
  lastLine: z.number().int(),
  host: z.string().nullable().optional(),
  interface: z.string().nullable().optional(),
  command: z.string().nullable().optional(),
  /** Only part of the output (| grep, | head). */
  filtered: z.boolean().optional(),
  /** Why it was not used, or what it was read as ("iperf2 output: not parsed"). */
  note: z.string().optional(),
});
export type TextSegment = z.infer<typeof textSegmentSchema>;

export const askForSchema = z.object({
  command: z.string(),
  /** The checks this would settle. */
  checks: z.array(z.string()),
  subject: z.string().optional(),
});
export type AskFor = z.infer<typeof askForSchema>;

/**
 * The settings of one interface as the scan read them, so that `fleet` and `diff` compare plain
 * reports as they compare bundles. `values` are what an operator sets or a vendor ships (rings,
 * queues, offloads, MTU, coalescing, qdisc, driver and firmware versions) and are compared between
 * hosts; `limits` are what the hardware offers (ring and queue maximums, the PCIe link it is
 * capable of, the fastest link mode) and `counters` are drops since boot: shown, never compared.
 */
export const interfaceSettingsSchema = z.object({
  name: z.string(),
  kind: interfaceSummarySchema.shape.kind,
  driver: z.string().nullable(),
  /** "Intel 8086:1593 (ice)": the group a fleet compares this interface within. */
  model: z.string(),
  pciAddress: z.string().nullable(),
  values: z.record(z.string(), scalar),
  limits: z.record(z.string(), scalar).default({}),
  counters: z.record(z.string(), scalar).default({}),
  /** Where the work lands, for the pictures: present when the checks read the outputs behind it. */
  distribution: z
    .object({
      /** Queue interrupts since boot per CPU (/proc/interrupts), for the CPUs listed in `cpus`. */
      interruptsPerCpu: z.array(z.object({ cpu: z.number().int(), count: z.number(), node: z.number().int().nullable() })),
      /** CPUs local to the NIC (local_cpulist); null when unknown. */
      localCpus: z.array(z.number().int()).nullable(),
      /** Interrupts since boot per queue vector ("eth0-TxRx-3"). */
      interruptsPerQueue: z.array(z.object({ name: z.string(), count: z.number() })),
      /** Received packets per RX queue (ethtool -S). */
      rxQueuePackets: z.array(z.object({ queue: z.number().int(), packets: z.number() })),
      /** The PCIe path from the NIC to its root port, nearest first; the narrowest hop marked. */
      pciePath: z.array(
        z.object({ address: z.string(), link: z.string().nullable(), capable: z.string().nullable(), narrowest: z.boolean() }),
      ),
    })
    .optional(),
});
export type InterfaceSettingsEntry = z.infer<typeof interfaceSettingsSchema>;

export const settingsSchema = z.object({
  /** Host-wide settings: the sysctls, the CPU governor, the kernel, the iperf3 version. */
  host: z.record(z.string(), scalar),
  interfaces: z.array(interfaceSettingsSchema),
});
export type ReportSettings = z.infer<typeof settingsSchema>;

export const reportSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal('nicdoctor'), version: z.string() }),
  generatedAt: z.string(),
  source: z.object({
    mode: z.enum(['live', 'snapshot', 'recording', 'text']),
    path: z.string().optional(),
    /** Text input (analyze FILE|-): each command output recognised in it, and the text ignored. */
    segments: z.array(textSegmentSchema).optional(),
    /** Text input: damage undone (CRLF, quoting) and what was inferred rather than read. */
    notes: z.array(z.string()).optional(),
  }),
  profile: z.enum(['throughput', 'measurement', 'latency']),
  host: z.object({
    hostname: z.string(),
    kernel: z.string(),
    os: z.string(),
    arch: z.string(),
    cpuModel: z.string(),
    logicalCpus: z.number(),
    physicalCores: z.number(),
    virtualization: z.string().nullable(),
    root: z.boolean(),
  }),
  interfaces: z.array(interfaceSummarySchema),
  /** Interfaces left out of a scan of every interface: down software devices and the like (--all keeps them). */
  skippedInterfaces: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
  checks: z.array(checkResultSchema),
  summary: z.object({
    pass: z.number().int(),
    fail: z.number().int(),
    notApplicable: z.number().int(),
    unknown: z.number().int(),
    error: z.number().int(),
    critical: z.number().int(),
    warning: z.number().int(),
    info: z.number().int(),
  }),
  collectors: z.array(collectorRunSchema),
  bench: benchSchema.optional(),
  /** fix --apply --verify: each change measured before and after, kept or reverted. */
  verification: verificationSchema.optional(),
  /** Causes behind the findings, strongest evidence first (rules/*.yaml). */
  diagnoses: z.array(diagnosisSchema).default([]),
  /** Low-confidence notes: rules triggered only by info findings. Never a bottleneck by themselves. */
  notes: z.array(diagnosisSchema).default([]),
  /** Causes the configuration suggested but the bench refuted (it reached the link's ceiling). */
  refuted: z.array(diagnosisSchema).default([]),
  /** The doctor's one-line answer, and what was and was not examined. */
  verdict: z
    .object({
      status: z.enum(['bottleneck', 'no-bottleneck', 'inconclusive']),
      headline: z.string(),
      examined: z.array(z.string()),
      notExamined: z.array(z.string()),
    })
    .optional(),
  /** The settings the checks read, per interface and for the host (compared by fleet and diff). */
  settings: settingsSchema.optional(),
  /** Text input: the commands to ask for, whose absence left a check unknown. */
  askFor: z.array(askForSchema).optional(),
  /** Pre-deployment checklist result (scan --policy FILE). */
  policy: z
    .object({
      name: z.string(),
      role: z.string().optional(),
      pass: z.boolean(),
      unknownFails: z.boolean(),
      counts: z.object({ pass: z.number().int(), fail: z.number().int(), unknown: z.number().int() }),
      items: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          subject: z.string().optional(),
          status: z.enum(['pass', 'fail', 'unknown']),
          observed: scalar,
          expected: scalar,
          reason: z.string(),
        }),
      ),
    })
    .optional(),
  /** Present when identifying values were replaced by tokens (scan --bundle --redact). */
  redacted: z
    .object({
      hostnames: z.number().int().nonnegative(),
      ips: z.number().int().nonnegative(),
      macs: z.number().int().nonnegative(),
      serials: z.number().int().nonnegative(),
    })
    .optional(),
  durationMs: z.number().nonnegative(),
});
export type Report = z.infer<typeof reportSchema>;
export type Profile = Report['profile'];
export const PROFILES = ['throughput', 'measurement', 'latency'] as const;
