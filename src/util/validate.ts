/**
 * The one set of validators for values a user types (options, arguments) and names read from a
 * host. They return a result, never throw: the CLI turns a failure into a usage error naming
 * the option (src/cli/options.ts), other callers decide for themselves. Reasons are written to
 * follow "option '--x' argument 'y' is invalid." and so do not repeat the option or the value.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const accept = <T>(value: T): Checked<T> => ({ ok: true, value });
const refuse = (reason: string): Checked<never> => ({ ok: false, reason });

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
  return !bytes.some(
    (byte) => byte === 0 || byte === 0x2f || byte === 0x3a || byte === 0x20 || (byte >= 0x09 && byte <= 0x0d) || byte === 0xa0,
  );
}

export function checkInterfaceName(name: string): Checked<string> {
  return isValidInterfaceName(name)
    ? accept(name)
    : refuse(`${JSON.stringify(name)} is not a valid interface name (1-15 bytes, not . or .., no /, : or whitespace).`);
}

/**
 * One --iface value: a name or a comma-separated list. An empty name (`''`, `eth0,`) is an
 * error, never "all".
 */
export function checkInterfaceList(value: string): Checked<string[]> {
  const names = value.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) return refuse('An empty interface name; leave the option out to examine every interface.');
  for (const name of names) {
    const checked = checkInterfaceName(name);
    if (!checked.ok) return checked;
  }
  return accept(names);
}

/** Splits repeatable, comma-separated list options (`--only a,b --only c`). */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
}

/** A whole number within [min, max]: counts, seconds. */
export function checkWholeNumber(value: string, min: number, max: number, unit = ''): Checked<number> {
  const text = value.trim();
  const number = Number(text);
  if (!/^\d+$/.test(text) || number < min || number > max)
    return refuse(`Expected a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}.`);
  return accept(number);
}

/** A TCP/UDP port. */
export function checkPort(value: string): Checked<number> {
  return checkWholeNumber(value, 1, 65535);
}

/** One iperf3 server or client per port: more than this is a typo, not a bench. */
export const MAX_PORTS = 256;

/** `5101-5108` or `5101,5103,5105-5106` → a sorted list of distinct ports. */
export function checkPortList(spec: string): Checked<number[]> {
  const ports = new Set<number>();
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (!match) return refuse(`"${part}" is not a port or a range like 5101-5108.`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from < 1 || to > 65535 || from > to) return refuse(`"${part}" is outside 1-65535 or reversed.`);
    if (to - from >= MAX_PORTS) return refuse(`"${part}" is more than ${MAX_PORTS} ports.`);
    for (let port = from; port <= to; port += 1) ports.add(port);
  }
  if (ports.size === 0) return refuse('No ports given.');
  if (ports.size > MAX_PORTS) return refuse(`${ports.size} ports; at most ${MAX_PORTS} (one iperf3 process each).`);
  return accept([...ports].sort((a, b) => a - b));
}

/** "10000", "10000m", "10g", "2.5g" → Mb/s. */
export function checkLinkSpeed(value: string): Checked<number> {
  const match = /^(\d+(?:\.\d+)?)\s*([mMgG]?)(?:bit|b\/s|bps)?$/.exec(value.trim());
  if (!match) return refuse('Expected a speed like 10000 (Mb/s), 2g or 25g.');
  const mbps = Number(match[1]) * (/g/i.test(match[2] ?? '') ? 1000 : 1);
  if (!(mbps > 0) || mbps > 10_000_000) return refuse('The speed is out of range (above 0, at most 10000g).');
  return accept(mbps);
}

/** An iperf3 rate (`-b`): a number with an optional K, M or G suffix, e.g. 5G. */
export function checkRate(value: string): Checked<string> {
  return /^\d+(\.\d+)?[KMG]?$/i.test(value.trim()) && Number.parseFloat(value) > 0
    ? accept(value.trim())
    : refuse('Expected a rate like 5G, 800M or 100000.');
}

/** A host name or IP address, checked before it reaches argv (no option-looking or odd characters). */
export function checkHost(host: string): Checked<string> {
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (ipv4) return ipv4.slice(1).every((octet) => Number(octet) <= 255) ? accept(host) : refuse('Not a valid IPv4 address.');
  if (/^[0-9a-fA-F:]+(%[A-Za-z0-9_.-]+)?$/.test(host) && host.includes(':')) return accept(host);
  const hostname = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
  return hostname.test(host) ? accept(host) : refuse('Not a valid host name or IP address.');
}
