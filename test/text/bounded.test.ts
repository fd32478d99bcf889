import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { MAX_IGNORED_LISTED, MAX_TEXT_HOSTS, analyzeText } from '../../src/text/analyze.js';
import { MAX_LINE_CHARS, normalize } from '../../src/text/normalize.js';
import { segment } from '../../src/text/segment.js';
import { UsageError } from '../../src/util/errors.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';

/**
 * Issue 19, item 2: the inputs that hung the text path for more than 60 s (a cubic header
 * pattern, quadratic trailing-whitespace and iperf3 patterns, a slice per blank line, a list
 * search per prompt) and the one that made a 293 MB report. Each must now finish well within
 * the generous timeout below, which the old code could not meet on any of them.
 */
const BOUND_MS = 15_000;

const analyze = (text: string) => analyzeText(text, { checks, log: silentLogger() });

describe('the text path is linear and bounded (issue 19)', () => {
  it(
    'a 6 KB header line: `## x`, 6,000 spaces, `y`',
    async () => {
      const text = `## x${' '.repeat(6000)}y\n`;
      expect(segment(text).segments).toEqual([]);
      const [outcome] = await analyze(text);
      expect(outcome!.report.source?.segments?.map((part) => part.kind)).toEqual(['ignored']);
    },
    BOUND_MS,
  );

  it(
    'a 1 MB whitespace line, then more text: cut at 64 KiB and said so',
    async () => {
      const text = `$ ethtool -S eth0\nNIC statistics:\n     rx_packets: 1\n${' '.repeat(1024 * 1024)}x\n     rx_dropped: 7\n`;
      const normalized = normalize(text);
      expect(Math.max(...normalized.lines.map((line) => line.text.length))).toBeLessThanOrEqual(MAX_LINE_CHARS);
      expect(normalized.repairs.join(' ')).toMatch(/1 line\(s\) longer than 64 KiB cut/);
      const [outcome] = await analyze(text);
      expect(outcome!.report.source?.notes?.join(' ')).toMatch(/longer than 64 KiB cut/);
    },
    BOUND_MS,
  );

  it.each([
    ['a line of spaces after `Connecting to host ...`', (pad: string) => `Connecting to host 10.0.0.1, port 5201\n${pad}x\n`],
    ['spaces after `Connecting to host ...`', (pad: string) => `Connecting to host 10.0.0.1, port 5201${pad}x\n`],
    ['spaces after `LnkSta:`', (pad: string) => `LnkSta:${pad}x\n`],
    ['spaces after `LnkSta: Speed`', (pad: string) => `\t\tLnkSta: Speed 8GT/s${pad}x\n`],
    ['`@` after an ip link header', (pad: string) => `2: eth0@${'@'.repeat(pad.length)}\n`],
    ['digits in a uname line', (pad: string) => `Linux h 1.${'1'.repeat(pad.length)}\n`],
    // The ticket readers look at the sentence around each match: bounded, not back to the start.
    ['"spam " with no full stop (prose about repeated log lines)', (pad: string) => 'spam '.repeat(pad.length / 5)],
    ['"the link negotiates to" with no speed', (pad: string) => 'the link negotiates to '.repeat(pad.length / 23)],
    ['ethtool -G command lines', (pad: string) => 'ethtool -G ens1f0 rx 4096\n'.repeat(pad.length / 26)],
  ])(
    '200 KB: %s',
    async (_name, make) => {
      const text = make(' '.repeat(200 * 1024));
      segment(text);
      await analyze(text);
    },
    BOUND_MS,
  );

  it(
    '100,000 blank lines inside an ethtool -S',
    async () => {
      const text = `$ ethtool -S eth0\nNIC statistics:\n     rx_packets: 1\n${'\n'.repeat(100_000)}     rx_dropped: 7\n`;
      const { segments } = segment(text);
      expect(segments.map((part) => `${part.kind}:${part.iface}`)).toEqual(['ethtool-stats:eth0']);
      expect(segments[0]!.text).toMatch(/rx_dropped: 7/);
      await analyze(text);
    },
    BOUND_MS,
  );

  it(
    '20,000 prompts of one host, each followed by text nicdoctor does not read',
    async () => {
      const text = Array.from({ length: 20_000 }, (_, index) => `root@web1:~# uptime\n ${index} up 3 days\n\n`).join('\n');
      const { hosts } = segment(text);
      expect(hosts).toEqual(['web1']);
      const outcomes = await analyze(text);
      expect(outcomes).toHaveLength(1);
      // The host's report lists a bounded number of ignored ranges, not 200,000.
      const ignored = outcomes[0]!.report.source?.segments?.filter((part) => part.kind === 'ignored') ?? [];
      expect(ignored.length).toBe(MAX_IGNORED_LISTED + 1);
      expect(ignored.at(-1)!.note).toMatch(/more ranges of ignored text/);
    },
    BOUND_MS,
  );

  it(
    '200,000 prompts naming as many hosts: refused as a usage error (exit 2), quickly',
    async () => {
      const text = Array.from({ length: 200_000 }, (_, index) => `root@h${index}:~# ethtool eth0`).join('\n');
      const refusal = await analyze(text).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(UsageError);
      expect((refusal as Error).message).toMatch(/names 200000 hosts .* split it into one text per host/);
    },
    BOUND_MS,
  );

  it('many hosts with prose between their outputs: each report lists only its own ignored text (no amplification)', async () => {
    const hosts = 12;
    const text = Array.from(
      { length: hosts },
      (_, index) => `root@h${index}:~# ethtool -S eth0\nNIC statistics:\n     rx_packets: ${index}\nthis host was rebooted on Monday\n`,
    ).join('\n');
    const outcomes = await analyze(text);
    expect(outcomes).toHaveLength(hosts);
    for (const outcome of outcomes) {
      const ignored = outcome.report.source?.segments?.filter((part) => part.kind === 'ignored') ?? [];
      expect(ignored).toHaveLength(1);
    }
    const size = outcomes.reduce((sum, outcome) => sum + JSON.stringify(outcome.report).length, 0);
    // Linear in the hosts: a few KB per host's report, not the whole text's ignored list each.
    expect(size / hosts).toBeLessThan(64 * 1024);
    const many = Array.from({ length: MAX_TEXT_HOSTS + 1 }, (_, index) => `root@h${index}:~# uptime`).join('\n');
    await expect(analyze(many)).rejects.toThrow(UsageError);
  }, 60_000);

  it('the CLI refuses a text naming more than 256 hosts with exit 2 and says why', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nicdoctor-segmenter-hosts-'));
    try {
      const file = path.join(dir, 'fleet.txt');
      writeFileSync(file, Array.from({ length: MAX_TEXT_HOSTS + 1 }, (_, index) => `root@h${index}:~# ethtool eth0`).join('\n'));
      const cli = path.join(FIXTURES, '..', 'dist', 'src', 'cli.js');
      const failure = await promisify(execFile)(process.execPath, [cli, 'analyze', file]).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure.code).toBe(2);
      expect(failure.stderr).toMatch(/names 257 hosts .*split it into one text per host/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
