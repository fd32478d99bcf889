import { z } from 'zod';
import { dropInSchema, operationTemplateSchema } from '../report/fix-operations.js';
import { MAX_CAUSE } from '../domain/causes.js';
import { parseReference } from '../domain/references.js';

/**
 * The rule format (rules/*.yaml): what was observed (check symptoms, facts, check verdicts) →
 * a cause of the catalogue (docs/causes.md), its explanation and fixes. Rules are data: they never run commands,
 * they only print them, rendered with the host's real values.
 */

export const OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'matches', 'exists', 'absent'] as const;
export const opSchema = z.enum(OPS);
export type Op = z.infer<typeof opSchema>;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** A value taken from what an earlier condition bound ("{ceilingGbps}"), optionally scaled. */
export const refSchema = z.strictObject({
  ref: z.string().min(1),
  times: z.number().optional(),
});

export const valueSchema = z.union([scalar, z.array(scalar), refSchema]);
export type ConditionValue = z.infer<typeof valueSchema>;

const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SYMPTOM_ID = /^[a-z0-9-]+\/[a-z0-9-]+$/;
const NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** `<check>/<symptom>` matches a finding; with `data` + `op`, one of its numbers. */
export const symptomConditionSchema = z.strictObject({
  symptom: z.string().regex(SYMPTOM_ID, 'a symptom id "<check>/<symptom>", e.g. "pcie-link/pcie-bandwidth-below-port"'),
  /** same (default): a finding on the subject under evaluation or a host-level one; any: on any subject. */
  subject: z.enum(['same', 'any']).optional(),
  data: z.string().min(1).optional(),
  op: opSchema.optional(),
  value: valueSchema.optional(),
  /** Binds the data value to this name for templates. */
  as: z.string().regex(NAME).optional(),
});

/** A condition on a collected fact, by dotted path ("link.width"). */
export const factConditionSchema = z.strictObject({
  fact: z.string().regex(/^[a-z0-9]+(\.[a-z0-9-]+)+$/, 'a fact id such as "pcie.link" or "iperf3.version"'),
  path: z.string().min(1),
  op: opSchema,
  value: valueSchema.optional(),
  as: z.string().regex(NAME).optional(),
  /**
   * A host fact's path to the interface (or list of interfaces) its value is about: a ticket's
   * words about "the" link of a text that shows one interface, or the ports its commands name.
   * The condition then holds for those interfaces, not the host; where the path holds no name,
   * for the host.
   */
  about: z.string().min(1).optional(),
});

/** A check's verdict on the subject (pass rules causes out). */
export const checkConditionSchema = z.strictObject({
  check: z.string().regex(KEBAB),
  status: z.union([
    z.enum(['pass', 'fail', 'not-applicable', 'unknown', 'error']),
    z.array(z.enum(['pass', 'fail', 'not-applicable', 'unknown', 'error'])).min(1),
  ]),
});

/** A condition on a built-in value (linkGbps, physicalCores, bench.processes, profile, ...). */
export const varConditionSchema = z.strictObject({
  var: z.string().regex(NAME),
  op: opSchema,
  value: valueSchema.optional(),
});

export type SymptomCondition = z.infer<typeof symptomConditionSchema>;
export type FactCondition = z.infer<typeof factConditionSchema>;
export type CheckCondition = z.infer<typeof checkConditionSchema>;
export type VarCondition = z.infer<typeof varConditionSchema>;
export type Condition =
  SymptomCondition | FactCondition | CheckCondition | VarCondition | { all: Condition[] } | { any: Condition[] } | { not: Condition };

export const conditionSchema: z.ZodType<Condition> = z
  .lazy(() =>
    z.union([
      symptomConditionSchema,
      factConditionSchema,
      checkConditionSchema,
      varConditionSchema,
      z.strictObject({ all: z.array(conditionSchema).min(1) }),
      z.strictObject({ any: z.array(conditionSchema).min(1) }),
      z.strictObject({ not: conditionSchema }),
    ]),
  )
  .meta({ id: 'Condition', description: 'symptom / fact / check / var condition, or all / any / not of conditions' });

/** A reference a report can link: a URL, or a cause anchor of docs/causes.md (src/domain/references.ts). */
export const referenceSchema = z.string().superRefine((text, ctx) => {
  const parsed = parseReference(text);
  if (parsed.kind === 'invalid') ctx.addIssue({ code: 'custom', message: `"${text}": ${parsed.reason}` });
});

export const fixSchema = z.strictObject({
  /** Why and what, in prose; `{name}` placeholders are filled from the matched findings and facts. */
  text: z.string().min(1),
  /** Only when this holds (a fix for one branch of an `any`). */
  when: conditionSchema.optional(),
  /**
   * Runtime operations (src/fix/operations.ts), parameters templated; printed as shell text,
   * never run by the rule engine (only `nicdoctor fix --apply` runs the ethtool/sysctl kinds).
   */
  ops: z.array(operationTemplateSchema).optional(),
  /** Persistent configuration: a drop-in file and its content (lines that cannot be filled are left out). */
  persistent: dropInSchema.optional(),
  /** Resets the link, drops traffic or needs a reboot / hardware change. */
  disruptive: z.boolean(),
});
export type RuleFix = z.infer<typeof fixSchema>;

export const ruleSchema = z
  .strictObject({
    id: z.string().regex(KEBAB, 'kebab-case'),
    title: z.string().min(3),
    /** The cause number (src/domain/causes.ts). */
    cause: z.number().int().min(1).max(MAX_CAUSE),
    /** Other causes the same observation points to (a checklist rule). */
    relatedCauses: z.array(z.number().int().min(1).max(MAX_CAUSE)).optional(),
    when: conditionSchema,
    /** The rule does not fire when this holds (a more specific rule explains it). */
    unless: conditionSchema.optional(),
    /** Sentences; one whose placeholders cannot all be filled is left out. */
    explanation: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** What the cause limits throughput to, for static diagnoses: "≈ {ceilingGbps} Gb/s". */
    limit: z.string().optional(),
    /** Bench observations that confirm the diagnosis (the bench's predicted symptom). */
    confirmedBy: conditionSchema.optional(),
    fixes: z.array(fixSchema),
    confidence: z.enum(['high', 'medium', 'low']),
    /** URLs and cause anchors (docs/causes.md#cause-<n>); every one must resolve. */
    references: z.array(referenceSchema).min(1),
    /** Lines saying what was ruled out and why, each shown when its condition holds. */
    ruledOut: z.array(z.strictObject({ when: conditionSchema, text: z.string().min(1) })).optional(),
  })
  .meta({ id: 'Rule' });
export type Rule = z.infer<typeof ruleSchema>;
export type Confidence = Rule['confidence'];

export const ruleFileSchema = z.strictObject({
  rules: z.array(z.unknown()).min(1),
});

/** The whole file, rules typed, for the JSON Schema editors complete against. */
export const ruleFileJsonSchemaSource = z.strictObject({
  rules: z.array(ruleSchema).min(1),
});
