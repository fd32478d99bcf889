import { describe, expect, it } from 'vitest';
import conntrackTable from '../../checks/conntrack-table.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';

const tester = checkTester(conntrackTable);

describe('conntrack-table check', () => {
  // Real values: a Kubernetes VM and an OpenStack compute host (their sosreports' sysctl -a), and this project's KVM guest.
  it.each([
    [832, 131_072],
    [1498, 1_000_000],
    [0, 262_144],
  ])('passes %i of %i entries', async (count, max) => {
    const result = await tester.run({ 'net.conntrack': { count, max } });
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('notes a table 80 % full, warns at 95 %, and is critical when full', async () => {
    const at = async (count: number) => (await tester.run({ 'net.conntrack': { count, max: 65_536 } })).findings;
    expect(await at(54_000)).toEqual([
      expect.objectContaining({ symptom: 'conntrack-near-full', severity: 'info', data: { count: 54_000, max: 65_536, percent: 82.4 } }),
    ]);
    expect(await at(63_000)).toEqual([expect.objectContaining({ severity: 'warning' })]);
    const full = await at(65_536);
    expect(full).toEqual([expect.objectContaining({ severity: 'critical' })]);
    expect(full[0]!.message).toContain('holds 65536 of 65536 entries (100 %)');
  });

  it('does not apply without nf_conntrack loaded, and is unknown when it could not be read', async () => {
    expect((await tester.run({ 'net.conntrack': failed('unsupported', 'nf_conntrack is not loaded') })).status).toBe('not-applicable');
    expect((await tester.run({ 'net.conntrack': failed('not-captured') })).status).toBe('unknown');
    expect((await tester.run({ 'net.conntrack': { count: 0, max: 0 } })).status).toBe('unknown');
  });
});
