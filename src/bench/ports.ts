import { UsageError } from '../util/errors.js';
import { checkHost, checkPortList, MAX_PORTS, type Checked } from '../util/validate.js';

export { MAX_PORTS };

// The validators are util/validate.ts's (the CLI parses --ports and --peer with them); these
// throwing forms are for callers outside the CLI.
function orUsageError<T>(checked: Checked<T>, flag: string, value: string): T {
  if (checked.ok) return checked.value;
  throw new UsageError(`${flag}: ${JSON.stringify(value)}: ${checked.reason}`);
}

/** Parses `--ports 5101-5108` or `5101,5103,5105-5106` into a sorted list of distinct ports. */
export function parsePorts(spec: string, flag = '--ports'): number[] {
  return orUsageError(checkPortList(spec), flag, spec);
}

/** A host name or IP address, checked before it reaches argv (no option-looking or odd characters). */
export function validateHost(host: string, flag = '--peer'): string {
  return orUsageError(checkHost(host), flag, host);
}
