import { describe, expect, it } from 'vitest';
import * as x from './fixtures.js';
import { finding, typedFinding } from './helpers.js';

describe('rule test fixtures', () => {
  it("carry the data their checks report, validated by the checks' schemas", () => {
    expect(x.pauseOff.data).toEqual({
      rx: 'off',
      tx: 'off',
      refused: false,
      driver: 'ice',
      speedMbps: 25000,
      offByDefault: true,
      curedByPoster: false,
    });
  });

  it('refuse data a check would not report: a renamed, missing or retyped field', () => {
    // The casts stand for a fixture written against an old schema (the compiler rejects it too).
    expect(() => typedFinding('mtu/mtu-below-standard', 'eth0', { mtu: 1450, standard: 1500 } as never)).toThrow(
      /fixture mtu\/mtu-below-standard: .*standardMtu/,
    );
    expect(() => typedFinding('flow-control/pause-off', 'eth0', { ...x.pauseOff.data, rx: 'maybe' } as never)).toThrow(/rx/);
  });

  it("render the check's own message from the data, so two fixtures on one interface are two findings", () => {
    const small = typedFinding('mtu/mtu-below-standard', 'eth0', { mtu: 1450, standardMtu: 1500 });
    const smaller = typedFinding('mtu/mtu-below-standard', 'eth0', { mtu: 1400, standardMtu: 1500 });
    expect(small.message).toContain('1450');
    expect(smaller.message).not.toBe(small.message);
    // The same data is the same finding (the engine merges findings that share check, symptom, subject and message).
    expect(finding('mtu/mtu-below-standard', 'eth0', { mtu: 1450, standardMtu: 1500 }).message).toBe(small.message);
  });
});
