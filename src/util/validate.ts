import { UsageError } from '../engine/errors.js';

/**
 * Interface names are used in paths (/sys/class/net/<if>) and argv, so only names the kernel
 * could have created, in the conservative set that udev and ip use, are accepted:
 * at most 15 bytes (IFNAMSIZ - 1), no "/", no whitespace, no shell or path metacharacters,
 * and never "." or "..".
 */
const INTERFACE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,14}$/;

export function isValidInterfaceName(name: string): boolean {
  return INTERFACE_NAME.test(name) && name !== '.' && name !== '..';
}

export function validateInterfaceNames(names: readonly string[], flag = '--iface'): string[] {
  for (const name of names) {
    if (!isValidInterfaceName(name)) {
      throw new UsageError(`${flag}: "${name}" is not a valid interface name (1-15 characters: letters, digits, _ . @ + -)`);
    }
  }
  return [...new Set(names)];
}

/** Splits repeatable, comma-separated list options (`--only a,b --only c`). */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
}

/** "10000", "10000m", "10g", "2.5g" → Mb/s. */
export function parseLinkSpeed(value: string, flag = '--link-speed'): number {
  const match = /^(\d+(?:\.\d+)?)\s*([mMgG]?)(?:bit|b\/s|bps)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag}: "${value}" is not a speed like 10000 (Mb/s), 2g or 25g`);
  const mbps = Number(match[1]) * (/g/i.test(match[2] ?? '') ? 1000 : 1);
  if (!(mbps > 0) || mbps > 10_000_000) throw new UsageError(`${flag}: "${value}" is out of range`);
  return mbps;
}
