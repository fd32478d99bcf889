import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseIperf3Text, parseIperf3TextRuns, sniffIperf2Text, sniffIperf3Text } from '../../src/parsers/iperf3-text.js';
import { FIXTURES } from '../helpers/fixtures.js';

const text = (name: string) => readFileSync(path.join(FIXTURES, 'text', name), 'utf8');

describe('parseIperf3Text on real runs (fixtures/text/SOURCES.md)', () => {
  it('reads -P with [SUM] rows: the sum per interval, the streams, the final rates', () => {
    const run = parseIperf3Text(text('iperf3-3.x-P3-client.txt'));
    expect(run).toMatchObject({
      role: 'client',
      protocol: 'tcp',
      direction: 'forward',
      streams: 3,
      senderBitsPerSecond: 22.3e9,
      receiverBitsPerSecond: 22.2e9,
      retransmits: 0,
      durationSeconds: 10,
    });
    expect(run.intervals).toHaveLength(10);
    expect(run.perStream.map((stream) => stream.id)).toEqual(['5', '7', '9']);
  });

  it('reads the Windows client of the seed guide: 8 streams, one [SUM] interval of 36.1 Gb/s, no summary', () => {
    const run = parseIperf3Text(text('seed-004-windows-client-P8-40g.txt'));
    expect(run).toMatchObject({ streams: 8, hasSummary: false, receiverBitsPerSecond: null, peer: '192.168.188.11', port: 5201 });
    expect(run.intervals).toEqual([{ start: 0, end: 1, bitsPerSecond: 36.1e9, retransmits: null, omitted: false }]);
  });

  it('reads the Retr column and the sender retransmits', () => {
    const run = parseIperf3Text(text('iperf3-3.0-tcp-retransmits.txt'));
    expect(run.retransmits).toBe(14117);
    expect(run.intervals.every((interval) => interval.retransmits !== null)).toBe(true);
    expect(run.receiverBitsPerSecond).toBe(967e6);
  });

  it('reads the rate from the bytes where a coarse format printed 0.00 Gbits/sec', () => {
    const run = parseIperf3Text(
      [
        '[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd',
        '[ 15]   0.00-1.00   sec  87.4 KBytes  0.00 Gbits/sec    2   23.8 KBytes',
        '[ 15]   1.00-2.00   sec  0.00 Bytes  0.00 Gbits/sec    1   23.8 KBytes',
      ].join('\n'),
    );
    expect(run.intervals.map((interval) => interval.bitsPerSecond)).toEqual([Math.round(87.4 * 1024 * 8), 0]);
  });

  it('sums the Retr column of a run stopped before its summary (Ctrl-C)', () => {
    const run = parseIperf3Text(
      [
        'Connecting to host 20.0.2.4, port 5201',
        '[  4] local 18.0.1.4 port 41528 connected to 20.0.2.4 port 5201',
        '[ ID] Interval           Transfer     Bandwidth       Retr  Cwnd',
        '[  4]   0.00-1.00   sec   297 KBytes  2.43 Mbits/sec    3   8.74 KBytes',
        '[  4]   1.00-2.00   sec  0.00 Bytes  0.00 bits/sec    1   8.74 KBytes',
        '^C[  4]   2.00-2.93   sec  0.00 Bytes  0.00 bits/sec    1   8.74 KBytes',
      ].join('\n'),
    );
    expect(run).toMatchObject({ hasSummary: false, retransmits: 5 });
  });

  it('reads --bidir: the client direction (TX-C) and the reverse one (RX-C)', () => {
    const run = parseIperf3Text(text('iperf3-3.12-bidir-loopback.txt'));
    expect(run).toMatchObject({
      direction: 'bidir',
      streams: 1,
      senderBitsPerSecond: 8.39e9,
      receiverBitsPerSecond: 8.36e9,
      reverseBitsPerSecond: 9.82e9,
      retransmits: 40,
    });
    expect(run.intervals.map((interval) => interval.bitsPerSecond)).toEqual([9.09e9, 6.82e9, 9.27e9]);
  });

  it('reads -R with -P: reverse direction, [SUM] receiver', () => {
    const run = parseIperf3Text(text('iperf3-3.12-reverse-P2-loopback.txt'));
    expect(run).toMatchObject({ direction: 'reverse', streams: 2, receiverBitsPerSecond: 18.5e9, retransmits: 7 });
    expect(run.intervals.map((interval) => interval.bitsPerSecond)).toEqual([20.7e9, 18.4e9, 16.4e9]);
  });

  it('reads UDP jitter and loss, also in 3.1 output whose summary says neither sender nor receiver', () => {
    const old = parseIperf3Text(text('iperf3-3.1-udp-loss-old-format.txt'));
    expect(old).toMatchObject({ protocol: 'udp', lostPercent: 10, retransmits: null });
    expect(old.jitterMs).toBeGreaterThan(0);
    const wrapped = parseIperf3Text(text('igb-i211-udp-slow-run-mailer-wrapped.txt'));
    // The mailer wrapped "0/32573 (0%)  receiver" onto a line of its own.
    expect(wrapped).toMatchObject({ protocol: 'udp', receiverBitsPerSecond: 37.7e6, jitterMs: 0.037, lostPercent: 0, retransmits: null });
  });

  it('reads a server side run (-V) and its version', () => {
    const run = parseIperf3Text(text('iperf3-3.6-server-verbose.txt'));
    expect(run).toMatchObject({ role: 'server', version: '3.6', senderBitsPerSecond: null });
    expect(run.receiverBitsPerSecond).toBeGreaterThan(1e9);
  });

  it('reads a run whose whitespace was flattened onto one line', () => {
    const run = parseIperf3Text(text('seed-003-flattened-run-retransmits.txt'));
    expect(run).toMatchObject({ receiverBitsPerSecond: 1.53e9, retransmits: 343419, durationSeconds: 60 });
    expect(run.intervals[0]!.bitsPerSecond).toBe(2.78e9);
  });

  it('splits processes run at once with -T titles into one run each', () => {
    const runs = parseIperf3TextRuns(text('iperf3-3.12-one-vs-two-processes-loopback.txt').split('$ ').at(-1)!);
    expect(runs.map((run) => [run.title, run.port, run.receiverBitsPerSecond, run.retransmits])).toEqual([
      ['s1', 5393, 8.59e9, 12],
      ['s2', 5394, 14.2e9, 1],
    ]);
    expect(parseIperf3TextRuns(text('iperf3-3.x-P3-client.txt'))).toHaveLength(1);
  });

  it('names iperf2 and iperf3 errors instead of guessing', () => {
    const iperf2 = text('forum-iperf2-82572ei-gigabit.txt');
    expect(sniffIperf2Text(iperf2)).toBe(true);
    expect(sniffIperf3Text(iperf2)).toBe(false);
    expect(() => parseIperf3Text(iperf2)).toThrow(/iperf2/);
    expect(() => parseIperf3Text(text('iperf3-error-busy.txt'))).toThrow(ParseError);
    expect(() => parseIperf3Text(text('iperf3-error-busy.txt'))).toThrow(/server is busy/);
    expect(() => parseIperf3Text('Settings for eth0:\n\tSpeed: 10000Mb/s\n')).toThrow(/not iperf3 output/);
  });
});

describe('parseIperf3Text: the stream count of a -P run whose per-stream rows are not all pasted', () => {
  // The real -P 3 client run, as a customer pastes it through `| grep SUM`: only the aggregate rows.
  const full = readFileSync(path.join(FIXTURES, 'real', 'iperf3', '3.x-tcp-P3-plain-client-moler-1.txt'), 'utf8');
  const sums = full
    .split('\n')
    .filter((line) => /\[SUM\]|Connecting to host|- - -/.test(line))
    .join('\n');

  it('a [SUM] row means two or more streams, never "1 stream"', () => {
    expect(parseIperf3Text(full).streams).toBe(3);
    expect(parseIperf3Text(sums).streams).toBeGreaterThanOrEqual(2);
  });

  it('-P on the command line (given, or typed in the text) gives the exact count', () => {
    expect(parseIperf3Text(sums, 'iperf3 -c 127.0.0.1 -P 3 | grep SUM').streams).toBe(3);
    expect(parseIperf3Text(`$ iperf3 -c 10.0.0.2 -t 30 --parallel 20\n${sums}`).streams).toBe(20);
    expect(parseIperf3TextRuns(sums, 'iperf3 -c 127.0.0.1 -P20')[0]!.streams).toBe(20);
  });
});
