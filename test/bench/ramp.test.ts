import { describe, expect, it } from 'vitest';
import { decideAfterStep, rampCounts } from '../../src/bench/ramp.js';
import { parsePorts, validateHost } from '../../src/bench/ports.js';
import { UsageError } from '../../src/util/errors.js';

const G = 1e9;

describe('ramp', () => {
  it('tries powers of two up to the maximum, and the maximum', () => {
    expect(rampCounts(1)).toEqual([1]);
    expect(rampCounts(4)).toEqual([1, 2, 4]);
    expect(rampCounts(6)).toEqual([1, 2, 4, 6]);
    expect(rampCounts(0)).toEqual([1]);
  });

  it('continues while each step gains at least 5 %', () => {
    expect(decideAfterStep([{ processes: 1, bitsPerSecond: 3 * G }], 9.4 * G, 2)).toEqual({ action: 'continue' });
    expect(
      decideAfterStep(
        [
          { processes: 1, bitsPerSecond: 3 * G },
          { processes: 2, bitsPerSecond: 5.9 * G },
        ],
        9.4 * G,
        1,
      ),
    ).toEqual({ action: 'continue' });
  });

  it('stops when a step gains less than 5 %, keeping the best step', () => {
    const decision = decideAfterStep(
      [
        { processes: 1, bitsPerSecond: 3 * G },
        { processes: 2, bitsPerSecond: 6 * G },
        { processes: 4, bitsPerSecond: 5.9 * G },
      ],
      9.4 * G,
      1,
    );
    expect(decision).toMatchObject({ action: 'stop', best: { processes: 2 } });
  });

  it('stops at 97 % of the goodput ceiling', () => {
    expect(decideAfterStep([{ processes: 1, bitsPerSecond: 9.2 * G }], 9.41 * G, 3)).toMatchObject({
      action: 'stop',
      best: { processes: 1 },
    });
  });

  it('ignores a nominal link speed that the traffic already exceeds (veth reports 10G and carries more)', () => {
    expect(
      decideAfterStep(
        [
          { processes: 1, bitsPerSecond: 5 * G },
          { processes: 2, bitsPerSecond: 12 * G },
        ],
        9.41 * G,
        2,
      ),
    ).toEqual({ action: 'continue' });
  });

  it('stops when nothing is left to add', () => {
    expect(decideAfterStep([{ processes: 1, bitsPerSecond: 1 * G }], null, 0)).toMatchObject({
      action: 'stop',
      reason: expect.stringMatching(/no more ports/),
    });
  });
});

describe('ports and hosts', () => {
  it('parses ranges and lists', () => {
    expect(parsePorts('5101-5104')).toEqual([5101, 5102, 5103, 5104]);
    expect(parsePorts('5105,5101-5102,5101')).toEqual([5101, 5102, 5105]);
  });

  it.each(['', 'abc', '5108-5101', '0-3', '70000', '1-1000'])('refuses --ports %j naming the option', (spec) => {
    expect(() => parsePorts(spec)).toThrow(UsageError);
    expect(() => parsePorts(spec)).toThrow(/--ports/);
  });

  it('accepts addresses and host names, refuses anything that could be an option or a path', () => {
    for (const host of ['10.0.0.2', '127.0.0.1', 'fe80::1%eth0', '::1', 'peer-1.example.org']) expect(validateHost(host)).toBe(host);
    for (const host of ['-c', '10.0.0.256', 'a;b', '../x', 'host name', '']) expect(() => validateHost(host)).toThrow(/--peer/);
  });
});
