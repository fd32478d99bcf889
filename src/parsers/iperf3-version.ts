import { ParseError } from './parse-error.js';
import { lines } from './text.js';

export interface VersionTriple {
  major: number;
  minor: number;
  /** null when the release prints two fields ("iperf 3.12"); compares as 0. */
  patch: number | null;
}

export interface Iperf3Version extends VersionTriple {
  /** As printed: "3.12", "3.17.1", "3.10.1+". */
  version: string;
  /** Text after the numbers: "+" on development builds, "-rc1"; null on releases. */
  suffix: string | null;
  /** Bundled cJSON version ("1.7.15"), printed since 3.7. */
  cjson: string | null;
  /** The uname line iperf3 prints below its version, null when absent. */
  system: string | null;
  /** "Optional features available:" list; null when the build does not print it (old releases). */
  features: string[] | null;
}

// "iperf 3.12 (cJSON 1.7.15)", "iperf 3.17.1", "iperf 3.10.1+ (cJSON 1.7.13)"; also the
// `start.version` string of -J output ("iperf 3.1.3").
const VERSION_LINE = /^iperf (\d+)\.(\d+)(?:\.(\d+))?([^\s(\d.][^\s(]*)?(?:\s+\(cJSON ([^)]+)\))?\s*$/;
const FEATURES_PREFIX = 'Optional features available:';

/** Parses an iperf3 version string such as "iperf 3.12 (cJSON 1.7.15)". */
export function parseIperf3VersionLine(line: string): Omit<Iperf3Version, 'system' | 'features'> {
  const match = VERSION_LINE.exec(line.trim());
  if (!match) throw new ParseError(`not an iperf3 version line: ${JSON.stringify(line.slice(0, 80))}`);
  const major = Number.parseInt(match[1]!, 10);
  if (major !== 3) throw new ParseError(`iperf ${match[1]}.${match[2]} is not iperf3 (major version ${major})`);
  const minor = Number.parseInt(match[2]!, 10);
  const patch = match[3] === undefined ? null : Number.parseInt(match[3], 10);
  const suffix = match[4] ? match[4] : null;
  return {
    version: `${major}.${minor}${patch === null ? '' : `.${patch}`}${suffix ?? ''}`,
    major,
    minor,
    patch,
    suffix,
    cjson: match[5] ?? null,
  };
}

/**
 * Parses `iperf3 -v`: the version line, the uname line, then (3.1+) the optional features.
 * Also reads the same header at the top of plain-text test output ("iperf 3.6\nLinux debian\n...").
 */
export function parseIperf3Version(text: string): Iperf3Version {
  const all = lines(text).map((line) => line.trim());
  const index = all.findIndex((line) => /^iperf \d/.test(line));
  if (index < 0) throw new ParseError(`iperf3 -v: no "iperf 3.x" version line in ${JSON.stringify(text.slice(0, 80))}`);
  const head = parseIperf3VersionLine(all[index]!);
  const rest = all.slice(index + 1).filter(Boolean);
  const featuresLine = rest.find((line) => line.startsWith(FEATURES_PREFIX));
  const systemLine = rest[0] !== undefined && !rest[0].startsWith(FEATURES_PREFIX) ? rest[0] : null;
  const features =
    featuresLine === undefined
      ? null
      : featuresLine
          .slice(FEATURES_PREFIX.length)
          .split(',')
          .map((feature) => feature.trim().replace(/\.$/, ''))
          .filter(Boolean);
  return { ...head, system: systemLine, features };
}

/** Parses "3.16" or "3.19.1" (check options, not tool output). */
export function parseVersionTriple(text: string): VersionTriple {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new ParseError(`not a version number: ${JSON.stringify(text)}`);
  return { major: Number(match[1]), minor: Number(match[2]), patch: match[3] === undefined ? null : Number(match[3]) };
}

/** Negative when a is older than b, 0 when equal, positive when newer; a missing patch is 0. */
export function compareVersions(a: VersionTriple, b: VersionTriple): number {
  return a.major - b.major || a.minor - b.minor || (a.patch ?? 0) - (b.patch ?? 0);
}
