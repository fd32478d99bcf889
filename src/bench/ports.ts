import { UsageError } from '../util/errors.js';

/** One iperf3 server or client per port: more than this is a typo, not a bench. */
export const MAX_PORTS = 256;

/** Parses `--ports 5101-5108` or `5101,5103,5105-5106` into a sorted list of distinct ports. */
export function parsePorts(spec: string, flag = '--ports'): number[] {
  const ports = new Set<number>();
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    if (!match) throw new UsageError(`${flag}: "${part}" is not a port or a range like 5101-5108`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from < 1 || to > 65535 || from > to) throw new UsageError(`${flag}: "${part}" is outside 1-65535 or reversed`);
    if (to - from >= MAX_PORTS) throw new UsageError(`${flag}: "${part}" is more than ${MAX_PORTS} ports`);
    for (let port = from; port <= to; port += 1) ports.add(port);
  }
  if (ports.size === 0) throw new UsageError(`${flag}: no ports given`);
  if (ports.size > MAX_PORTS) throw new UsageError(`${flag}: ${ports.size} ports; at most ${MAX_PORTS} (one iperf3 process each)`);
  return [...ports].sort((a, b) => a - b);
}

/** A host name or IP address, checked before it reaches argv (no option-looking or odd characters). */
export function validateHost(host: string, flag = '--peer'): string {
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (ipv4) {
    if (ipv4.slice(1).every((octet) => Number(octet) <= 255)) return host;
    throw new UsageError(`${flag}: "${host}" is not a valid IPv4 address`);
  }
  if (/^[0-9a-fA-F:]+(%[A-Za-z0-9_.-]+)?$/.test(host) && host.includes(':')) return host;
  const hostname = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
  if (hostname.test(host)) return host;
  throw new UsageError(`${flag}: "${host}" is not a valid host name or IP address`);
}
