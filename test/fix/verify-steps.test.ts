import { describe, expect, it } from 'vitest';
import type { FixPlan } from '../../src/fix/plan.js';
import { selectSteps } from '../../src/fix/verify-steps.js';
import { changes } from './fake-fix-host.js';

const [offloads] = changes({ kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'], off: [] });
const [other] = changes({ kind: 'ethtool-channels', iface: 'eth1', rx: '8', tx: '8' });
const [unexamined] = changes({ kind: 'ethtool-channels', iface: 'eth7', rx: '8', tx: '8' });
const [rmem] = changes({ kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 131072 16777216' });
const [rings] = changes({ kind: 'ethtool-rings', iface: 'eth0', rx: '4096', tx: '4096' });

/** The parts of a plan step selection reads, in diagnosis order rss, rings, offloads, tcp. */
function plan(): FixPlan {
  const diagnosis = (ruleId: string) => ({ diagnosis: { ruleId }, because: [], fixes: [] });
  return {
    diagnoses: ['rss', 'rings', 'offloads', 'tcp'].map(diagnosis),
    apply: [
      { ...rmem!, ruleId: 'tcp' },
      { ...offloads!, ruleId: 'offloads' },
      { ...other!, ruleId: 'rss' },
      { ...unexamined!, ruleId: 'rss' },
    ],
    disruptiveApply: [{ ...rings!, ruleId: 'rings' }],
    notApplied: [{ text: 'echo f > /sys/class/net/eth0/queues/rx-0/rps_cpus', ruleId: 'rps', reason: 'writes rps_cpus in sysfs' }],
  } as unknown as FixPlan;
}

describe('selectSteps', () => {
  it('one step per diagnosis in diagnosis order; unmeasurable, unexamined and disruptive changes are left out with the reason', () => {
    const selection = selectSteps(plan(), { examined: new Set(['eth0', 'eth1']), benchInterface: 'eth0', allowDisruptive: false });
    expect(selection.steps.map((step) => [step.ruleId, step.changes.length, step.disruptive])).toEqual([
      ['offloads', 1, false],
      ['tcp', 1, false],
    ]);
    const notes = selection.notes.join('\n');
    expect(notes).toMatch(/ethtool -L eth1 rx 8 tx 8 \(rss\): the bench traffic leaves by eth0, not eth1/);
    expect(notes).toMatch(/eth7 was not examined/);
    expect(notes).toMatch(/ethtool -G eth0 .*disruptive.*--allow-disruptive/);
    expect(notes).toMatch(/rps_cpus/);
  });

  it('--allow-disruptive adds the disruptive step at its diagnosis rank; loopback measures sysctl changes only', () => {
    const allowed = selectSteps(plan(), { examined: new Set(['eth0', 'eth1']), benchInterface: 'eth0', allowDisruptive: true });
    expect(allowed.steps.map((step) => [step.ruleId, step.disruptive])).toEqual([
      ['rings', true],
      ['offloads', false],
      ['tcp', false],
    ]);
    const loopback = selectSteps(plan(), { examined: new Set(['eth0', 'eth1']), benchInterface: null, allowDisruptive: true });
    expect(loopback.steps.map((step) => step.ruleId)).toEqual(['tcp']);
    expect(loopback.notes.join('\n')).toMatch(/loopback bench does not cross eth0/);
  });
});
