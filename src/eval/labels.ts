import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * The label of one evaluation case (fixtures/eval/<case>/label.yaml): what a NIC engineer
 * concludes from the captured outputs. Strict so that a typo (`expects:`, `cause: 21`, an
 * expectation without its evidence) fails loudly instead of silently weakening the set.
 */
const cause = z.number().int().min(1).max(20);

const item = z
  .object({
    cause,
    /** Interface name or "host"; absent: any subject. */
    subject: z.string().min(1).optional(),
    /** Acceptable rule ids; absent: any rule of that cause. */
    rules: z.array(z.string().min(1)).min(1).optional(),
    why: z.string().min(1),
  })
  .strict();

export const labelSchema = z
  .object({
    case: z.string().min(1),
    environment: z.enum(['bare-metal', 'vm', 'container', 'hypervisor', 'router']),
    verdict: z.enum(['fault', 'healthy', 'inconclusive']),
    expect: z.array(item).default([]),
    allow: z.array(item).default([]),
    forbid: z.array(item).default([]),
    reasoning: z.string().min(1),
  })
  .strict()
  .superRefine((label, ctx) => {
    // A healthy host raises nothing, so it cannot require a finding; a fault must name one.
    if (label.verdict === 'healthy' && label.expect.length > 0)
      ctx.addIssue({ code: 'custom', message: 'a healthy case cannot expect findings' });
    if (label.verdict === 'fault' && label.expect.length === 0)
      ctx.addIssue({ code: 'custom', message: 'a fault case must expect at least one finding' });
    if (label.verdict === 'inconclusive' && label.expect.length > 0)
      ctx.addIssue({ code: 'custom', message: 'an inconclusive case cannot expect findings' });
  });

export type Label = z.infer<typeof labelSchema>;
export type LabelItem = z.infer<typeof item>;

export interface EvalCase {
  name: string;
  dir: string;
  /** The directory handed to `nicdoctor analyze`. */
  input: string;
  label: Label;
}

export class LabelError extends Error {}

/** Reads and validates one case; the label's `case` must be the directory's name. */
export async function loadCase(dir: string): Promise<EvalCase> {
  const name = path.basename(dir);
  const file = path.join(dir, 'label.yaml');
  const text = await readFile(file, 'utf8').catch(() => {
    throw new LabelError(`${file}: missing`);
  });
  const parsed = labelSchema.safeParse(parse(text));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new LabelError(`${file}: ${issues}`);
  }
  if (parsed.data.case !== name) throw new LabelError(`${file}: case is "${parsed.data.case}" but the directory is "${name}"`);
  const input = path.join(dir, 'input');
  const isDir = await stat(input).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDir) throw new LabelError(`${dir}: no input/ directory`);
  return { name, dir, input, label: parsed.data };
}

/** Every case directory under root (those holding a label.yaml), sorted by name. */
export async function listCaseDirs(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true });
  const dirs: string[] = [];
  for (const entry of entries.filter((candidate) => candidate.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const hasLabel = await stat(path.join(root, entry.name, 'label.yaml')).then(
      () => true,
      () => false,
    );
    if (hasLabel) dirs.push(path.join(root, entry.name));
  }
  return dirs;
}
