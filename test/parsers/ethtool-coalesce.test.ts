import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseEthtoolCoalesce } from '../../src/parsers/ethtool-coalesce.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

// veth answers "Operation not supported": that is the collector's job (runTool), not the parser's.
const captures = [...realCaptures('ethtool', /-c-/), ...realCaptures('local-vm', /^ethtool_-c-(?!veth)/)];

type Row = [
  iface: string,
  adaptiveRx: boolean | null,
  adaptiveTx: boolean | null,
  rxUsecs: number | null,
  rxFrames: number | null,
  txUsecs: number | null,
  txFrames: number | null,
];

const expected: Record<string, Row> = {
  'ethtool/be2net-c-netutils-mlx4-be2net-2xE5-2690-eth4.txt': ['eth4', true, true, 0, 0, 0, 0],
  'ethtool/bnx2-c-netutils-mlx4-cx3pro-2xX5650-eth0.txt': ['eth0', false, false, 18, 12, 80, 20],
  'ethtool/e1000-c-netutils-i350-r8169-mixed-i3-eth4.txt': ['eth4', false, false, 3, 0, 0, 0],
  'ethtool/e1000-c-netutils-kvm-e1000-guest-eth0.txt': ['eth0', false, false, 0, 0, 0, 0],
  'ethtool/e1000e-c-netutils-igb-82576-2xE5530-eth0.txt': ['eth0', false, false, 3, 0, 0, 0],
  'ethtool/e1000e-c-netutils-x710-e3-1271-eth2.txt': ['eth2', false, false, 3, 0, 0, 0],
  'ethtool/i40e-c-netutils-x710-e3-1271-eth0.txt': ['eth0', true, true, 25, 0, 25, 0],
  'ethtool/igb-c-netutils-i350-r8169-mixed-i3-eth6.txt': ['eth6', false, false, 3, 0, 0, 0],
  'ethtool/igb-c-netutils-igb-82576-2xE5530-eth2.txt': ['eth2', false, false, 3, 0, 0, 0],
  'ethtool/igb-c-netutils-ixgbe-82599-2xE5-2640-eth0.txt': ['eth0', false, false, 3, 0, 0, 0],
  'ethtool/igb-c-netutils-x710-e3-1271-eth3.txt': ['eth3', false, false, 3, 0, 0, 0],
  'ethtool/ixgbe-c-netutils-ixgbe-82599-2xE5-2640-eth2.txt': ['eth2', false, false, 1, 0, 0, 0],
  // Blank lines between every field (as published); "Adaptive RX: on TX: off" with one space.
  'ethtool/mlx4_en-c-adaptive-gcode-1.txt': ['eth2', true, false, 16, 88, 0, 0],
  'ethtool/mlx4_en-c-netutils-mlx4-be2net-2xE5-2690-eth6.txt': ['eth6', true, false, 16, 44, 16, 16],
  'ethtool/mlx4_en-c-netutils-mlx4-cx3pro-2xX5650-eth2.txt': ['eth2', true, false, 16, 44, 16, 16],
  'ethtool/mlx5_core-c-ohai-1.txt': ['eth0', true, false, 33, 88, 8, 128],
  'ethtool/qlcnic-c-netutils-qlcnic-2xE5-2687W-eth0.txt': ['eth0', false, false, 3, 256, 0, 0],
  'ethtool/skge-c-netutils-i350-r8169-mixed-i3-eth5.txt': ['eth5', false, false, 0, 0, 99, 0],
  'ethtool/tg3-c-netutils-mlx4-be2net-2xE5-2690-eth0.txt': ['eth0', false, false, 20, 5, 72, 53],
  'ethtool/tg3-c-netutils-qlcnic-2xE5-2687W-eth4.txt': ['eth4', false, false, 20, 5, 72, 53],
  'ethtool/unknown-c-newfmt-cqe-1.txt': ['enp1s0', null, null, 3, null, 3, null],
  'local-vm/ethtool_-c-virtio_net-eth0.txt': ['eth0', false, null, 0, 1, 0, 1],
};

describe('parseEthtoolCoalesce over every real capture', () => {
  it('has an expectation for every ethtool -c capture', () => {
    expect(captures.length).toBeGreaterThanOrEqual(22);
    expect(captures.filter((name) => !(name in expected))).toEqual([]);
  });

  it.each(captures)('%s', (name) => {
    const [iface, adaptiveRx, adaptiveTx, rxUsecs, rxFrames, txUsecs, txFrames] = expected[name]!;
    const parsed = parseEthtoolCoalesce(realCapture(name));
    expect(parsed).toMatchObject({ interface: iface, adaptiveRx, adaptiveTx, rxUsecs, rxFrames, txUsecs, txFrames });
    // Every capture prints the full set of 20 numeric parameters.
    expect(Object.keys(parsed.values)).toHaveLength(20);
  });
});

describe('parseEthtoolCoalesce details', () => {
  it('keeps every parameter, n/a as null, and the CQE mode line of newer ethtool', () => {
    const parsed = parseEthtoolCoalesce(realCapture('local-vm/ethtool_-c-virtio_net-eth0.txt'));
    expect(parsed.values['rx-usecs-irq']).toBeNull();
    expect(parsed.values['tx-frames']).toBe(1);
    expect(parsed).toMatchObject({ cqeModeRx: null, cqeModeTx: null });
    const mlx4 = parseEthtoolCoalesce(realCapture('ethtool/mlx4_en-c-adaptive-gcode-1.txt'));
    expect(mlx4.values).toMatchObject({ 'pkt-rate-low': 400000, 'pkt-rate-high': 450000, 'rx-usecs-high': 128 });
  });

  it('reads CQE mode on/off', () => {
    const parsed = parseEthtoolCoalesce('Coalesce parameters for eth0:\nAdaptive RX: on  TX: on\nrx-usecs: 8\nCQE mode RX: on  TX: off\n');
    expect(parsed).toMatchObject({ adaptiveRx: true, adaptiveTx: true, rxUsecs: 8, cqeModeRx: true, cqeModeTx: false });
  });

  it.each([
    ['empty output', ''],
    ['an ethtool error', 'netlink error: Operation not supported\n'],
    ['garbage', 'hello world\nfoo bar\n'],
    ['a header only (truncated)', 'Coalesce parameters for eth0:\n'],
    ['a non-numeric value', 'Coalesce parameters for eth0:\nAdaptive RX: off  TX: off\nrx-usecs: fast\n'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolCoalesce(text)).toThrow(ParseError);
  });
});
