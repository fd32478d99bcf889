/**
 * The one mapping from errors to exit codes (src/cli/errors.ts), the argParsers over the
 * validators (src/cli/options.ts), and the validators themselves (src/util/validate.ts).
 */
import { CommanderError, InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { RunError as UtilRunError, UsageError as UtilUsageError } from '../../src/util/errors.js';
import type { ScanOutcome } from '../../src/pipeline/scan.js';
import { exitCodeOf, failureOf, OptionValueError, RunError, UsageError } from '../../src/cli/errors.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { BundleError } from '../../src/bundle/open.js';
import { SnapshotArchiveError } from '../../src/collect-script/archive.js';
import { StateLockedError } from '../../src/fix/lock.js';
import { StateFileError } from '../../src/fix/state.js';
import { SnapshotError } from '../../src/hostio/snapshot.js';
import { interfaceNames, linkSpeed, parsedBy, portList, required, seconds } from '../../src/cli/options.js';
import { checkHost, checkInterfaceList, checkLinkSpeed, checkPortList, checkRate, checkWholeNumber } from '../../src/util/validate.js';

describe('exitCodeOf: one mapping', () => {
  it('help and version 0, anything commander refuses 2, usage 2, could not run 3, the unexpected 3', () => {
    expect(exitCodeOf(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toBe(EXIT.ok);
    expect(exitCodeOf(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"))).toBe(EXIT.usage);
    expect(exitCodeOf(new InvalidArgumentError('bad'))).toBe(EXIT.usage);
    expect(exitCodeOf(new OptionValueError('bad'))).toBe(EXIT.usage);
    expect(exitCodeOf(new UsageError('bad'))).toBe(EXIT.usage);
    expect(exitCodeOf(new RunError('peer unreachable'))).toBe(EXIT.couldNotRun);
    expect(exitCodeOf(new Error('boom'))).toBe(EXIT.couldNotRun);
    expect(exitCodeOf('a string')).toBe(EXIT.couldNotRun);
  });

  it("the lower layers' errors about an input are exit 2, whoever throws them", () => {
    for (const error of [
      new SnapshotError('x'),
      new BundleError('x'),
      new SnapshotArchiveError('x'),
      new StateFileError('x'),
      new StateLockedError('x'),
    ]) {
      expect(exitCodeOf(error), error.name).toBe(EXIT.usage);
    }
  });

  it('the CLI throws the same classes the lower layers throw', () => {
    expect(UsageError).toBe(UtilUsageError);
    expect(RunError).toBe(UtilRunError);
  });
});

function outcome(interfaces: { ok: boolean; message?: string } | null, bench?: { complete: boolean; error: string | null }): ScanOutcome {
  const runs = interfaces
    ? [{ fact: 'interfaces', ok: interfaces.ok, ...(interfaces.message ? { error: { message: interfaces.message } } : {}) }]
    : [];
  return { report: { ...(bench ? { bench } : {}) }, store: { runs } } as unknown as ScanOutcome;
}

describe('failureOf: what makes a finished scan fail', () => {
  it('an unreadable interface list: bad input offline (2), could not run live (3)', () => {
    const broken = outcome({ ok: false, message: 'ip: not found' });
    const offline = failureOf(broken, 'snap');
    expect(offline).toBeInstanceOf(UsageError);
    expect(offline?.message).toBe('snap: the interface list cannot be read: ip: not found');
    const live = failureOf(broken);
    expect(live).toBeInstanceOf(RunError);
    expect(exitCodeOf(live)).toBe(EXIT.couldNotRun);
  });

  it('an unfinished bench is exit 3; a sound scan has no failure', () => {
    expect(exitCodeOf(failureOf(outcome({ ok: true }, { complete: false, error: 'connection refused' })))).toBe(EXIT.couldNotRun);
    expect(failureOf(outcome({ ok: true }, { complete: true, error: null }))).toBeNull();
    expect(failureOf(outcome(null))).toBeNull();
  });
});

describe('argParsers over the validators', () => {
  it('parse good values and throw an InvalidArgumentError with the reason otherwise', () => {
    expect(seconds(1, 3600)('10')).toBe(10);
    expect(portList('5101-5103,5101')).toEqual([5101, 5102, 5103]);
    expect(linkSpeed('25g')).toBe(25_000);
    expect(interfaceNames('eth1,eth0', ['eth0'])).toEqual(['eth0', 'eth1']);
    for (const [parse, value] of [
      [seconds(1, 3600), '3601'],
      [portList, '0'],
      [linkSpeed, 'fast'],
      [interfaceNames, 'a/b'],
    ] as const) {
      expect(() => parse(value)).toThrow(InvalidArgumentError);
    }
    expect(() => parsedBy(checkRate)('5X')).toThrow(/Expected a rate like 5G/);
  });

  it('required() gives a UsageError naming the option for values that do not come from commander', () => {
    expect(required(checkInterfaceList('eth0'), '--iface', 'eth0')).toEqual(['eth0']);
    expect(() => required(checkInterfaceList('eth0,'), '--iface', 'eth0,')).toThrow(UsageError);
    expect(() => required(checkInterfaceList('eth0,'), '--iface', 'eth0,')).toThrow(/^--iface: "eth0,": An empty interface name/);
  });
});

describe('validators return results and never throw', () => {
  it('whole numbers, ports, speeds, rates and hosts', () => {
    expect(checkWholeNumber('0', 0, 600)).toEqual({ ok: true, value: 0 });
    for (const bad of ['', '-1', '1.5', '1e3', '601', ' ']) expect(checkWholeNumber(bad, 0, 600).ok).toBe(false);
    expect(checkPortList('5105,5101-5102')).toEqual({ ok: true, value: [5101, 5102, 5105] });
    for (const bad of ['', '0', '65536', '5102-5101', '1-300', 'x']) expect(checkPortList(bad).ok).toBe(false);
    expect(checkLinkSpeed('2.5g')).toEqual({ ok: true, value: 2500 });
    expect(checkLinkSpeed('10000')).toEqual({ ok: true, value: 10_000 });
    for (const bad of ['0', 'fast', '10t', '20000g']) expect(checkLinkSpeed(bad).ok).toBe(false);
    for (const good of ['5G', '800m', '100000', '1.5G']) expect(checkRate(good).ok).toBe(true);
    for (const bad of ['0', 'G', '-5G', '5 G b']) expect(checkRate(bad).ok).toBe(false);
    for (const good of ['10.0.0.2', 'fe80::1%eth0', 'peer-1.example.org']) expect(checkHost(good)).toEqual({ ok: true, value: good });
    for (const bad of ['-c', '10.0.0.256', 'a;b', '']) expect(checkHost(bad).ok).toBe(false);
  });
});
