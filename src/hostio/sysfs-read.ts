import path from 'node:path';
import { HostIOError, type HostIO } from './types.js';
import { numberInRange } from '../parsers/numbers.js';

/** What reading sysfs needs: a collector's context and a HostIO both have it. */
type SysfsReader = Pick<HostIO, 'readFile' | 'readLink'> & Partial<Pick<HostIO, 'readOptionalFile'>>;

/**
 * Reads a sysfs attribute, trimmed. Missing attributes and those the kernel refuses to report
 * (speed on a link that is down answers EINVAL) read as undefined: "no data" is not an error.
 */
export async function readAttribute(ctx: SysfsReader, file: string): Promise<string | undefined> {
  try {
    // Where the reader can say "absent" without an exception, it does (most attributes are optional).
    return (await (ctx.readOptionalFile ? ctx.readOptionalFile(file) : ctx.readFile(file)))?.trim();
  } catch (error) {
    if (error instanceof HostIOError && (error.kind === 'not-found' || error.kind === 'io')) return undefined;
    throw error;
  }
}

export function parseIntOrNull(text: string | undefined): number | null {
  if (text === undefined || !/^-?\d+$/.test(text)) return null;
  // A sysfs integer (numa_node, mtu, a counter) is at most 64-bit: more digits are not sysfs.
  return numberInRange(text, 'a sysfs integer');
}

/** Resolves a link the way the kernel does; undefined when the path is not a link. */
export async function resolveLink(ctx: SysfsReader, linkPath: string, base: string = path.dirname(linkPath)): Promise<string | undefined> {
  try {
    return path.resolve(base, await ctx.readLink(linkPath));
  } catch (error) {
    if (error instanceof HostIOError && (error.kind === 'not-found' || error.kind === 'io')) return undefined;
    throw error;
  }
}

const PCI_ADDRESS = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

export function isPciAddress(text: string): boolean {
  return PCI_ADDRESS.test(text);
}

/** The nearest PCI function on a sysfs device path (a virtio device sits below its PCI function). */
export function nearestPciDevice(devicePath: string): { address: string; path: string } | null {
  const parts = devicePath.split('/');
  for (let index = parts.length - 1; index >= 0; index -= 1) {
    const part = parts[index]!;
    if (PCI_ADDRESS.test(part)) return { address: part.toLowerCase(), path: parts.slice(0, index + 1).join('/') };
  }
  return null;
}
