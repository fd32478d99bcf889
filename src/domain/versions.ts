/**
 * Versions as drivers, firmware and kernels print them, and the ranges known issues are keyed by.
 *
 * Real strings (`ethtool -i`, `uname -r`) mix a version with other tokens:
 * - i40e / ice NVM:   "6.01 0x800035d8 1.1747.0", "4.51 0x8001e501 23.0.8" → 6.01, 4.51 (the NVM version)
 * - ixgbe:            "1.61, 0x8000090e" → 1.61; "0x800000cb" (eetrack only) → 0x800000cb as a number
 * - mlx5:             "16.28.2006 (MT_0000000008)" → 16.28.2006
 * - bnxt_en:          "218.0.219.0/pkg 218.0.219.0" → 218.0.219.0
 * - bnx2x:            "bc 5.2.7 phy baa0.105" → 5.2.7 (the boot code)
 * - kernels / in-tree driver versions: "5.15.0-91-generic" → 5.15.0
 * The version is the first dotted number; failing that, a lone hexadecimal token. Anything else
 * (N/A, empty) has no version, and a range never matches it.
 */
export type Version = readonly number[];

const DOTTED = /(?:^|[^\d.])(\d{1,9}(?:\.\d{1,9}){1,5})/;
const HEX = /(?:^|\s)0x([0-9a-f]{1,16})\b/i;
const BARE = /^\s*v?(\d{1,9})\s*$/;

export function parseVersion(text: string | null | undefined): Version | null {
  if (!text) return null;
  const sample = text.slice(0, 200);
  const dotted = DOTTED.exec(sample);
  if (dotted) return dotted[1]!.split('.').map(Number);
  const hex = HEX.exec(sample);
  if (hex) return [Number.parseInt(hex[1]!, 16)];
  const bare = BARE.exec(sample);
  return bare ? [Number(bare[1])] : null;
}

export function compareVersions(a: Version, b: Version): number {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const diff = (a[index] ?? 0) - (b[index] ?? 0);
    if (diff !== 0) return diff < 0 ? -1 : 1;
  }
  return 0;
}

type Comparator = { op: '<' | '<=' | '>' | '>=' | '='; version: Version };
/** Alternatives (`||`), each a conjunction of comparators (">=5.10 <5.15"). */
export type VersionRange = { text: string; alternatives: Comparator[][] };

const COMPARATOR = /^(<=|>=|<|>|=)?(\d{1,9}(?:\.\d{1,9}){0,5}|0x[0-9a-f]{1,16})$/i;

/** Parses "<6.01", ">=5.10 <5.15", "16.28.2006", "<0x80000877 || >=1.0"; throws with the reason. */
export function parseVersionRange(text: string): VersionRange {
  const alternatives = text.split('||').map((part) => {
    const tokens = part.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0 || tokens.length > 4) throw new Error(`"${text}": each alternative is 1-4 comparators such as ">=5.10 <5.15"`);
    return tokens.map((token): Comparator => {
      const match = COMPARATOR.exec(token);
      if (!match) throw new Error(`"${token}" is not a comparator (<, <=, >, >=, = followed by a version such as 6.01 or 0x80000877)`);
      const raw = match[2]!;
      const version = raw.toLowerCase().startsWith('0x') ? [Number.parseInt(raw.slice(2), 16)] : raw.split('.').map(Number);
      return { op: (match[1] ?? '=') as Comparator['op'], version };
    });
  });
  if (alternatives.length > 8) throw new Error(`"${text}": at most 8 alternatives`);
  return { text, alternatives };
}

function holds({ op, version }: Comparator, actual: Version): boolean {
  const order = compareVersions(actual, version);
  switch (op) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    default:
      // "=5.15" means the 5.15 series: 5.15.0-91 matches, as a prefix.
      return compareVersions(actual.slice(0, version.length), version) === 0;
  }
}

export function inRange(range: VersionRange, actual: Version | null): boolean {
  if (!actual) return false;
  return range.alternatives.some((all) => all.every((comparator) => holds(comparator, actual)));
}
