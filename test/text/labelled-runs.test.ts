import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { offloadRunsDiffer, runLabel } from '../../src/text/labelled-runs.js';
import { segment } from '../../src/text/segment.js';
import { FIXTURES } from '../helpers/fixtures.js';

// A real ticket (fixtures/eval): two iperf3 runs under "开启 TSO 前：" / "开启 TSO 后：" (before / after enabling TSO).
const ticket = readFileSync(path.join(FIXTURES, 'eval', 'gh-yaof-nanopi-r4s-r8168-tso-off-tx-762mbit', 'ticket.txt'), 'utf8');
const lines = ticket.split('\n');
const runs = segment(ticket).segments.filter((part) => part.kind === 'iperf3-text');

describe('runs pasted under labels that name an offload', () => {
  it('finds the label above each run, past the fence and the prompt line', () => {
    expect(runs.map((run) => runLabel(lines, run.firstLine))).toEqual(['开启 TSO 前：', '开启 TSO 后：']);
  });

  it("calls it the poster's test of the offload when the labelled runs differ a lot, and not otherwise", () => {
    const at = (first: number, second: number) =>
      offloadRunsDiffer(ticket, [
        { firstLine: runs[0]!.firstLine, bitsPerSecond: first },
        { firstLine: runs[1]!.firstLine, bitsPerSecond: second },
      ]);
    expect(at(762e6, 926e6)).toBe(true);
    expect(at(900e6, 926e6)).toBe(false);
    // Labels that name no offload ("before:", "after:") are no offload test.
    expect(
      offloadRunsDiffer(ticket.replaceAll('TSO', 'the fix'), [
        { firstLine: runs[0]!.firstLine, bitsPerSecond: 762e6 },
        { firstLine: runs[1]!.firstLine, bitsPerSecond: 926e6 },
      ]),
    ).toBe(false);
  });
});
