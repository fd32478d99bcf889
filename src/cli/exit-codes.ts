/** Exit codes are a documented, stable interface (README: "Exit codes"); errors.ts maps errors to them. */
export const EXIT = {
  ok: 0,
  findings: 1,
  usage: 2,
  couldNotRun: 3,
  interrupted: 130,
} as const;

export { FAIL_ON, exceedsThreshold, type FailOn } from '../report/fail-on.js';
