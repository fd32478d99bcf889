/**
 * The only changes `nicdoctor fix --apply` may make: the applicable operation kinds
 * (ethtool -K/-L/-G/-C/-A on a valid interface name, `sysctl -w` of net.* keys), checked by
 * their schemas in operations.ts. Anything else in a fix is printed for a human, never run.
 * Each change can be read back (ethtool -k/-l/-g/-c/-a, /proc/sys), which is what makes it
 * revertible. Nothing here parses shell text.
 */
import { shellJoin } from './shell.js';
import { operationArgv, sysctlOp, type ApplicableOperation, type SysctlOperation } from './operations.js';

export { APPLICABLE_KINDS, ETHTOOL_FLAGS, isApplicable, normalizeSysctlValue, sysctlPath } from './operations.js';
export type { ApplicableOperation, EthtoolOperation, SysctlOperation } from './operations.js';

/** A change --apply makes: an applicable operation. */
export type Change = ApplicableOperation;

/** A sysctl key and value as a change, or why --apply would not set it. */
export function checkSysctl(key: string, value: string): { ok: true; change: SysctlOperation } | { ok: false; reason: string } {
  const parsed = sysctlOp.safeParse({ kind: 'sysctl', key, value });
  if (parsed.success) return { ok: true, change: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    ok: false,
    reason: `sysctl ${key}: ${issue?.path[0] === 'key' ? 'only net.* keys are applied' : `"${value}" is not a plain value`}`,
  };
}

/** The argv that makes a change (never a shell string). */
export function changeArgv(change: Change): string[] {
  return operationArgv(change);
}

export function changeText(change: Change): string {
  return shellJoin(changeArgv(change));
}
