import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { compareVersions, parseIperf3Version, parseIperf3VersionLine, parseVersionTriple } from '../../src/parsers/iperf3-version.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const DEBIAN12_FEATURES = [
  'CPU affinity setting',
  'IPv6 flow label',
  'SCTP',
  'TCP congestion algorithm setting',
  'sendfile / zerocopy',
  'socket pacing',
  'authentication',
  'bind to device',
  "support IPv4 don't fragment",
];

describe('parseIperf3Version over real `iperf3 -v` captures', () => {
  const files = realCaptures('iperf3', /^version-/);

  it('finds every version capture', () => {
    expect(files).toEqual(['iperf3/version-3.12-debian12.txt', 'iperf3/version-3.12-moler.txt']);
  });

  it.each([
    ['iperf3/version-3.12-debian12.txt', 'Linux vm 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 x86_64'],
    ['iperf3/version-3.12-moler.txt', 'Linux ute-image12 6.1.0-26-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1 (2024-09-30) x86_64'],
  ])('%s', (file, system) => {
    expect(parseIperf3Version(realCapture(file))).toEqual({
      version: '3.12',
      major: 3,
      minor: 12,
      patch: null,
      suffix: null,
      cjson: '1.7.15',
      system,
      features: DEBIAN12_FEATURES,
    });
  });
});

describe('the same header at the top of plain-text test output', () => {
  const files = realCaptures('iperf3', /^3\.6-.*plain.*\.txt$/);

  it.each(files)('%s reads as iperf 3.6 without a features line', (file) => {
    expect(parseIperf3Version(realCapture(file))).toMatchObject({
      version: '3.6',
      major: 3,
      minor: 6,
      patch: null,
      cjson: null,
      system: 'Linux debian',
      features: null,
    });
  });

  it('covers both 3.6 plain captures', () => {
    expect(files).toHaveLength(2);
  });
});

describe('version strings of real -J captures (start.version)', () => {
  // Every JSON capture names its iperf3 version; the parser must read each of them.
  const files = realCaptures('iperf3').filter((file) => /"version":\s*"iperf /.test(realCapture(file)));
  const versions = files.flatMap((file) =>
    [...realCapture(file).matchAll(/"version":\s*"(iperf [^"]+)"/g)].map((match) => [file, match[1]!] as const),
  );

  it('finds the versions of the JSON captures', () => {
    expect(new Set(versions.map(([, version]) => version))).toEqual(
      new Set(['iperf 3.0.7', 'iperf 3.1.3', 'iperf 3.1.6', 'iperf 3.12', 'iperf 3.6', 'iperf 3.9']),
    );
  });

  it.each(versions)('%s: %s parses', (_, line) => {
    const parsed = parseIperf3VersionLine(line);
    expect(parsed.major).toBe(3);
    expect(`iperf ${parsed.version}`).toBe(line);
  });

  it.each([
    ['iperf 3.0.7', { version: '3.0.7', minor: 0, patch: 7 }],
    ['iperf 3.1.3', { version: '3.1.3', minor: 1, patch: 3 }],
    ['iperf 3.9', { version: '3.9', minor: 9, patch: null }],
  ])('%s', (line, expected) => {
    expect(parseIperf3VersionLine(line)).toMatchObject({ major: 3, suffix: null, cjson: null, ...expected });
  });
});

describe('other iperf3 -v shapes', () => {
  it.each([
    [
      'iperf 3.9 (cJSON 1.7.13)\nLinux host 5.10.0-20-amd64 #1 SMP Debian 5.10.158-2 x86_64\n',
      { version: '3.9', minor: 9, patch: null, cjson: '1.7.13', features: null },
    ],
    [
      'iperf 3.17.1 (cJSON 1.7.15)\nLinux h 6.8.0 #1 SMP x86_64\nOptional features available: CPU affinity setting, IPv6 flow label, POSIX threads\n',
      { version: '3.17.1', minor: 17, patch: 1, features: ['CPU affinity setting', 'IPv6 flow label', 'POSIX threads'] },
    ],
    ['iperf 3.10.1+ (cJSON 1.7.13)\n', { version: '3.10.1+', minor: 10, patch: 1, suffix: '+', system: null }],
    ['iperf 3.16-rc1\n', { version: '3.16-rc1', minor: 16, patch: null, suffix: '-rc1' }],
    [
      'iperf 3.1.3\nOptional features available: CPU affinity setting\n',
      { version: '3.1.3', system: null, features: ['CPU affinity setting'] },
    ],
    [
      'iperf 3.19.1 (cJSON 1.7.15)\r\nLinux h 6.12 x86_64\r\nOptional features available: CPU affinity setting, authentication\r\n',
      { version: '3.19.1', system: 'Linux h 6.12 x86_64', features: ['CPU affinity setting', 'authentication'] },
    ],
  ])('%j', (text, expected) => {
    expect(parseIperf3Version(text)).toMatchObject({ major: 3, ...expected });
  });

  it.each([
    ['garbage', 'hello world'],
    ['empty', ''],
    ['iperf2', 'iperf version 2.1.9 (14 March 2023) pthreads\n'],
    ['truncated version', 'iperf 3.'],
    ['a future iperf 4', 'iperf 4.0 (cJSON 1.7.18)\n'],
    ['a shell error', 'bash: iperf3: command not found\n'],
  ])('rejects %s with ParseError', (_, text) => {
    expect(() => parseIperf3Version(text)).toThrow(ParseError);
  });
});

describe('version comparison', () => {
  it.each([
    ['3.12', '3.16', -1],
    ['3.16', '3.16', 0],
    ['3.16.0', '3.16', 0],
    ['3.17.1', '3.16', 1],
    ['3.19', '3.19.1', -1],
    ['3.9', '3.10', -1],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareVersions(parseVersionTriple(a), parseVersionTriple(b)))).toBe(sign);
  });

  it('rejects a malformed version option', () => {
    expect(() => parseVersionTriple('3.x')).toThrow(ParseError);
  });
});
