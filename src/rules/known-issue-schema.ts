import { z } from 'zod';
import { MAX_CAUSE } from '../domain/causes.js';
import { parseVersionRange } from '../domain/versions.js';
import { conditionSchema } from './schema.js';

/**
 * The known-issue format (known-issues/*.yaml): a driver, firmware or kernel bug keyed by version
 * ranges, the symptom it shows (a condition, exactly as in rules), a one-line description, and
 * where it is documented. Reported only when the versions match and the symptom is present; when
 * only the versions match it is a note.
 */
const versionRangeSchema = z.string().superRefine((text, ctx) => {
  try {
    parseVersionRange(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const urlSchema = z.url({ protocol: /^https?$/, error: 'a web address (https://…)' });

export const knownIssueSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'kebab-case'),
    title: z.string().min(3),
    /** Driver names as `ethtool -i` prints them (i40e, ice, mlx5_core, bnxt_en, ixgbe). */
    drivers: z.array(z.string().regex(/^[a-z0-9_-]+$/)).min(1),
    /** Ranges of the driver version, the firmware version and the kernel release (src/domain/versions.ts). */
    driverVersion: versionRangeSchema.optional(),
    firmware: versionRangeSchema.optional(),
    kernel: versionRangeSchema.optional(),
    /** What the issue looks like on a host: a condition on check symptoms, facts or check verdicts. */
    symptom: conditionSchema,
    description: z.string().min(10),
    /** The cause it belongs to (src/domain/causes.ts). */
    cause: z.number().int().min(1).max(MAX_CAUSE),
    fix: z.string().min(3),
    /** The upstream commit, vendor erratum or release note. */
    links: z.array(urlSchema).min(1),
    /** Where this entry was read from, in the authors' own words (a thread, a KB article, a README). */
    source: urlSchema,
  })
  .meta({ id: 'KnownIssue' });
export type KnownIssue = z.infer<typeof knownIssueSchema>;

export const knownIssueFileSchema = z.strictObject({ issues: z.array(z.unknown()).min(1) });

/** The whole file, typed, for the JSON Schema editors complete against. */
export const knownIssueFileJsonSchemaSource = z.strictObject({ issues: z.array(knownIssueSchema).min(1) });
