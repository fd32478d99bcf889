/**
 * `--fail-on`: the severity at or above which a finding fails a host. A property of a report's
 * findings, used by the CLI for its exit code and by the fleet table for each host's verdict.
 */
export const FAIL_ON = ['critical', 'warning', 'info', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

const RANK = { info: 1, warning: 2, critical: 3 } as const;

export function exceedsThreshold(severities: readonly ('critical' | 'warning' | 'info')[], failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  return severities.some((severity) => RANK[severity] >= RANK[failOn]);
}
