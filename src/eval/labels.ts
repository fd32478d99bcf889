import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { MAX_CAUSE } from '../domain/causes.js';

/**
 * The label of one evaluation case (fixtures/eval/<case>/label.yaml): what a NIC engineer
 * concludes from the captured outputs. Strict so that a typo (`expects:`, `cause: 21`, an
 * expectation without its evidence) fails loudly instead of silently weakening the set.
 */
const cause = z.number().int().min(1).max(MAX_CAUSE);

/**
 * Where a case came from, as a source family: `list:<mailing list>`, `repo:<owner>/<name>` (a
 * repository's test data), `github:<owner>/<name>` (that repository's issue threads),
 * `forum:<site>`, `vendor:<vendor>` (documentation with real outputs) or `local:<machine>`.
 * The held-out set must share no family with the tuned one (see sourceFamily).
 */
const SOURCE_PATTERN = /^(list|repo|github|forum|vendor|local):[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)?$/i;
const source = z.string().regex(SOURCE_PATTERN, 'source must be a family id like list:netdev, repo:owner/name, forum:serverfault');

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
    source,
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

/**
 * The family a source belongs to for the disjointness of the two sets: a repository's test data
 * and its issue threads are the same people's machines, so `repo:x/y` and `github:x/y` are one family.
 */
export function sourceFamily(source: string): string {
  const colon = source.indexOf(':');
  const [kind, rest] = [source.slice(0, colon).toLowerCase(), source.slice(colon + 1).toLowerCase()];
  return kind === 'repo' || kind === 'github' ? `repository:${rest}` : `${kind}:${rest}`;
}

/** What a case hands to `nicdoctor analyze`: a sosreport-style tree, or a ticket pasted as the customer wrote it. */
export type CaseInputKind = 'tree' | 'ticket';
export const TREE_INPUT = 'input';
export const TICKET_INPUT = 'ticket.txt';

export interface EvalCase {
  name: string;
  dir: string;
  /** The directory (input/) or file (ticket.txt) handed to `nicdoctor analyze`. */
  input: string;
  inputKind: CaseInputKind;
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
  const [tree, ticket] = await Promise.all([kindAt(path.join(dir, TREE_INPUT)), kindAt(path.join(dir, TICKET_INPUT))]);
  const hasTree = tree === 'dir';
  const hasTicket = ticket === 'file';
  // Exactly one input: a case with both would be scored on one and labelled from the other.
  if (hasTree === hasTicket) throw new LabelError(`${dir}: needs exactly one of ${TREE_INPUT}/ (a directory) or ${TICKET_INPUT} (a file)`);
  const inputKind: CaseInputKind = hasTree ? 'tree' : 'ticket';
  return { name, dir, input: path.join(dir, hasTree ? TREE_INPUT : TICKET_INPUT), inputKind, label: parsed.data };
}

/** lstat, so that a link never stands in for a case's input. */
async function kindAt(file: string): Promise<'dir' | 'file' | 'other' | 'absent'> {
  return lstat(file).then(
    (info) => (info.isDirectory() ? 'dir' : info.isFile() ? 'file' : 'other'),
    () => 'absent' as const,
  );
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
