/**
 * Commander argParsers over the validators of util/validate.ts: an option's value is checked
 * while the command line is parsed, before any command runs, and a bad one is refused with a
 * message naming the option (exit 2, through errors.ts). Commands receive parsed values.
 */
import { Option } from 'commander';
import {
  checkHost,
  checkInterfaceList,
  checkInterfaceName,
  checkLinkSpeed,
  checkPort,
  checkPortList,
  checkRate,
  checkWholeNumber,
  type Checked,
} from '../util/validate.js';
import { OptionValueError, UsageError } from './errors.js';

/** An argParser from a validator: the reason becomes commander's "argument 'x' is invalid. <reason>". */
export function parsedBy<T>(check: (value: string) => Checked<T>): (value: string) => T {
  return (value) => {
    const checked = check(value);
    if (!checked.ok) throw new OptionValueError(checked.reason);
    return checked.value;
  };
}

/** The same validation for values that do not come from commander (a programmatic caller). */
export function required<T>(checked: Checked<T>, flag: string, value: string): T {
  if (checked.ok) return checked.value;
  throw new UsageError(`${flag}: ${JSON.stringify(value)}: ${checked.reason}`);
}

export const wholeNumber = (min: number, max: number, unit?: string) => parsedBy((value) => checkWholeNumber(value, min, max, unit));
export const seconds = (min: number, max: number) => wholeNumber(min, max, 'seconds');
export const port = parsedBy(checkPort);
export const portList = parsedBy(checkPortList);
export const linkSpeed = parsedBy(checkLinkSpeed);
export const rate = parsedBy(checkRate);
export const host = parsedBy(checkHost);
export const interfaceName = parsedBy(checkInterfaceName);

/** Repeatable list options (`--only a,b --only c`): every value is kept; splitList splits them. */
export const collectList = (value: string, previous: string[] = []) => [...previous, value];

/** Repeatable, comma-separated --iface: every name checked as it is parsed, duplicates dropped. */
export function interfaceNames(value: string, previous: string[] = []): string[] {
  return [...new Set([...previous, ...parsedBy(checkInterfaceList)(value)])];
}

/** `--link-speed S`, the same option on scan, bench, analyze and fix. */
export function linkSpeedOption(description: string): Option {
  return new Option('--link-speed <speed>', description).argParser(linkSpeed);
}

/** `-i, --iface NAME`, the same option on every command that examines interfaces. */
export function ifaceOption(description: string): Option {
  return new Option('-i, --iface <name>', description).argParser(interfaceNames);
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
