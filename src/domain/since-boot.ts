/**
 * Kernel counters count from boot. A count alone misleads both ways: 30 000 drops in a year
 * are rare, 30 000 in an hour are a fault. Like hotsos, a counter is judged by its absolute
 * count OR its rate since boot, whichever crosses its limit; without an uptime only the count.
 */

export interface SinceBoot {
  count: number;
  /** Events per hour since boot; null when the uptime is not known. */
  perHour: number | null;
}

export interface SinceBootLimits {
  /** From this many since boot, whatever the rate. */
  count: number;
  /** From this many per hour since boot, whatever the count. */
  perHour: number;
}

/** Shorter uptimes make a rate from a handful of events: not a rate worth judging. */
const MIN_UPTIME_SECONDS = 600;

export function sinceBoot(count: number, uptimeSeconds: number | null): SinceBoot {
  if (uptimeSeconds === null || uptimeSeconds < MIN_UPTIME_SECONDS) return { count, perHour: null };
  return { count, perHour: Number(((count * 3600) / uptimeSeconds).toPrecision(3)) };
}

export function crosses(value: SinceBoot, limits: SinceBootLimits): boolean {
  return value.count >= limits.count || (value.perHour !== null && value.perHour >= limits.perHour);
}

/** "12 per hour since boot" or "" without an uptime, for messages. */
export function rateText(perHour: number | null): string {
  return perHour === null ? '' : ` (${perHour} per hour since boot)`;
}
