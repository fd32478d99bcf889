import { lstat, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { embeddedAssets } from '../util/embedded.js';
import { callerUid, othersCanWrite, untrustedDirectory } from '../util/path-trust.js';
import { PROJECT_ROOT } from '../util/version.js';

/**
 * What `--policy X` names. A root scan's pass/fail follows the policy, so the name must not be
 * something another user can plant in the current directory:
 * - a bare name, with or without `.yaml` and the `policies/` prefix the README shows ("25g",
 *   "25g.yaml", "policies/25g.yaml"), is the shipped policy: embedded in the single executable,
 *   or the package's policies/ directory; never a file in the current directory;
 * - a policy of one's own is named with `./`, `../` or an absolute path, and is read only when
 *   nobody but the caller and root can change it or the directory it is in.
 */
export type PolicySource = { kind: 'shipped'; name: string; text?: string; path?: string } | { kind: 'local'; path: string };

export class PolicyNameError extends Error {}

/** "policies/25g.yaml" → "25g"; undefined when the spelling is not a shipped policy's name. */
function shippedName(spec: string): string | undefined {
  const base = spec.startsWith('policies/') ? spec.slice('policies/'.length) : spec;
  const name = base.endsWith('.yaml') ? base.slice(0, -5) : base.endsWith('.yml') ? base.slice(0, -4) : base;
  return /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name) ? name : undefined;
}

async function shippedPolicies(): Promise<Map<string, { text?: string; path?: string }>> {
  const embedded = embeddedAssets()?.policies;
  if (embedded) return new Map(Object.entries(embedded).map(([file, text]) => [file.replace(/\.yaml$/, ''), { text }]));
  const dir = path.join(PROJECT_ROOT!, 'policies');
  const files = await readdir(dir).catch(() => []);
  return new Map(files.filter((file) => file.endsWith('.yaml')).map((file) => [file.slice(0, -5), { path: path.join(dir, file) }]));
}

export async function resolvePolicy(spec: string): Promise<PolicySource> {
  const explicit = spec.startsWith('/') || spec.startsWith('./') || spec.startsWith('../');
  if (explicit) return { kind: 'local', path: await trustedLocalPolicy(spec) };
  const name = shippedName(spec);
  const shipped = await shippedPolicies();
  const found = name === undefined ? undefined : shipped.get(name);
  if (name !== undefined && found) return { kind: 'shipped', name, ...found };
  throw new PolicyNameError(
    `no shipped policy of that name (shipped: ${[...shipped.keys()].sort().join(', ')}); a policy file of your own needs an explicit ./ or absolute path`,
  );
}

/**
 * The real path of a local policy, when neither it nor the directories it is named through can
 * be changed by another user; ENOENT and the like are left to the reader, which names them.
 */
async function trustedLocalPolicy(spec: string): Promise<string> {
  const given = path.resolve(spec);
  const real = await realpath(given).catch(() => given);
  for (const dir of new Set([path.dirname(given), path.dirname(real)])) {
    const untrusted = await untrustedDirectory(dir, true).catch(() => null);
    if (untrusted) throw new PolicyNameError(`refusing a policy another user could change: ${untrusted}`);
  }
  const info = await lstat(real).catch(() => null);
  if (info && info.uid !== callerUid() && info.uid !== 0)
    throw new PolicyNameError(`refusing a policy another user could change: it belongs to uid ${info.uid}`);
  if (info && othersCanWrite(info))
    throw new PolicyNameError(
      `refusing a policy another user could change: others can write to it (mode ${(info.mode & 0o7777).toString(8)})`,
    );
  return real;
}
