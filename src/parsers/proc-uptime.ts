import { ParseError } from './parse-error.js';

/** /proc/uptime: "1062.03 959.42", seconds since boot and idle CPU-seconds. */
export function parseProcUptime(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s+\d+(?:\.\d+)?\s*$/.exec(text);
  if (!match) throw new ParseError(`/proc/uptime: expected "<seconds> <idle seconds>", got ${JSON.stringify(text.slice(0, 40))}`);
  return Number(match[1]);
}
