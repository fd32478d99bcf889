import type { CollectContext } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import type { ExecResult } from '../hostio/types.js';

/**
 * Runs a diagnostic tool and turns the ways it says "no" into typed fact errors, so that a
 * check shows "unknown: the driver does not support ethtool -g" instead of a failure:
 * ethtool answers "Operation not supported" (veth rings, coalescing), "Operation not permitted"
 * (needs root), "No such device" (interface gone).
 */
export interface RunToolOptions {
  timeoutMs?: number;
  /**
   * A tool's own way of saying the device has no such data, beyond "not supported" (ethtool
   * exit 75 "No data available", exit 94 "no stats available"): 'unsupported' with this reason.
   */
  unsupportedWhen?: { output: RegExp; reason: string };
}

export async function runTool(ctx: CollectContext, argv: string[], options: RunToolOptions = {}): Promise<ExecResult> {
  const { unsupportedWhen, ...execOptions } = options;
  const result = await ctx.exec(argv, execOptions);
  if (result.exitCode === 0) return result;
  const said = `${result.stderr}\n${result.stdout}`;
  const command = argv.join(' ');
  const firstLine =
    said
      .split('\n')
      .map((line) => line.trim())
      .find(Boolean) ?? `exit code ${result.exitCode}`;
  if (/Operation not supported|not supported/i.test(said)) {
    throw new FactCollectionError('unsupported', `\`${command}\`: the driver does not support this (${firstLine})`);
  }
  if (/Operation not permitted|Permission denied|access denied/i.test(said)) {
    throw new FactCollectionError('permission-denied', `\`${command}\`: permission denied`, 'run nicdoctor as root (sudo nicdoctor ...)');
  }
  if (/No such device|does not exist/i.test(said)) {
    throw new FactCollectionError('not-found', `\`${command}\`: ${firstLine}`);
  }
  if (unsupportedWhen?.output.test(said)) {
    throw new FactCollectionError('unsupported', `\`${command}\`: ${unsupportedWhen.reason}`);
  }
  throw new FactCollectionError('failed', `\`${command}\` exited with ${result.exitCode}: ${firstLine}`);
}

/** Runs `ethtool <flags> <if>` and parses its output: the shape of every ethtool fact. */
export async function ethtoolFact<T>(
  ctx: CollectContext,
  flags: readonly string[],
  name: string,
  parse: (stdout: string) => T,
  options: RunToolOptions = {},
): Promise<T> {
  const result = await runTool(ctx, ['ethtool', ...flags, name], options);
  return parse(result.stdout);
}
