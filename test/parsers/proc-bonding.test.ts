import { describe, expect, it } from 'vitest';
import { parseProcBonding } from '../../src/parsers/proc-bonding.js';
import { ParseError } from '../../src/parsers/parse-error.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

describe('parseProcBonding over real /proc/net/bonding files', () => {
  it.each(realCaptures('bonding'))('%s parses with a mode and its members', (file) => {
    const bond = parseProcBonding('bond0', realCapture(file));
    expect(bond.mode).not.toBe('unknown');
    expect(bond.members.length).toBeGreaterThan(0);
  });

  it('802.3ad: the active aggregator and a member in another one', () => {
    const bond = parseProcBonding('bond0', realCapture('bonding/8023ad-aggregator-split-networkd-1.txt'));
    expect(bond).toMatchObject({ mode: '802.3ad', hashPolicy: 'layer3+4', activeAggregatorId: 2, noActiveAggregator: false });
    expect(bond.members).toEqual([
      expect.objectContaining({ name: 'enp7s0', miiUp: true, speedMbps: 1000, aggregatorId: 1, linkFailures: 0 }),
    ]);
  });

  it('802.3ad with no active aggregator, layer2 hash, members without speed', () => {
    const bond = parseProcBonding('bond0', realCapture('bonding/8023ad-no-active-aggregator-layer2-1.txt'));
    expect(bond).toMatchObject({ hashPolicy: 'layer2', noActiveAggregator: true, activeAggregatorId: null });
    expect(bond.members.map((member) => [member.name, member.aggregatorId, member.speedMbps])).toEqual([
      ['eth1', null, null],
      ['eth2', null, null],
    ]);
  });

  it('active-backup: the active member, "Speed: Unknown" and down members', () => {
    const down = parseProcBonding('bond666', realCapture('bonding/active-backup-both-members-down-1.txt'));
    expect(down).toMatchObject({ mode: 'active-backup', activeMember: null, miiUp: false });
    expect(down.members.every((member) => member.miiUp === false && member.speedMbps === null)).toBe(true);
    const healthy = parseProcBonding('bond-iscsi', realCapture('bonding/active-backup-healthy-25g-1.txt'));
    expect(healthy).toMatchObject({ activeMember: 'ens5f0', miiUp: true });
    expect(healthy.members.map((member) => member.speedMbps)).toEqual([25000, 25000]);
  });

  it('rejects a file that is not a bonding status', () => {
    expect(() => parseProcBonding('bond0', 'hello\nworld\n')).toThrow(ParseError);
  });
});
