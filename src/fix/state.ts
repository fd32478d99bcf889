/**
 * The state file of `nicdoctor fix --apply`: for every change, the value read before it and
 * the command that restores it. Written (atomically, mode 0600) before anything is changed, so
 * an interrupted apply can still be reverted. It is input to a root command: a file that
 * another user owns or may write is refused, and --revert re-checks every entry against the
 * typed operations (src/fix/revert-plan.ts) instead of trusting it.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write.js';
import { readPrivateFile } from '../hostio/private-file.js';
import { READ_LIMITS } from '../hostio/contained.js';

/** Far more than any plan's entries; a larger file is not a state file. */
const MAX_STATE_BYTES = READ_LIMITS.state;

export const DEFAULT_STATE_FILE = '/var/lib/nicdoctor/fix-state.json';

export const stateEntrySchema = z.object({
  /** Diagnosis that asked for the change. */
  ruleId: z.string(),
  /** What was run (argv). */
  apply: z.array(z.string()).min(1),
  /** What restores the value read before (argv, for people). */
  revert: z.array(z.string()).min(1),
  /** The same as a typed operation: what --revert runs, checked by its schema (src/fix/operations.ts). */
  revertOperation: z.record(z.string(), z.unknown()).optional(),
  /** What was run as a typed operation: --revert restores only what nicdoctor itself changed. */
  operation: z.record(z.string(), z.unknown()).optional(),
  /** Values before the change, by setting name. */
  before: z.record(z.string(), z.string()),
  /** Values the change sets, by setting name: --revert runs only while the host still has them (or `before`). */
  after: z.record(z.string(), z.string()).optional(),
  /** pending: saved, not yet run (an interrupted apply); partial: failed but changed something. */
  status: z.enum(['pending', 'applied', 'partial', 'revert-failed']),
  error: z.string().optional(),
});
export type StateEntry = z.infer<typeof stateEntrySchema>;

export const stateSchema = z.object({
  format: z.literal('nicdoctor-fix-state/1'),
  createdAt: z.string(),
  host: z.string(),
  /** Which host and network namespace the changes were made in (src/fix/host-id.ts). */
  hostId: z.string().optional(),
  entries: z.array(stateEntrySchema),
});
export type FixState = z.infer<typeof stateSchema>;

export class StateFileError extends Error {
  override name = 'StateFileError';
}

export async function writeState(file: string, state: FixState): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // 0600 and ours: it records what root changed, and only its owner may read or replace it.
  await writeFileAtomic(file, JSON.stringify(stateSchema.parse(state), null, 2) + '\n', {
    mode: 0o600,
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
  });
}

/** The saved state, null when there is no file; StateFileError when it is not a state file. */
export async function readState(file: string): Promise<FixState | null> {
  let text: string | null;
  try {
    text = readPrivateFile(file, { maxBytes: MAX_STATE_BYTES });
  } catch (error) {
    throw new StateFileError((error as Error).message);
  }
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new StateFileError(`${file}: not JSON (not a nicdoctor fix state file)`);
  }
  const parsed = stateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StateFileError(
      `${file}: not a nicdoctor fix state file (${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'})`,
    );
  }
  return parsed.data;
}

export async function removeState(file: string): Promise<void> {
  await rm(file, { force: true });
}
