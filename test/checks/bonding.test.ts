import { describe, expect, it } from 'vitest';
import bonding from '../../checks/bonding.js';
import { parseProcBonding, type BondStatus } from '../../src/parsers/proc-bonding.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const tester = checkTester(bonding);
const bond = (name: string, file: string) => parseProcBonding(name, realCapture(`bonding/${file}`));
const run = (bonds: BondStatus[]) => tester.run({ 'bond.status': bonds }, { interfaces: [] });

describe('bonding check (/proc/net/bonding)', () => {
  it('an 802.3ad member in another aggregator than the active one carries no traffic (real networkd capture)', async () => {
    const result = await run([bond('bond0', '8023ad-aggregator-split-networkd-1.txt')]);
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'member-not-aggregated',
        subject: 'bond0',
        severity: 'warning',
        data: expect.objectContaining({ member: 'enp7s0', aggregatorId: 1, activeAggregatorId: 2 }),
      }),
    ]);
    expect(result.findings[0]!.message).toBe('bond0 (802.3ad): member enp7s0 carries no traffic: it is in aggregator 1, not the active 2');
  });

  it('no active aggregator: every member is outside it; the layer2 hash is a note with its fix', async () => {
    const result = await run([bond('bond0', '8023ad-no-active-aggregator-layer2-1.txt')]);
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['member-not-aggregated', 'warning'],
      ['member-not-aggregated', 'warning'],
      ['layer2-hash', 'info'],
    ]);
    expect(result.findings[2]!.fix).toContain('cat /sys/class/net/bond0/bonding/xmit_hash_policy');
  });

  it('every member down: critical; a member with one link failure is a note', async () => {
    const down = await run([bond('bond666', 'active-backup-both-members-down-1.txt')]);
    expect(down.findings.map((finding) => [finding.symptom, finding.severity, finding.data.member])).toEqual([
      ['member-down', 'critical', 'eno1'],
      ['member-down', 'critical', 'eno2'],
    ]);
    const once = await run([bond('bond0', 'active-backup-healthy-1g-one-failure-1.txt')]);
    expect(once.findings).toEqual([
      expect.objectContaining({
        symptom: 'member-link-failures',
        severity: 'info',
        data: expect.objectContaining({ member: 'p1p2', linkFailures: 1 }),
      }),
    ]);
  });

  it('a member slower than the others, and one down while another is up: warnings', async () => {
    const real = bond('bond-iscsi', 'active-backup-healthy-25g-1.txt');
    const mixed: BondStatus = {
      ...real,
      members: [
        real.members[0]!,
        { ...real.members[1]!, speedMbps: 10000 },
        { ...real.members[1]!, name: 'ens6f2', miiUp: false, speedMbps: null },
      ],
    };
    const result = await run([mixed]);
    expect(result.findings.map((finding) => [finding.symptom, finding.severity])).toEqual([
      ['member-down', 'warning'],
      ['member-slower', 'warning'],
    ]);
    expect(result.findings[1]!.message).toBe(
      'bond-iscsi (active-backup): member ens6f1 runs at 10000 Mb/s while the fastest runs at 25000 Mb/s',
    );
  });

  it('passes a healthy 25G active-backup bond and is not applicable without bonds (a VM, a container)', async () => {
    const healthy = await run([bond('bond-iscsi', 'active-backup-healthy-25g-1.txt')]);
    expect(healthy.status).toBe('pass');
    expect(healthy.findings).toEqual([]);
    expect((await run([])).status).toBe('not-applicable');
  });
});
