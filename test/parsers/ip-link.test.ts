import { describe, expect, it } from 'vitest';
import { parseIpLink } from '../../src/parsers/ip-link.js';
import { realCapture } from '../helpers/fixtures.js';

describe('parseIpLink (ip -d -s link show)', () => {
  it('reads a KVM guest: virtio eth0 with its parent bus and counters, ifb kinds, loopback', () => {
    const links = parseIpLink(realCapture('ip/ip-d-s-link-kvm-virtio-ifb-1.txt'));
    const byName = new Map(links.map((link) => [link.name, link]));
    expect(byName.get('lo')).toMatchObject({ linkType: 'loopback', kind: null });
    expect(byName.get('ifb0')).toMatchObject({ kind: 'ifb', state: 'down', flags: ['BROADCAST', 'NOARP'] });
    const eth0 = byName.get('eth0')!;
    expect(eth0).toMatchObject({ kind: null, parentBus: 'virtio', mtu: 1400, state: 'up', linkType: 'ether' });
    expect(eth0.flags).toContain('UP');
    expect(Object.keys(eth0.rx!)).toEqual(['bytes', 'packets', 'errors', 'dropped', 'missed', 'mcast']);
    expect(Object.keys(eth0.tx!)).toEqual(['bytes', 'packets', 'errors', 'dropped', 'carrier', 'collsns']);
  });

  it('reads software kinds, peers and masters in a namespace: veth@peer, bridge_slave, vxlan, bridge', () => {
    const links = parseIpLink(realCapture('ip/ip-d-s-link-netns-veth-vxlan-bridge-1.txt'));
    const byName = new Map(links.map((link) => [link.name, link]));
    expect(byName.get('v1')).toMatchObject({ kind: 'veth', lower: 'v2', master: 'br9', slaveKind: 'bridge_slave' });
    expect(byName.get('v2')).toMatchObject({ kind: 'veth', lower: 'v1', master: null });
    expect(byName.get('vx1')).toMatchObject({ kind: 'vxlan' });
    expect(byName.get('br9')).toMatchObject({ kind: 'bridge' });
  });

  it('rejects text without an interface header, and reads an empty output as no interfaces', () => {
    expect(() => parseIpLink('RX: bytes packets\n 1 2\n')).toThrow(/no interface header/);
    expect(parseIpLink('')).toEqual([]);
  });
});
