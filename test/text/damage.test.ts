import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { analyzeText } from '../../src/text/analyze.js';
import { segment, type Segment } from '../../src/text/segment.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { wrap } from './variants.js';

/**
 * What tickets do to pasted outputs, applied to real texts: every damaged copy must segment
 * like the original and give the same findings.
 */

const read = (file: string) => readFileSync(path.join(FIXTURES, 'text', file), 'utf8');
const ICE = read('ice-e810xxv-25g-kvm-root-prompts.txt');
const NETUTILS = read('netutils-i350-82599-l2-bridge-headers.txt');
const IPERF3 = read('iperf3-3.0-tcp-retransmits.txt');

const shape = (segments: readonly Segment[]) => segments.map((part) => `${part.kind}:${part.iface ?? ''}`);

async function symptoms(text: string): Promise<string[]> {
  const outcomes = await analyzeText(text, { checks, log: silentLogger() });
  return outcomes
    .flatMap((outcome) =>
      outcome.report.checks.flatMap((check) => check.findings.map((finding) => `${finding.check}/${finding.symptom}@${finding.subject}`)),
    )
    .sort();
}

describe('segmenting damaged texts', () => {
  it('sees email quoting behind a zero-width space (a real FreeBSD ifconfig quoted on its first line only)', () => {
    const ifconfig = readFileSync(path.join(FIXTURES, 'real/freebsd/ifconfig-cxgb0-twinax.txt'), 'utf8');
    const [first, ...rest] = ifconfig.split('\n');
    const damaged = [`\u200b> ${first}`, ...rest.map((line) => (line ? `\u200b${line}` : line))].join('\n');
    expect(shape(segment(damaged).segments)).toEqual(shape(segment(ifconfig).segments));
    expect(segment(damaged).segments.map((part) => part.kind)).toContain('freebsd-ifconfig');
  });

  it('email quoting (> and > >) and CRLF', async () => {
    const damaged = ICE.split('\n')
      .map((line) => `> ${line}`)
      .join('\r\n');
    const result = segment(damaged);
    expect(shape(result.segments)).toEqual(shape(segment(ICE).segments));
    expect(result.repairs).toEqual(expect.arrayContaining(['CRLF line ends', 'email quoting (> )']));
    expect(await symptoms(damaged)).toEqual(await symptoms(ICE));
    const twice = `On Monday, the customer wrote:\n${ICE.split('\n')
      .map((line) => `> > ${line}`)
      .join('\n')}`;
    expect(shape(segment(twice).segments)).toEqual(shape(segment(ICE).segments));
  });

  it('tabs turned into spaces', async () => {
    expect(NETUTILS).toContain('\t');
    const damaged = NETUTILS.replace(/\t/g, '        ');
    expect(shape(segment(damaged).segments)).toEqual(shape(segment(NETUTILS).segments));
    expect(await symptoms(damaged)).toEqual(await symptoms(NETUTILS));
    expect(await symptoms(damaged)).toContain('rx-rings/tx-ring-below-max@eth2');
  });

  it('lines wrapped at 72 columns: /proc/interrupts and iperf3 rows are rejoined or read across the break', async () => {
    const damaged = wrap(NETUTILS, 72);
    expect(damaged.split('\n').length).toBeGreaterThan(NETUTILS.split('\n').length);
    const result = segment(damaged);
    expect(shape(result.segments)).toEqual(shape(segment(NETUTILS).segments));
    expect(result.repairs).toContain('wrapped lines rejoined');
    expect(await symptoms(damaged)).toEqual(await symptoms(NETUTILS));
    const [original] = await analyzeText(NETUTILS, { checks, log: silentLogger() });
    const [wrapped] = await analyzeText(damaged, { checks, log: silentLogger() });
    // The interrupts parsed the same: the IRQ rows were joined back, none lost.
    expect(wrapped!.store.runs.find((run) => run.fact === 'proc.interrupts')?.ok).toBe(
      original!.store.runs.find((run) => run.fact === 'proc.interrupts')?.ok,
    );
    const iperf = wrap(IPERF3, 72);
    expect(iperf).not.toBe(IPERF3);
    expect(segment(iperf).segments.map((part) => part.kind)).toContain('iperf3-text');
    expect(await symptoms(iperf)).toEqual(await symptoms(IPERF3));
  });

  it('| grep and | more fragments: partial outputs marked filtered, pager prompts dropped', async () => {
    const text = [
      '$ ethtool -i em1',
      'driver: ice',
      'bus-info: 0000:17:00.0',
      '$ ethtool -S em1 | grep -i drop',
      '     rx_dropped: 12',
      '     tx_dropped: 0',
      '$ ethtool -g em1 | more',
      'Ring parameters for em1:',
      'Pre-set maximums:',
      'RX:\t\t8160',
      '--More--',
      'TX:\t\t8160',
      'Current hardware settings:',
      'RX:\t\t512',
      'TX:\t\t512',
      '',
    ].join('\n');
    const result = segment(text);
    expect(result.segments.map((part) => [part.kind, part.iface, part.filtered])).toEqual([
      ['ethtool-driver', 'em1', false],
      ['ethtool-stats', 'em1', true],
      ['ethtool-rings', 'em1', false],
    ]);
    expect(result.repairs).toContain('pager prompts (--More--)');
    expect(result.segments[2]!.text).not.toContain('--More--');
    expect(await symptoms(text)).toContain('rx-rings/rx-ring-below-max@em1');
  });

  it('terminal timestamps and log prefixes', async () => {
    const stamped = ICE.split('\n')
      .map((line, index) => `[2024-03-05 10:${String(index % 60).padStart(2, '0')}:07] ${line}`)
      .join('\n');
    expect(shape(segment(stamped).segments)).toEqual(shape(segment(ICE).segments));
    expect(segment(stamped).repairs).toContain('terminal timestamps');
    expect(await symptoms(stamped)).toEqual(await symptoms(ICE));
  });

  it('several hosts in one text, told apart by prompt hostnames: one report each', async () => {
    const text = [
      'Hi, both servers are slow. Output from each:',
      ...ICE.replace(/^# /gm, '[root@hv01 ~]# ').split('\n'),
      ...read('tg3-bcm5719-rss.txt')
        .replace(/\[root@hpe ~\]#/g, 'admin@web02:~$')
        .split('\n'),
    ].join('\n');
    const result = segment(text);
    expect(result.hosts).toEqual(['hv01', 'web02']);
    const outcomes = await analyzeText(text, { checks, log: silentLogger() });
    expect(outcomes.map((outcome) => outcome.report.host.hostname)).toEqual(['hv01', 'web02']);
    expect(outcomes[0]!.report.interfaces.map((iface) => iface.name)).toEqual(['em1']);
    expect(outcomes[1]!.report.interfaces.map((iface) => iface.name)).toEqual(['enp2s0f0']);
  });

  it('Markdown fences and === headers name the outputs; no prompt at all falls back to content shape', () => {
    const fenced = '```\n' + ICE.replace(/^# (.*)$/gm, '=== $1 ===') + '\n```\n';
    expect(shape(segment(fenced).segments)).toEqual(shape(segment(ICE).segments));
    const bare = ICE.replace(/^# .*$/gm, '');
    // Without the commands, the headers ("Settings for em1:", "Ring parameters for em1:") still say what and which interface.
    expect(shape(segment(bare).segments)).toEqual([
      'ethtool-settings:em1',
      'ethtool-driver:',
      'ethtool-rings:em1',
      'ethtool-channels:em1',
      'ethtool-coalesce:em1',
      'ethtool-features:em1',
    ]);
  });

  it('iperf3 -J pasted between a prompt and prose: the JSON ends at its closing brace', async () => {
    const json = read('iperf3-3.12-P4-netns.json');
    const text = `Here is the JSON run:\n$ iperf3 -c 10.0.0.2 -P 4 -J\n${json.trimEnd()}\nThanks, Bob\n`;
    const result = segment(text);
    expect(result.segments.map((part) => [part.kind, part.firstLine])).toEqual([['iperf3-json', 2]]);
    expect(result.ignored.map((part) => part.preview)).toEqual(['Here is the JSON run:', 'Thanks, Bob']);
    const [outcome] = await analyzeText(text, { checks, log: silentLogger() });
    expect(outcome!.report.bench?.result?.streamsPerProcess).toBe(4);
  });

  it('prose is ignored and reported with its line range, never guessed at', () => {
    const result = segment('Our 10G link only does 6 Gb/s.\nThanks,\nBob\n\n' + IPERF3);
    expect(result.ignored[0]).toMatchObject({ firstLine: 1, lastLine: 3 });
    expect(result.segments.map((part) => part.kind)).toEqual(['iperf3-text']);
    expect(result.segments[0]!.firstLine).toBe(5);
  });
});
