import { realpath } from 'node:fs/promises';
import { READ_LIMITS, readRegularFile } from '../hostio/contained.js';
import { HostIOError } from '../hostio/types.js';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { PolicyNameError, resolvePolicy } from './resolve.js';

/**
 * A policy: what one host role must show before it is deployed (`nicdoctor scan --policy FILE`).
 * Every expectation is optional; only the ones present become checklist items.
 */

const version = z.string().regex(/^\d+\.\d+(\.\d+)?$/, 'a version such as "3.16" or "3.19.1" (quote it in YAML)');

/** Interface names or shell-style patterns (`enp65s0f*`, `ens?f0`): what the kernel allows, plus * and ?. */
const interfacePattern = z
  .string()
  .regex(/^[A-Za-z0-9_.@+*?-]{1,15}$/, 'an interface name or a pattern with * and ? (at most 15 characters)');

export const mtuExpectationSchema = z.union([
  z.number().int().positive(),
  z.strictObject({ exact: z.number().int().positive() }),
  z.strictObject({ min: z.number().int().positive() }),
]);

export const SOCKET_BUFFER_TIERS = ['10g', '40g', '100g'] as const;
export type SocketBufferTier = (typeof SOCKET_BUFFER_TIERS)[number];

/** ESnet's 2025 tiers (CAUSES.md, socket-buffer tiers): the minimum each sysctl must allow. */
export const TIER_MINIMUMS: Record<SocketBufferTier, { coreMax: number; tcpMax: number; label: string }> = {
  '10g': { coreMax: 67_108_864, tcpMax: 33_554_432, label: 'below 40G' },
  '40g': { coreMax: 536_870_912, tcpMax: 268_435_456, label: '40G and up' },
  '100g': { coreMax: 2_147_483_647, tcpMax: 1_073_741_824, label: '100G and up' },
};

export const policySchema = z.strictObject({
  /** Short name, shown in reports and as the JUnit suite name. */
  name: z.string().min(1),
  /** The host role the policy describes. */
  role: z.string().optional(),
  description: z.string().optional(),
  /** Interfaces the per-interface items apply to; default: every physical or paravirtual interface in the report. */
  interfaces: z.array(interfacePattern).min(1).optional(),
  /** How an item that cannot be judged (fact missing, no bench) counts for `pass`. */
  onUnknown: z.enum(['fail', 'ignore']).default('fail'),
  minBenchGbps: z.number().positive().optional(),
  mtu: mtuExpectationSchema.optional(),
  ringsAtMax: z.boolean().optional(),
  noPcieDowngrade: z.boolean().optional(),
  minIperf3: version.optional(),
  governor: z.string().min(1).optional(),
  socketBufferTier: z.enum(SOCKET_BUFFER_TIERS).optional(),
  checksMustPass: z.array(z.string().min(1)).optional(),
});
export type Policy = z.output<typeof policySchema>;
export type PolicyInput = z.input<typeof policySchema>;

/** A policy file that cannot be used: names the file and the field. */
export class PolicyLoadError extends Error {
  override name = 'PolicyLoadError';
  constructor(
    readonly file: string,
    readonly field: string | null,
    detail: string,
  ) {
    super(`${file}${field ? `: ${field}` : ''}: ${detail}`);
  }
}

function fieldPath(issuePath: readonly PropertyKey[]): string {
  return issuePath.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)),
    '',
  );
}

/** The issue the author most likely made: inside a failed union, the branch that got furthest. */
function deepestIssue(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // The branch with the fewest, deepest issues is the form the author meant ({ min: big } → mtu.min).
    const inner = issue.errors
      .filter((branch) => branch[0] !== undefined)
      .map((branch) => ({ count: branch.length, ...deepestIssue(branch[0]!) }))
      .sort((a, b) => a.count - b.count || b.path.length - a.path.length)[0];
    if (inner && inner.path.length > 0) return { path: [...issue.path, ...inner.path], message: inner.message };
    return { path: [...issue.path], message: 'a number (exact MTU), { exact: N } or { min: N }' };
  }
  if (issue.code === 'unrecognized_keys')
    return { path: [...issue.path, issue.keys[0]!], message: 'unknown field (see policies/*.yaml for the fields a policy can hold)' };
  return { path: [...issue.path], message: issue.message };
}

/**
 * Parses and validates a policy's YAML text; `file` is only used in messages. With `knownChecks`,
 * ids in checksMustPass that no check has are rejected (a typo would otherwise stay `unknown`).
 */
export function parsePolicy(text: string, file: string, knownChecks?: readonly string[]): Policy {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new PolicyLoadError(file, null, `not valid YAML: ${(error as Error).message}`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new PolicyLoadError(file, null, 'a policy is a YAML mapping (name: ..., mtu: ..., ...)');
  }
  const parsed = policySchema.safeParse(document);
  if (!parsed.success) {
    const issue = deepestIssue(parsed.error.issues[0]!);
    throw new PolicyLoadError(file, fieldPath(issue.path) || null, issue.message);
  }
  if (knownChecks && parsed.data.checksMustPass) {
    const known = new Set(knownChecks);
    const index = parsed.data.checksMustPass.findIndex((id) => !known.has(id));
    if (index >= 0)
      throw new PolicyLoadError(
        file,
        `checksMustPass[${index}]`,
        `no check "${parsed.data.checksMustPass[index]}" (see \`nicdoctor checks\`)`,
      );
  }
  return parsed.data;
}

/** Reads and validates a policy file; an unreadable file is a PolicyLoadError too. */
export async function loadPolicy(file: string, knownChecks?: readonly string[]): Promise<Policy> {
  let source;
  try {
    source = await resolvePolicy(file);
  } catch (error) {
    if (error instanceof PolicyNameError) throw new PolicyLoadError(file, null, error.message);
    throw error;
  }
  if (source.kind === 'shipped' && source.text !== undefined) return parsePolicy(source.text, file, knownChecks);
  const where = source.path!;
  let text: string;
  try {
    // A FIFO, a device or a 50 MB file is not read.
    text = await readRegularFile(await realpath(where), READ_LIMITS.policy, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PolicyLoadError(
      file,
      null,
      `cannot read: ${error instanceof HostIOError ? error.message.replace(`${file}: `, '') : (code ?? (error as Error).message)}`,
    );
  }
  return parsePolicy(text, file, knownChecks);
}
