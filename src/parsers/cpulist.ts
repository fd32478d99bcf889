import { ParseError } from './parse-error.js';
import { excerpt } from './text.js';

/**
 * Kernel CPU sets in their two text forms:
 * - cpulist: "0-3,8-11", "0", "" (empty set); bitmap_parselist also takes "0-15:2/4" groups
 *   (2 CPUs used out of every 4), which users write in irqbalance and isolcpus settings;
 * - cpumask: hex in 32-bit words separated by commas, most significant word first
 *   ("00000000,0000ffff" = CPUs 0-15), as in /proc/irq/N/smp_affinity and IRQBALANCE_BANNED_CPUS.
 */

const RANGE = /^(\d{1,10})(?:-(\d{1,10})(?::(\d{1,10})\/(\d{1,10}))?)?$/;

/**
 * CPU numbers are below NR_CPUS, at most 8192 in any mainline kernel configuration
 * (CONFIG_NR_CPUS_RANGE_END with MAXSMP); 65536 leaves room for what comes. A number above it
 * is not a CPU list: refusing it keeps the loops below bounded ("0-2000000", "2^53").
 */
export const MAX_CPUS = 65_536;

/** Parses a cpulist into sorted, distinct CPU numbers. */
export function parseCpuList(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const cpus = new Set<number>();
  // Overlapping ranges repeated ("0-65535,0-65535,...") must not multiply the work either.
  let work = 0;
  for (const part of trimmed.split(',')) {
    const match = RANGE.exec(part.trim());
    if (!match) throw new ParseError(`not a CPU list: ${excerpt(trimmed)} (at ${excerpt(part)})`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    const used = match[3] === undefined ? 1 : Number(match[3]);
    const group = match[4] === undefined ? 1 : Number(match[4]);
    if (last < first || used < 1 || group < 1 || used > group)
      throw new ParseError(`not a CPU list: ${excerpt(trimmed)} (bad range ${excerpt(part)})`);
    if (last >= MAX_CPUS)
      throw new ParseError(`not a CPU list: ${excerpt(trimmed)} (CPU ${excerpt(String(last))} is beyond ${MAX_CPUS - 1})`);
    work += last - first + 1;
    if (work > 16 * MAX_CPUS) throw new ParseError(`not a CPU list: ${excerpt(trimmed)} (ranges cover more than ${16 * MAX_CPUS} CPUs)`);
    for (let start = first; start <= last; start += group) {
      for (let cpu = start; cpu < start + used && cpu <= last; cpu += 1) cpus.add(cpu);
    }
  }
  return [...cpus].sort((a, b) => a - b);
}

/** Formats CPU numbers the way the kernel prints a cpulist: "0-3,8-11". */
export function formatCpuList(cpus: Iterable<number>): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let index = 0; index < sorted.length;) {
    const first = sorted[index]!;
    let last = first;
    while (sorted[index + 1] === last + 1) {
      index += 1;
      last = sorted[index]!;
    }
    parts.push(first === last ? `${first}` : `${first}-${last}`);
    index += 1;
  }
  return parts.join(',');
}

/** Parses a hex cpumask ("ff", "00000000,0000ffff", "0x3") into sorted CPU numbers. */
export function parseCpuMask(text: string): number[] {
  const trimmed = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-f]+(,[0-9a-f]+)*$/i.test(trimmed)) throw new ParseError(`not a CPU mask: ${excerpt(text.trim())}`);
  // Commas only separate 32-bit words for readability; the digits form one big hex number.
  // Leading zeros are padding; a set bit beyond MAX_CPUS is not a CPU.
  const digits = trimmed.replace(/,/g, '').replace(/^0+(?=[0-9a-f])/i, '');
  if (digits.length * 4 > MAX_CPUS) throw new ParseError(`not a CPU mask: ${excerpt(text.trim())} (more than ${MAX_CPUS} CPUs)`);
  const cpus: number[] = [];
  for (let position = 0; position < digits.length; position += 1) {
    const nibble = Number.parseInt(digits[digits.length - 1 - position]!, 16);
    for (let bit = 0; bit < 4; bit += 1) if (nibble & (1 << bit)) cpus.push(position * 4 + bit);
  }
  return cpus;
}

/** Formats CPU numbers as a kernel cpumask: 8 hex digits per word, words joined by commas. */
export function formatCpuMask(cpus: Iterable<number>, cpuCount?: number): string {
  const set = new Set(cpus);
  const highest = Math.max(-1, ...set, (cpuCount ?? 1) - 1);
  const words = Math.max(1, Math.ceil((highest + 1) / 32));
  const out: string[] = [];
  for (let word = words - 1; word >= 0; word -= 1) {
    let value = 0;
    for (let bit = 0; bit < 32; bit += 1) if (set.has(word * 32 + bit)) value += 2 ** bit;
    out.push(value.toString(16).padStart(8, '0'));
  }
  return out.join(',');
}

/**
 * The shortest cpumask for the CPUs: like formatCpuMask, without leading zeros ("0-39" →
 * "ff,ffffffff"), the form users type (echo ff > .../rps_cpus). Empty set → "0".
 */
export function formatShortCpuMask(cpus: Iterable<number>): string {
  return formatCpuMask(cpus).replace(/^0+(?=[0-9a-f])/, '');
}

/**
 * The CPUs of a cpulist or cpumask text, or null when it is not one: for values that are only
 * reported (a count in a fact, a mask in a fix), where garbage must not fail the whole reading.
 */
export function parseCpusOrNull(text: string, form: 'list' | 'mask'): number[] | null {
  try {
    return form === 'list' ? parseCpuList(text) : parseCpuMask(text);
  } catch (error) {
    if (error instanceof ParseError) return null;
    throw error;
  }
}
