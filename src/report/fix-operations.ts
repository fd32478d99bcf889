/**
 * A fix is data: typed operations, each validated by its own zod schema (the report's fixes
 * carry them). They are rendered to shell text (what reports print) and, for the kinds
 * `nicdoctor fix --apply` may run, to an argv in src/domain/fix-commands.ts. Nothing here parses
 * shell text: rules and checks declare operations with templated parameters
 * (src/rules/fix-render.ts fills them), and this module checks the filled values.
 */
import { z } from 'zod';
import { isValidInterfaceName } from '../util/validate.js';

/** A name ethtool reads as an interface, never as an option ("-x"), that the kernel allows. */
const iface = z.string().refine((name) => isValidInterfaceName(name) && !name.startsWith('-'), {
  error: (issue) => `${JSON.stringify(issue.input)} is not a valid interface name`,
});

/** "4096" (a template filled with a number prints as text) → 4096; anything else stays as is for the error. */
const numeric = (value: unknown) =>
  typeof value === 'string' && /^(0|[1-9][0-9]{0,9})$/.test(value.trim()) ? Number(value.trim()) : value;

const count = (what: string, min: number) =>
  z.preprocess(
    numeric,
    z
      .number({ error: (issue) => `${what} must be a number, not ${JSON.stringify(issue.input)}` })
      .int(`${what} must be a whole number`)
      .min(min, `${what} must be at least ${min}`)
      .max(9_999_999, `${what} is too large`),
  );

const onOff = (what: string) =>
  z.enum(['on', 'off'], { error: (issue) => `${what} must be on or off, not ${JSON.stringify(issue.input)}` });

/** ethtool -k long names → the short names ethtool -K documents (off_flag_def in ethtool.c). */
const FEATURE_SHORT_NAMES: Record<string, string> = {
  'rx-checksumming': 'rx',
  'tx-checksumming': 'tx',
  'scatter-gather': 'sg',
  'tcp-segmentation-offload': 'tso',
  'udp-fragmentation-offload': 'ufo',
  'generic-segmentation-offload': 'gso',
  'generic-receive-offload': 'gro',
  'large-receive-offload': 'lro',
  'rx-vlan-offload': 'rxvlan',
  'tx-vlan-offload': 'txvlan',
  'ntuple-filters': 'ntuple',
  'receive-hashing': 'rxhash',
};

/** "tso,gso" or "TSO, GSO" (a finding's feature list) → ["tso", "gso"]. */
const featureList = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(/[\s,]+/)
          .filter(Boolean)
          .map((name) => name.toLowerCase())
          .map((name) => FEATURE_SHORT_NAMES[name] ?? name)
      : value,
  z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'not an offload feature name')),
);

export const ethtoolFeaturesOp = z.strictObject({
  kind: z.literal('ethtool-features'),
  iface,
  /** Features to turn on, then off (ethtool -K names). */
  on: featureList.optional(),
  off: featureList.optional(),
});

export const ethtoolChannelsOp = z.strictObject({
  kind: z.literal('ethtool-channels'),
  iface,
  rx: count('rx channels', 0).optional(),
  tx: count('tx channels', 0).optional(),
  other: count('other channels', 0).optional(),
  combined: count('combined channels', 0).optional(),
});

export const ethtoolRingsOp = z.strictObject({
  kind: z.literal('ethtool-rings'),
  iface,
  rx: count('rx ring size', 1).optional(),
  'rx-mini': count('rx-mini ring size', 1).optional(),
  'rx-jumbo': count('rx-jumbo ring size', 1).optional(),
  tx: count('tx ring size', 1).optional(),
});

/** Numeric coalescing parameters that `ethtool -c` prints, so they can be read back. */
export const COALESCE_NUMBERS = [
  'rx-usecs',
  'rx-frames',
  'rx-usecs-irq',
  'rx-frames-irq',
  'tx-usecs',
  'tx-frames',
  'tx-usecs-irq',
  'tx-frames-irq',
  'stats-block-usecs',
  'sample-interval',
  'pkt-rate-low',
  'pkt-rate-high',
  'rx-usecs-low',
  'rx-frames-low',
  'tx-usecs-low',
  'tx-frames-low',
  'rx-usecs-high',
  'rx-frames-high',
  'tx-usecs-high',
  'tx-frames-high',
] as const;

export const ethtoolCoalesceOp = z.strictObject({
  kind: z.literal('ethtool-coalesce'),
  iface,
  'adaptive-rx': onOff('adaptive-rx').optional(),
  'adaptive-tx': onOff('adaptive-tx').optional(),
  ...(Object.fromEntries(COALESCE_NUMBERS.map((name) => [name, count(name, 0).optional()])) as Record<
    (typeof COALESCE_NUMBERS)[number],
    z.ZodOptional<ReturnType<typeof count>>
  >),
});

export const ethtoolPauseOp = z.strictObject({
  kind: z.literal('ethtool-pause'),
  iface,
  autoneg: onOff('autoneg').optional(),
  rx: onOff('rx').optional(),
  tx: onOff('tx').optional(),
});

/** net.* keys in dotted form: no "/" (a path), no "..", no empty component. */
const SYSCTL_KEY = /^net(\.[A-Za-z0-9_+-]{1,64}){1,8}$/;
const SYSCTL_VALUE = /^[A-Za-z0-9_.,:+-]+( [A-Za-z0-9_.,:+-]+)*$/;

/** "4096\t87380  6291456" → "4096 87380 6291456": /proc/sys prints tabs, sysctl.d uses spaces. */
export function normalizeSysctlValue(value: string): string {
  return value.trim().split(/\s+/).join(' ');
}

export const sysctlOp = z.strictObject({
  kind: z.literal('sysctl'),
  key: z.string().regex(SYSCTL_KEY, 'only net.* keys (dotted) are set'),
  value: z.preprocess(
    (value) => (typeof value === 'number' ? String(value) : typeof value === 'string' ? normalizeSysctlValue(value) : value),
    z.string().min(1, 'an empty value').max(256).regex(SYSCTL_VALUE, 'not a plain value'),
  ),
});

/** A hex cpumask as sysfs takes it: "ff" or "ff,ffffffff". */
const cpuMask = z.string().regex(/^[0-9a-fA-F]{1,8}(,[0-9a-fA-F]{8})*$/, 'not a hex CPU mask');

/** CPU numbers stay below 65,536 (NR_CPUS is at most 8,192; src/parsers/cpulist.ts). */
const MAX_CPU = 65_535;

/** The CPUs of a cpulist ("0-7,16"), in order, or null when it is not one. */
export function cpusOfList(text: string): number[] | null {
  if (!/^\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*$/.test(text)) return null;
  const cpus: number[] = [];
  for (const part of text.split(',')) {
    const [first, last = first] = part.split('-').map(Number) as [number, number?];
    if (last < first || last > MAX_CPU) return null;
    for (let cpu = first; cpu <= last; cpu += 1) if (!cpus.includes(cpu)) cpus.push(cpu);
  }
  return cpus.sort((a, b) => a - b);
}

/** A cpulist ("0-7,16") the kernel would accept. */
const cpuList = z
  .string()
  .refine((text) => (cpusOfList(text)?.length ?? 0) > 0, { error: (issue) => `${JSON.stringify(issue.input)} is not a CPU list` });

export const rpsCpusOp = z.strictObject({
  kind: z.literal('rps-cpus'),
  iface,
  queue: count('queue', 0),
  mask: cpuMask,
});

/** The queue IRQs, spread round-robin over the CPUs (one CPU per IRQ). */
export const irqAffinityOp = z.strictObject({
  kind: z.literal('irq-affinity'),
  irqs: z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(/[\s,]+/)
            .filter(Boolean)
            .map(numeric)
        : typeof value === 'number'
          ? [value]
          : value,
    z.array(count('irq', 0)).min(1, 'no IRQs'),
  ),
  cpus: cpuList,
});

/** Reads or measures only: argv, optionally filtered through grep (-E). */
export const inspectOp = z.strictObject({
  kind: z.literal('inspect'),
  argv: z.array(z.string().min(1)).min(1),
  grep: z.strictObject({ pattern: z.string().min(1), ignoreCase: z.boolean().optional() }).optional(),
});

/** A step for a human: a command with shell syntax, or something to do by hand. Never run by nicdoctor. */
export const manualOp = z.strictObject({
  kind: z.literal('manual'),
  text: z.string().min(1),
});

/** Persistent configuration: a drop-in file and its content. */
export const dropInSchema = z.strictObject({ file: z.string().min(1), content: z.string().min(1) });
export type DropIn = z.infer<typeof dropInSchema>;

export const operationSchema = z
  .discriminatedUnion('kind', [
    ethtoolFeaturesOp,
    ethtoolChannelsOp,
    ethtoolRingsOp,
    ethtoolCoalesceOp,
    ethtoolPauseOp,
    sysctlOp,
    rpsCpusOp,
    irqAffinityOp,
    inspectOp,
    manualOp,
  ])
  .meta({ id: 'FixOperation' });
export type Operation = z.infer<typeof operationSchema>;
export type OperationKind = Operation['kind'];

export const OPERATION_SCHEMAS = {
  'ethtool-features': ethtoolFeaturesOp,
  'ethtool-channels': ethtoolChannelsOp,
  'ethtool-rings': ethtoolRingsOp,
  'ethtool-coalesce': ethtoolCoalesceOp,
  'ethtool-pause': ethtoolPauseOp,
  sysctl: sysctlOp,
  'rps-cpus': rpsCpusOp,
  'irq-affinity': irqAffinityOp,
  inspect: inspectOp,
  manual: manualOp,
} as const satisfies Record<OperationKind, z.ZodType>;

export type EthtoolKind = 'ethtool-features' | 'ethtool-channels' | 'ethtool-rings' | 'ethtool-coalesce' | 'ethtool-pause';
export type EthtoolOperation = Extract<Operation, { kind: EthtoolKind }>;
export type SysctlOperation = Extract<Operation, { kind: 'sysctl' }>;
/** What `nicdoctor fix --apply` may run: each can be read back, which makes it revertible. */
export type ApplicableOperation = EthtoolOperation | SysctlOperation;

/** The set flag of each ethtool kind, and the read flag that shows its values. */
export const ETHTOOL_FLAGS: Record<EthtoolKind, { set: string; read: string }> = {
  'ethtool-features': { set: '-K', read: '-k' },
  'ethtool-channels': { set: '-L', read: '-l' },
  'ethtool-rings': { set: '-G', read: '-g' },
  'ethtool-coalesce': { set: '-C', read: '-c' },
  'ethtool-pause': { set: '-A', read: '-a' },
};

/** The kinds --apply runs (the whitelist); every other kind is printed for a human. */
export const APPLICABLE_KINDS: ReadonlySet<OperationKind> = new Set<OperationKind>([
  ...(Object.keys(ETHTOOL_FLAGS) as EthtoolKind[]),
  'sysctl',
]);

export function isApplicable(op: Operation): op is ApplicableOperation {
  return APPLICABLE_KINDS.has(op.kind);
}

export function isEthtool(op: Operation): op is EthtoolOperation {
  return op.kind in ETHTOOL_FLAGS;
}

/** [name, value] pairs of an ethtool operation, in the order ethtool takes them. */
export function ethtoolSettings(op: EthtoolOperation): [string, string][] {
  if (op.kind === 'ethtool-features')
    return [
      ...(op.on ?? []).map((name): [string, string] => [name, 'on']),
      ...(op.off ?? []).map((name): [string, string] => [name, 'off']),
    ];
  const { kind: _kind, iface: _iface, ...rest } = op;
  return Object.entries(rest as Record<string, string | number | undefined>).flatMap(([name, value]): [string, string][] =>
    value === undefined ? [] : [[name, String(value)]],
  );
}

/** The same ethtool operation with other values (a revert). */
export function withEthtoolSettings(op: EthtoolOperation, settings: readonly [string, string][]): EthtoolOperation {
  if (op.kind === 'ethtool-features') {
    return {
      kind: op.kind,
      iface: op.iface,
      on: settings.filter(([, value]) => value === 'on').map(([name]) => name),
      off: settings.filter(([, value]) => value === 'off').map(([name]) => name),
    };
  }
  return OPERATION_SCHEMAS[op.kind].parse({ kind: op.kind, iface: op.iface, ...Object.fromEntries(settings) });
}

/** A problem with a filled operation that its schema cannot see: nothing to set. */
export function operationProblem(op: Operation): string | null {
  if (isEthtool(op) && ethtoolSettings(op).length === 0) return 'no setting to change';
  if (op.kind === 'ethtool-features') {
    const names = [...(op.on ?? []), ...(op.off ?? [])];
    const twice = names.find((name, index) => names.indexOf(name) !== index);
    if (twice) return `${twice} is given twice`;
  }
  return null;
}

/** Validates a filled operation: the operation, or a reason naming the parameter. */
export function checkOperation(candidate: unknown): { ok: true; op: Operation } | { ok: false; reason: string } {
  const parsed = operationSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    return { ok: false, reason: `${where}${issue.message}` };
  }
  const problem = operationProblem(parsed.data);
  return problem ? { ok: false, reason: problem } : { ok: true, op: parsed.data };
}

/** /proc/sys path of a dotted net.* key. */
export function sysctlPath(key: string): string {
  return `/proc/sys/${key.split('.').join('/')}`;
}

/** A short name for notes: "ethtool-rings on eth0". */
export function operationLabel(op: { kind: string; iface?: unknown; key?: unknown }): string {
  const target = typeof op.iface === 'string' ? ` on ${op.iface}` : typeof op.key === 'string' ? ` ${op.key}` : '';
  return `${op.kind}${target}`;
}

/** A parameter as a rule or check writes it: a value, or a template such as "{rxMax}". */
const templateScalar = z.union([z.string(), z.number(), z.boolean()]);
const templateValue = z.union([templateScalar, z.array(templateScalar), z.record(z.string(), templateScalar)]);

/**
 * An operation before its placeholders are filled: the kind and the parameter names of the
 * kind's schema (a misspelt parameter is a load error), any value; the filled values are
 * checked by the kind's schema (checkOperation).
 */
export const operationTemplateSchema: z.ZodType<OperationTemplate> = z
  .discriminatedUnion(
    'kind',
    (Object.entries(OPERATION_SCHEMAS) as [OperationKind, z.ZodObject][]).map(([kind, schema]) =>
      z.strictObject({
        ...Object.fromEntries(
          Object.keys(schema.shape)
            .filter((key) => key !== 'kind')
            .map((key) => [key, templateValue.optional()]),
        ),
        kind: z.literal(kind),
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .meta({
    id: 'FixOperationTemplate',
    description: 'an operation (kind + parameters); string parameters may hold {placeholders}',
  }) as unknown as z.ZodType<OperationTemplate>;
export type OperationTemplate = { kind: OperationKind } & Record<string, unknown>;

/**
 * A check symptom's fix: a sentence whose `{commands}` placeholder is filled with the shell
 * text of its operations (the same operations and rendering as a rule's fix).
 */
export interface SymptomFixTemplate {
  text: string;
  ops?: readonly OperationTemplate[];
}
