import { UsageError } from './errors.js';

/**
 * An interface name the kernel could have created (dev_valid_name in net/core/dev.c): 1 to 15
 * bytes (IFNAMSIZ - 1), not "." or "..", no "/", ":", NUL or whitespace (the kernel's isspace,
 * which also counts 0xa0). The one check for names from every source: --iface, a live host,
 * a snapshot, a bundle, a sosreport. Such a name is safe as one path component and as one
 * argv word; it can still hold shell characters (`e$(x)`), so anything printed for a shell
 * quotes it (fix/shell.ts).
 */
export function isValidInterfaceName(name: string): boolean {
  if (typeof name !== 'string' || name === '' || name === '.' || name === '..') return false;
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length > 15) return false;
  // isspace in the kernel's ctype: \t \n \v \f \r, space, and 0xa0.
  return !bytes.some((byte) => byte === 0 || byte === 0x2f || byte === 0x3a || byte === 0x20 || (byte >= 0x09 && byte <= 0x0d) || byte === 0xa0);
}

export function validateInterfaceNames(names: readonly string[], flag = '--iface'): string[] {
  for (const name of names) {
    if (!isValidInterfaceName(name)) {
      throw new UsageError(`${flag}: ${JSON.stringify(name)} is not a valid interface name (1-15 bytes, not . or .., no /, : or whitespace)`);
    }
  }
  return [...new Set(names)];
}

/** Splits repeatable, comma-separated list options (`--only a,b --only c`). */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
}

/** --iface values: like splitList, but an empty name (`--iface ''`, `--iface eth0,`) is an error, never "all". */
export function interfaceList(values: readonly string[] | undefined, flag = '--iface'): string[] {
  const names = (values ?? []).flatMap((value) => value.split(',')).map((value) => value.trim());
  if (names.some((name) => name === '')) throw new UsageError(`${flag}: an empty interface name; leave ${flag} out to examine every interface`);
  return validateInterfaceNames(names, flag);
}

/** "10000", "10000m", "10g", "2.5g" → Mb/s. */
export function parseLinkSpeed(value: string, flag = '--link-speed'): number {
  const match = /^(\d+(?:\.\d+)?)\s*([mMgG]?)(?:bit|b\/s|bps)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag}: "${value}" is not a speed like 10000 (Mb/s), 2g or 25g`);
  const mbps = Number(match[1]) * (/g/i.test(match[2] ?? '') ? 1000 : 1);
  if (!(mbps > 0) || mbps > 10_000_000) throw new UsageError(`${flag}: "${value}" is out of range`);
  return mbps;
}
