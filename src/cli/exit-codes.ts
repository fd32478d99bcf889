/** Exit codes are a documented, stable interface (README: "Exit codes"). */
export const EXIT = {
  ok: 0,
  findings: 1,
  usage: 2,
  couldNotRun: 3,
  interrupted: 130,
} as const;

export const FAIL_ON = ['critical', 'warning', 'info', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

const RANK = { info: 1, warning: 2, critical: 3 } as const;

export function exceedsThreshold(severities: readonly ('critical' | 'warning' | 'info')[], failOn: FailOn): boolean {
  if (failOn === 'never') return false;
  return severities.some((severity) => RANK[severity] >= RANK[failOn]);
}
