import { pastedTextAsks } from '../collectors/catalogue.js';
import type { AnyCheck } from '../contracts/check.js';
import type { AskFor, Report } from '../report/schema.js';

/**
 * The commands to ask the customer for: for every check left unknown (or not applicable for
 * want of input), the command that prints each fact it needed and the text did not hold.
 * Read-only commands only, as a customer would paste them back.
 */

/** The commands of one OS: per interface, per host, per check, and when no interface was found. */
export interface CommandBook {
  perInterface: Record<string, (iface: string) => string>;
  perHost: Record<string, string>;
  perCheck: Record<string, (iface: string) => string>;
  noInterface: string;
  /** Checks this OS has no input for at all (they say so): nothing to ask for. */
  skipChecks?: ReadonlySet<string>;
}

// Per fact, the command that prints it, from the collectors' declarations (the fact catalogue):
// only facts a pasted output can carry, so the customer is never asked for what nicdoctor cannot read back.
const { perInterface: PER_INTERFACE, perHost: PER_HOST } = pastedTextAsks();

/** Checks that read a fact the text did hold, but without the value they judge. */
const PER_CHECK: Record<string, (iface: string) => string> = {
  mtu: (iface) => `ip link show dev ${iface}`,
  'nic-drops': (iface) => `ip -s -s link show dev ${iface}`,
  offloads: (iface) => `ethtool -k ${iface}`,
  'link-speed': (iface) => `ethtool ${iface}`,
  'pcie-link': (iface) => `sudo lspci -vv -s $(ethtool -i ${iface} | awk '/bus-info/ {print $2}')`,
};

/** A Windows client: what its PowerShell can show of the adapter. */
const WINDOWS = [
  'Get-NetAdapter | Format-List Name,InterfaceDescription,LinkSpeed,MtuSize,DriverVersion',
  'Get-NetAdapterRss; Get-NetAdapterAdvancedProperty -Name <adapter>',
];

const IPERF3_RUN = 'iperf3 -c <server> -t 30 -P 4   (and the same with -R; the text output is fine)';
const NO_INTERFACE = 'ethtool <interface>; ethtool -i <interface>; ethtool -S <interface>   (the interface that carries the traffic)';

export const LINUX_COMMANDS: CommandBook = {
  perInterface: PER_INTERFACE,
  perHost: PER_HOST,
  perCheck: PER_CHECK,
  noInterface: NO_INTERFACE,
};

export function askFor(
  report: Report,
  checks: readonly AnyCheck[],
  interfaces: readonly string[],
  hasRun: boolean,
  windows = false,
  book: CommandBook = LINUX_COMMANDS,
): AskFor[] {
  const byCommand = new Map<string, AskFor>();
  const add = (command: string, check: string, subject?: string) => {
    const entry = byCommand.get(command) ?? { command, checks: [], ...(subject ? { subject } : {}) };
    if (!entry.checks.includes(check)) entry.checks.push(check);
    byCommand.set(command, entry);
  };
  const missing = (fact: string, subject?: string) =>
    report.collectors.some(
      (run) =>
        run.fact === fact &&
        (subject === undefined || (run.subject ?? '') === subject) &&
        !run.ok &&
        (run.error?.kind === 'not-captured' || run.error?.kind === 'dependency-failed'),
    );
  for (const result of report.checks) {
    const check = checks.find((candidate) => candidate.id === result.id);
    if (!check || result.status === 'pass' || result.status === 'fail' || book.skipChecks?.has(result.id)) continue;
    if (result.id === 'throughput') {
      if (!hasRun) add(IPERF3_RUN, result.id);
      continue;
    }
    const facts: string[] = [...(check.requires as readonly string[]), ...((check.optionalFacts ?? []) as readonly string[])];
    if (windows) {
      // Linux commands mean nothing to a Windows host; its adapter settings are what matter.
      if (check.scope === 'interface') for (const command of WINDOWS) add(command, result.id);
      continue;
    }
    if (check.scope === 'interface' && interfaces.length === 0) {
      add(book.noInterface, result.id);
      continue;
    }
    let asked = false;
    for (const fact of facts) {
      if (book.perHost[fact] && missing(fact)) {
        add(book.perHost[fact], result.id);
        asked = true;
      }
      for (const iface of interfaces) {
        const command = book.perInterface[fact];
        if (command && missing(fact, iface)) {
          add(command(iface), result.id, iface);
          asked = true;
        }
      }
    }
    const perCheck = book.perCheck[result.id];
    if (!asked && result.status === 'unknown' && perCheck) {
      for (const subject of result.subjects.filter((entry) => entry.status === 'unknown' && interfaces.includes(entry.subject)))
        add(perCheck(subject.subject), result.id, subject.subject);
    }
  }
  return [...byCommand.values()];
}
