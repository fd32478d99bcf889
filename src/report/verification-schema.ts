/**
 * The record of `nicdoctor fix --apply --verify`: the bench before and after each change, and
 * what was kept or reverted and why. Numbers only, plus the operations' shell text and the
 * verdict's reason (sentences nicdoctor wrote, not host text).
 */
import { z } from 'zod';

/** Repeated runs of one configuration at the fixed bench step. */
export const verificationMeasurementSchema = z.object({
  runs: z.number().int(),
  /** Mean of the runs' totals. */
  bitsPerSecond: z.number(),
  /** Sample standard deviation of the runs' totals: the measured noise. */
  stdDevBitsPerSecond: z.number(),
  samplesBitsPerSecond: z.array(z.number()),
  /** Mean retransmits per run. */
  retransmits: z.number(),
  /** Mean sender CPU (iperf3's host total), null when iperf3 did not report it. */
  cpuPercent: z.number().nullable(),
});
export type VerificationMeasurement = z.infer<typeof verificationMeasurementSchema>;

export const verificationVerdicts = ['kept', 'reverted', 'skipped', 'failed', 'interrupted'] as const;

export const verificationStepSchema = z.object({
  /** The diagnosis whose fix this step applies. */
  ruleId: z.string(),
  /** The changes, as shell text. */
  operations: z.array(z.string()),
  disruptive: z.boolean(),
  before: verificationMeasurementSchema.nullable(),
  after: verificationMeasurementSchema.nullable(),
  /** after − before (Gb/s in bits per second), and how far it had to go to count. */
  differenceBitsPerSecond: z.number().nullable(),
  marginBitsPerSecond: z.number().nullable(),
  outcome: z.enum(['better', 'worse', 'same']).nullable(),
  verdict: z.enum(verificationVerdicts),
  reason: z.string(),
});
export type VerificationStep = z.infer<typeof verificationStepSchema>;

export const verificationSchema = z.object({
  mode: z.enum(['peer', 'loopback']),
  peer: z.string(),
  /** The interface the bench traffic leaves by (null on loopback). */
  interface: z.string().nullable(),
  processes: z.number().int(),
  streamsPerProcess: z.number().int(),
  durationSeconds: z.number(),
  /** The link's TCP goodput ceiling, when known. */
  ceilingBitsPerSecond: z.number().nullable(),
  keepAll: z.boolean(),
  allowDisruptive: z.boolean(),
  steps: z.array(verificationStepSchema),
  /** The last measurement of what is left on the host. */
  final: verificationMeasurementSchema.nullable(),
  stopReason: z.string(),
  /** False when the loop was interrupted or failed part-way: the steps are what it got to. */
  complete: z.boolean(),
  /** What the loop left alone and why (changes it cannot measure or read back, irqbalance). */
  notes: z.array(z.string()),
  /** Persistent settings for the kept changes only, for the user to install. */
  persistent: z.array(z.object({ file: z.string(), content: z.string() })),
});
export type Verification = z.infer<typeof verificationSchema>;
