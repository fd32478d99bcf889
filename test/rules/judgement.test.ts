import { describe, expect, it } from 'vitest';
import { bench, run } from './helpers.js';
import * as x from './fixtures.js';

/** Rule outcomes an experienced NIC engineer would give (issue 17, judgement items). */
describe('judgement: rules fire only on a real fault', () => {
  it('raises pcie-bandwidth-below-port from a "limited by" line only when its ceiling is below the port', () => {
    const ids = (carries: 'no' | 'shared' | 'yes' | 'unknown', port: number | null) =>
      run({ findings: [x.kernelPcieLimited(carries, port)] }).map((diagnosis) => diagnosis.ruleId);
    expect(ids('no', 100)).toContain('pcie-bandwidth-below-port');
    // One port fits, but not what the driver says all the card's ports need together (ixgbe's own line).
    expect(ids('shared', 25)).toContain('pcie-bandwidth-below-port');
    // 56 Gb/s of traffic carries a 25G port: the check's own numbers say so.
    expect(ids('yes', 25)).not.toContain('pcie-bandwidth-below-port');
    // No port speed from any source: a low-confidence "trained below its capability" that asks for it.
    expect(ids('unknown', null)).not.toContain('pcie-bandwidth-below-port');
    const unknown = run({ findings: [{ ...x.kernelPcieLimited('unknown', null), severity: 'warning' }] });
    expect(unknown.map((diagnosis) => [diagnosis.ruleId, diagnosis.confidence])).toEqual([['pcie-link-downgraded', 'low']]);
    expect(unknown[0]!.fixes[0]!.text).toMatch(/^Give the port speed to judge it: ethtool enp65s0f0/);
    expect(ids('yes', 25)).toContain('pcie-link-downgraded');
  });

  it('judges an overlay MTU by its overhead: a mismatch diagnosis only when it does not fit; MTU probing off is a low note', () => {
    const overlay = run({ findings: [x.overlayTooBig] });
    expect(overlay.map((diagnosis) => [diagnosis.ruleId, diagnosis.subject])).toEqual([['mtu-mismatch', 'vxlan100']]);
    expect(overlay[0]!.explanation).toContain('vxlan adds 50 bytes and the largest underlay MTU is 1500 (eth0)');
    const probing = run({ findings: [{ ...x.mtuProbingOff, severity: 'info' }] });
    expect(probing.map((diagnosis) => [diagnosis.ruleId, diagnosis.confidence, diagnosis.severity])).toEqual([
      ['mtu-probing-off', 'low', 'info'],
    ]);
  });

  it('does not call unexamined checks clean: retransmits without local drops say which checks could look', () => {
    const [path] = run({ findings: [x.retransmits], bench: bench() }).filter((diagnosis) => diagnosis.ruleId === 'retransmits-path-loss');
    const text = path!.explanation;
    expect(text).not.toContain('all clean');
    expect(text).not.toContain('no check found');
    expect(text).toContain('the checks that could examine this host');
  });
});
