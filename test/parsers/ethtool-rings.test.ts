import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseEthtoolRingBlocks, parseEthtoolRings, type RingSizes } from '../../src/parsers/ethtool-rings.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

// veth answers "Operation not supported": that is the collector's job (runTool), not the parser's.
const captures = [...realCaptures('ethtool', /-g-/), ...realCaptures('local-vm', /^ethtool_-g-(?!veth)/)];

const sizes = (rx: number | null, rxMini: number | null, rxJumbo: number | null, tx: number | null): RingSizes => ({
  rx,
  rxMini,
  rxJumbo,
  tx,
});
const old = (rx: number, tx: number, rxJumbo = 0): RingSizes => sizes(rx, 0, rxJumbo, tx);
const na = (rx: number, tx: number): RingSizes => sizes(rx, null, null, tx);
const none = sizes(null, null, null, null);

// [interface, max, current] for every capture (SOURCES.md lists the below-max ones).
const expected: Record<string, [string, RingSizes, RingSizes]> = {
  'ethtool/atlantic-aqc113-g-newfmt-1.txt': ['eth0', na(8184, 8184), na(2048, 4096)],
  'ethtool/atlantic-aqc113-g-newfmt-2.txt': ['eth0', na(8184, 8184), na(8184, 8184)],
  'ethtool/be2net-g-netutils-mlx4-be2net-2xE5-2690-eth4.txt': ['eth4', old(0, 2048), old(0, 2048)],
  'ethtool/bnx2-g-netutils-mlx4-cx3pro-2xX5650-eth0.txt': ['eth0', old(2040, 255, 8160), old(255, 255)],
  'ethtool/bnx2-g-netutils-mlx4-cx3pro-2xX5650-eth1.txt': ['eth1', old(2040, 255, 8160), old(2040, 255)],
  'ethtool/e1000-g-netutils-i350-r8169-mixed-i3-eth4.txt': ['eth4', old(4096, 4096), old(256, 256)],
  'ethtool/e1000-g-netutils-kvm-e1000-guest-eth0.txt': ['eth0', old(4096, 4096), old(256, 256)],
  'ethtool/e1000-g-netutils-kvm-e1000-guest-eth1.txt': ['eth1', old(4096, 4096), old(4096, 256)],
  'ethtool/e1000e-g-netutils-igb-82576-2xE5530-eth0.txt': ['eth0', old(4096, 4096), old(256, 256)],
  'ethtool/e1000e-g-netutils-x710-e3-1271-eth2.txt': ['eth2', old(4096, 4096), old(256, 256)],
  'ethtool/i40e-g-netutils-x710-e3-1271-eth0.txt': ['eth0', old(4096, 4096), old(2048, 512)],
  'ethtool/i40e-g-netutils-x710-e3-1271-eth1.txt': ['eth1', old(4096, 4096), old(512, 512)],
  'ethtool/igb-g-netutils-i350-r8169-mixed-i3-eth6.txt': ['eth6', old(4096, 4096), old(4096, 256)],
  'ethtool/igb-g-netutils-i350-r8169-mixed-i3-eth7.txt': ['eth7', old(4096, 4096), old(256, 256)],
  'ethtool/igb-g-netutils-igb-82576-2xE5530-eth2.txt': ['eth2', old(4096, 4096), old(256, 256)],
  'ethtool/igb-g-netutils-igb-82576-2xE5530-eth3.txt': ['eth3', old(4096, 4096), old(2048, 256)],
  'ethtool/igb-g-netutils-ixgbe-82599-2xE5-2640-eth0.txt': ['eth0', old(4096, 4096), old(256, 256)],
  'ethtool/igb-g-netutils-ixgbe-82599-2xE5-2640-eth1.txt': ['eth1', old(4096, 4096), old(4096, 256)],
  'ethtool/igb-g-netutils-x710-e3-1271-eth3.txt': ['eth3', old(4096, 4096), old(256, 256)],
  'ethtool/ixgbe-g-netutils-ixgbe-82599-2xE5-2640-eth2.txt': ['eth2', old(4096, 4096), old(4096, 512)],
  'ethtool/mlx4_en-g-netutils-mlx4-be2net-2xE5-2690-eth6.txt': ['eth6', old(8192, 8192), old(8192, 8192)],
  'ethtool/mlx4_en-g-netutils-mlx4-cx3pro-2xX5650-eth2.txt': ['eth2', old(8192, 8192), old(8192, 512)],
  'ethtool/mlx5_core-g-ohai-1.txt': ['eth0', old(8192, 8192), old(8192, 8192)],
  'ethtool/qlcnic-g-netutils-qlcnic-2xE5-2687W-eth0.txt': ['eth0', old(8192, 1024, 1024), old(4096, 1024, 1024)],
  // Pasted without the current settings.
  'ethtool/r8168-g-partial-1.txt': ['enp1s0', na(1024, 1024), none],
  'ethtool/r8169-g-partial-1.txt': ['enp1s0', na(255, 255), none],
  'ethtool/skge-g-netutils-i350-r8169-mixed-i3-eth5.txt': ['eth5', old(4096, 1024), old(512, 128)],
  'ethtool/tg3-g-netutils-mlx4-be2net-2xE5-2690-eth0.txt': ['eth0', old(2047, 511), old(2047, 511)],
  'ethtool/tg3-g-netutils-mlx4-be2net-2xE5-2690-eth2.txt': ['eth2', old(2047, 511), old(200, 511)],
  'ethtool/tg3-g-netutils-qlcnic-2xE5-2687W-eth4.txt': ['eth4', old(2047, 511), old(200, 511)],
  'ethtool/unknown-g-json-1.json': ['ens5f1np1', sizes(8192, null, null, 8192), sizes(1024, null, null, 1024)],
  'ethtool/unknown-g-twoifaces-oldfmt-1.txt': ['eth0', old(4096, 4096), old(4096, 4096)],
  'ethtool/viona-virtio-g-1.txt': ['eth0', na(256, 2048), na(256, 2048)],
  'ethtool/viona-virtio-g-2.txt': ['eth0', na(2048, 256), na(2048, 256)],
  'local-vm/ethtool_-g-virtio_net-eth0.txt': ['eth0', na(256, 256), na(256, 256)],
};

describe('parseEthtoolRings over every real capture', () => {
  it('has an expectation for every ethtool -g capture', () => {
    expect(captures.length).toBeGreaterThanOrEqual(35);
    expect(captures.filter((name) => !(name in expected))).toEqual([]);
  });

  it.each(captures)('%s', (name) => {
    const [iface, max, current] = expected[name]!;
    const parsed = parseEthtoolRings(realCapture(name));
    expect({ interface: parsed.interface, max: parsed.max, current: parsed.current }).toEqual({ interface: iface, max, current });
  });
});

describe('parseEthtoolRings details', () => {
  it('reads the newest format without section headers: first group maximums, second current', () => {
    const parsed = parseEthtoolRings(realCapture('ethtool/atlantic-aqc113-g-newfmt-1.txt'));
    expect(parsed).toEqual({
      interface: 'eth0',
      max: na(8184, 8184),
      current: na(2048, 4096),
      rxBufLen: null,
      cqeSize: null,
      txPush: false,
      rxPush: false,
      tcpDataSplit: null,
    });
  });

  it('reads the extra fields of the netlink format', () => {
    const parsed = parseEthtoolRings(realCapture('local-vm/ethtool_-g-virtio_net-eth0.txt'));
    expect(parsed).toMatchObject({ txPush: false, rxPush: null, rxBufLen: null, cqeSize: null, tcpDataSplit: null });
    const json = parseEthtoolRings(realCapture('ethtool/unknown-g-json-1.json'));
    expect(json).toMatchObject({ txPush: false, rxPush: false, tcpDataSplit: 'off' });
  });

  it('exposes every block of a concatenated capture and picks the one asked for', () => {
    const text = realCapture('ethtool/unknown-g-twoifaces-oldfmt-1.txt');
    expect(parseEthtoolRingBlocks(text).map((block) => block.interface)).toEqual(['eth0', 'eth1']);
    expect(parseEthtoolRings(text, 'eth1').interface).toBe('eth1');
    expect(parseEthtoolRings(text, 'eth9').interface).toBe('eth0');
  });

  it('reads output without the "Ring parameters" header', () => {
    const parsed = parseEthtoolRings('Pre-set maximums:\nRX:\t\t4096\nTX:\t\t4096\nCurrent hardware settings:\nRX:\t\t512\nTX:\t\t512\n');
    expect(parsed).toMatchObject({ interface: null, max: sizes(4096, null, null, 4096), current: sizes(512, null, null, 512) });
  });

  it.each([
    ['empty output', ''],
    ['an ethtool error', 'netlink error: Operation not supported\n'],
    ['garbage', 'hello world\nfoo: bar\n'],
    ['a non-numeric ring size', 'Ring parameters for eth0:\nPre-set maximums:\nRX:\t\tlots\n'],
    ['a field repeated in the current settings', 'Pre-set maximums:\nRX:\t\t4096\nCurrent hardware settings:\nRX:\t\t512\nRX:\t\t256\n'],
    ['truncated JSON', '[ {\n "ifname": "eth0",\n "rx-max": 81'],
    ['JSON with a non-numeric size', '[ { "ifname": "eth0", "rx-max": "8192" } ]'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolRings(text)).toThrow(ParseError);
  });
});
