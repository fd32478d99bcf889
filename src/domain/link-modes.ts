/** Ethernet link mode names ("10000baseT/Full") and which of them is fastest. */

export interface LinkMode {
  mode: string;
  speedMbps: number;
  duplex: 'full' | 'half' | null;
}

/** "1000baseT/Full" → 1000 Mb/s full duplex; "10000baseR_FEC" → 10000, duplex not named. */
export function parseLinkMode(mode: string): LinkMode | null {
  const match = /^(\d+)base[A-Za-z0-9_-]+(?:\/(Full|Half))?$/.exec(mode);
  if (!match) return null;
  const duplex = match[2] === 'Full' ? 'full' : match[2] === 'Half' ? 'half' : null;
  return { mode, speedMbps: Number.parseInt(match[1]!, 10), duplex };
}

/** The fastest mode of a list, full duplex before half; null when no name carries a speed. */
export function bestLinkMode(modes: readonly string[]): LinkMode | null {
  let best: LinkMode | null = null;
  for (const mode of modes) {
    const parsed = parseLinkMode(mode);
    if (!parsed) continue;
    if (
      !best ||
      parsed.speedMbps > best.speedMbps ||
      (parsed.speedMbps === best.speedMbps && parsed.duplex === 'full' && best.duplex !== 'full')
    ) {
      best = parsed;
    }
  }
  return best;
}
