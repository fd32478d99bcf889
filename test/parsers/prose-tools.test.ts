import { describe, expect, it } from 'vitest';
import { statedIperf3Version, statedToolRates } from '../../src/parsers/prose-tools.js';

describe('statedIperf3Version', () => {
  it.each([
    ['We run iperf3 3.9 between the racks.', '3.9'],
    ['Iperf3 v 3.1.3 shows less than expected', '3.1.3'],
    ['built from git: iperf version 3.1-RC2 (2015)', '3.1-RC2'],
    ['$ iperf3 --version\niperf 3.10.1 (cJSON 1.7.13)', '3.10.1'],
    ['server has iperf3 3.17.1, the client iperf3 3.6', '3.6'],
  ])('reads %j as %s (the oldest when several are named)', (prose, version) => {
    expect(statedIperf3Version(prose)).toBe(version);
  });

  it.each(['with iperf 3.5 Gbit/s is all I get', 'iperf 2.1.9 reaches line rate', 'iperf3 -P 4 -t 30', 'no tool named here, kernel 3.10'])(
    'names no iperf3 version in %j',
    (prose) => {
      expect(statedIperf3Version(prose)).toBeNull();
    },
  );
});

describe('statedToolRates', () => {
  it('gives each rate to the tool named last before it on its line', () => {
    const rates = statedToolRates('1) iperf 2.1.9 with -P 8 tops out at 23.5 Gbit/s 2) iperf3 -P 8 stays near 14 Gbps, see below');
    expect(rates).toEqual({ iperf2BestMbps: 23_500, iperf3BestMbps: 14_000, iperf2Faster: true, benchBestMbps: null, benchTool: null });
  });

  it('reads the comparison in words when no numbers are given', () => {
    for (const prose of [
      'On our 25G pair iperf3 gives much lower numbers than iperf2 does.',
      'iperf 2 is clearly faster than iperf3 here',
      'It seems iperf3 reports slow throughput compared with iperf 2.0.13',
    ])
      expect(statedToolRates(prose).iperf2Faster).toBe(true);
  });

  it("takes a rate nobody's name is on as iperf3's when iperf3 is the only tool in the text", () => {
    expect(statedToolRates('Testing with iperf3 between two boxes.\nI only get about 3.8 Gbits/sec on the 10G ports.')).toEqual({
      iperf3BestMbps: 3_800,
      iperf2BestMbps: null,
      iperf2Faster: false,
      benchBestMbps: null,
      benchTool: null,
    });
  });

  it('leaves unattributed rates alone when another tool is in the text, and ignores byte rates', () => {
    expect(statedToolRates('iperf3 was fine.\nscp copies run at 900 Mbit/s and 110 MBytes/sec.')).toEqual({
      iperf3BestMbps: null,
      iperf2BestMbps: null,
      iperf2Faster: false,
      benchBestMbps: null,
      benchTool: null,
    });
  });

  it("reads another benchmark's rate from a results table whose units sit in parentheses", () => {
    const table = [
      '| TOOL    | PROFILE    | STREAMS | MTU  | AVG                | P95                |',
      '| nuttcp  | tcp        | 16      | 1500 | 38120.5521 (Mb/s)  | 39001.1 (Mb/s)     |',
      '| iperf3  | tcp        | 16      | 1500 | 9120.004 (Mb/s)    | 9480.25 (Mb/s)     |',
    ].join('\n');
    expect(statedToolRates(table)).toEqual({
      iperf3BestMbps: 9480.25,
      iperf2BestMbps: null,
      iperf2Faster: false,
      benchBestMbps: 39001.1,
      benchTool: 'nuttcp',
    });
  });

  it('keeps a rate with its tool when a mailer wrapped the row onto the next line', () => {
    const wrapped = [
      '| nuttcp  | tcp        | 16      | 1500 |',
      '38120.5521 (Mb/s)  |',
      '| iperf3  | tcp        | 16      | 1500 |',
      '9120.004 (Mb/s)    |',
      '',
      'Later a copy ran at 700 Mbit/s.',
    ].join('\n');
    expect(statedToolRates(wrapped)).toMatchObject({ iperf3BestMbps: 9120.004, benchBestMbps: 38120.5521 });
  });

  it('gives netperf its rate in prose, and keeps file copies out of the benchmarks', () => {
    const rates = statedToolRates('With 8 instances netperf reaches 36 Gbps; iperf3 -P 8 only 11 Gbps.\nrsync runs at 800 Mbit/s.');
    expect(rates).toMatchObject({ benchBestMbps: 36_000, benchTool: 'netperf', iperf3BestMbps: 11_000 });
  });

  it('says nothing of an iperf 2 that is slower', () => {
    expect(statedToolRates('iperf2: 4.1 Gbps\niperf3: 9.3 Gbps').iperf2Faster).toBe(false);
  });
});
