import { ParseError } from './parse-error.js';
import { keyValuePairs } from './text.js';

/** `ethtool -i <if>`: the driver bound to the interface and what it offers. */
export interface EthtoolDriver {
  driver: string;
  version: string | null;
  firmwareVersion: string | null;
  expansionRomVersion: string | null;
  /** PCI address for PCI NICs; null for software devices (veth prints it empty). */
  busInfo: string | null;
  supportsStatistics: boolean | null;
  supportsTest: boolean | null;
  supportsEepromAccess: boolean | null;
  supportsRegisterDump: boolean | null;
  supportsPrivFlags: boolean | null;
}

/**
 * Parses `ethtool -i`. Every ethtool version prints `driver:` and `bus-info:` (empty for
 * virtual devices), so output without both is not `ethtool -i` output or was cut short.
 */
export function parseEthtoolDriver(text: string): EthtoolDriver {
  const fields = new Map<string, string>();
  for (const [key, value] of keyValuePairs(text)) {
    if (!fields.has(key)) fields.set(key, value);
  }
  const driver = fields.get('driver');
  if (!driver) throw new ParseError('ethtool -i: no "driver:" line; not `ethtool -i` output');
  if (!fields.has('bus-info')) throw new ParseError(`ethtool -i: no "bus-info:" line for driver ${driver} (truncated output?)`);

  const optional = (key: string) => {
    const value = fields.get(key);
    // Drivers without firmware print nothing or "N/A".
    return value === undefined || value === '' || /^n\/a$/i.test(value) ? null : value;
  };
  const flag = (key: string) => {
    const value = fields.get(key)?.toLowerCase();
    return value === 'yes' ? true : value === 'no' ? false : null;
  };
  return {
    driver,
    version: optional('version'),
    firmwareVersion: optional('firmware-version'),
    expansionRomVersion: optional('expansion-rom-version'),
    busInfo: optional('bus-info'),
    supportsStatistics: flag('supports-statistics'),
    supportsTest: flag('supports-test'),
    supportsEepromAccess: flag('supports-eeprom-access'),
    supportsRegisterDump: flag('supports-register-dump'),
    supportsPrivFlags: flag('supports-priv-flags'),
  };
}
