import type { Skip } from './check.js';
import type { FactError } from './facts.js';

/** The two verdicts of a check context that say "no judgement here". */
export interface SkipVerdicts {
  notApplicable(reason: string): Skip;
  unknown(reason: string, hint?: string): Skip;
}

export interface FailedFactWording {
  /** Why the check does not apply when the driver does not offer the fact; gets the error message. */
  unsupported: (message: string) => string;
  /** Prefixes the error message of an unknown ("ethtool -x eth0"), so the user sees what failed. */
  command?: string;
}

/** The unknown for an optional fact that failed: its message (after the command, if given) and hint. */
export function unknownForFailedFact(ctx: SkipVerdicts, error: FactError, command?: string): Skip {
  return ctx.unknown(command ? `${command}: ${error.message}` : error.message, error.hint);
}

/**
 * The verdict for an optional ethtool fact that could not be had. A driver that does not offer
 * it ('unsupported') has nothing to misconfigure: not applicable. Any other failure (permissions,
 * no ethtool, unreadable output) leaves the question open: unknown, with the hint to fix it.
 */
export function skipForFailedFact(ctx: SkipVerdicts, error: FactError, wording: FailedFactWording): Skip {
  return error.kind === 'unsupported'
    ? ctx.notApplicable(wording.unsupported(error.message))
    : unknownForFailedFact(ctx, error, wording.command);
}
