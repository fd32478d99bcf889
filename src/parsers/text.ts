/** Small helpers shared by the text parsers. Parsers are pure: text in, typed value out. */

/** Splits into lines, without trailing whitespace and without a trailing empty line. */
export function lines(text: string): string[] {
  return text.replace(/\r\n/g, '\n').split('\n').map((line) => line.trimEnd());
}

/** "n/a", "" and "unknown" mean the driver does not report the value. */
export function parseOptionalNumber(value: string | undefined): number | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (!/^-?\d+$/.test(trimmed)) return null;
  return Number.parseInt(trimmed, 10);
}

/** `key: value` lines (ethtool, lspci) into pairs, keeping order and repeated keys. */
export function keyValuePairs(text: string, separator = ':'): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const line of lines(text)) {
    const index = line.indexOf(separator);
    if (index <= 0) continue;
    pairs.push([line.slice(0, index).trim(), line.slice(index + separator.length).trim()]);
  }
  return pairs;
}
