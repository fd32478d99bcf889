/** PCIe link speed and width as sysfs, lspci and drivers' boot lines print them. */

const SPEED_TEXT = /^\s*(\d+(?:\.\d+)?)\s*(?:GT\/s|Gb\/s|Gbps|GT\/S)/i;

/**
 * A link speed as printed by sysfs ("8.0 GT/s PCIe", "8 GT/s", "2.5 GT/s", "Unknown",
 * "Unknown speed"), lspci ("8GT/s", "2.5GT/s", "unknown", pciutils 2.x "2.5Gb/s") or drivers'
 * boot lines ("5.0Gb/s", which means GT/s there). Returns GT/s, or null when not known.
 */
export function parseLinkSpeed(text: string | undefined | null): number | null {
  if (text === undefined || text === null) return null;
  const match = SPEED_TEXT.exec(text);
  if (!match) return null;
  const value = Number.parseFloat(match[1]!);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/**
 * A link width as printed by sysfs ("8") or lspci ("x8"). 0 is kept: it is what a VF or a link
 * that is down reports, and the check must see it to say so.
 */
export function parseLinkWidth(text: string | undefined | null): number | null {
  if (text === undefined || text === null) return null;
  const match = /^\s*x?(\d+)\s*$/i.exec(text);
  return match ? Number.parseInt(match[1]!, 10) : null;
}
