/**
 * What Ethernet speed a pluggable module carries, from its EEPROM: the nominal signalling rate
 * of one lane ("BR, Nominal"), the number of lanes its form factor has, and the line code that
 * turns baud into bits. 10300 MBd at 64B/66B on one lane is 10GbE; 25500 Mb/s on four is 100GbE.
 */

/** Ethernet speeds a module is built for, in Mb/s. */
const ETHERNET_SPEEDS_MBPS = [100, 1000, 2500, 5000, 10_000, 25_000, 40_000, 50_000, 100_000, 200_000, 400_000, 800_000];

/** Nominal rates are rounded up by vendors (1300 MBd for 1.25 GBd): accept this much over the estimate. */
const ROUNDING_MARGIN = 1.06;

/** Electrical lanes by form factor: QSFP has four, QSFP-DD and OSFP eight, SFP one. */
export function moduleLanes(identifier: string | null): number {
  const id = (identifier ?? '').toUpperCase();
  if (/QSFP-DD|OSFP|QSFP112/.test(id)) return 8;
  if (id.includes('QSFP') || id.includes('CFP')) return 4;
  return 1;
}

/** Data bits per signalled symbol of a line code; the usual one for the rate when it is not named. */
function codeEfficiency(encoding: string | null, laneMbps: number): number {
  const code = (encoding ?? '').toUpperCase();
  if (code.includes('8B/10B')) return 0.8;
  if (code.includes('64B/66B') || code.includes('256B/257B') || code.includes('PAM4')) return 64 / 66;
  // NRZ or unspecified: below 5 GBd modules are 8B/10B Ethernet (1G), above it 64B/66B.
  return laneMbps < 5000 ? 0.8 : 64 / 66;
}

/** The Ethernet speed the module is built for, or null when its EEPROM does not give a rate. */
export function moduleSpeedMbps(module: { identifier: string | null; nominalMbps: number | null; encoding: string | null }): number | null {
  if (module.nominalMbps === null || module.nominalMbps <= 0) return null;
  const estimate = module.nominalMbps * codeEfficiency(module.encoding, module.nominalMbps) * moduleLanes(module.identifier);
  let best: number | null = null;
  for (const speed of ETHERNET_SPEEDS_MBPS) if (speed <= estimate * ROUNDING_MARGIN) best = speed;
  return best;
}
