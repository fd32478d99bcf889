import { describe, expect, it } from 'vitest';
import { ethtoolPauseCollector } from '../../src/collectors/ethtool-pause.js';
import { FactStore } from '../../src/contracts/collector.js';
import { ParseError } from '../../src/contracts/facts.js';
import { parseEthtoolPause } from '../../src/parsers/ethtool-pause.js';
import { silentLogger } from '../../src/util/log.js';
import { fakeHost } from '../helpers/fake-host.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

// The only real capture answers "Operation not supported" (virtio_net); the text forms below
// follow ethtool's own format strings (netlink/pause.c: "Autonegotiate:\t%s", "RX:\t\t%s",
// "RX negotiated: %s"; the ioctl form of ethtool < 5.7 has no negotiated lines).
const NETLINK_ICE_STYLE =
  'Pause parameters for ens1f0:\nAutonegotiate:\ton\nRX:\t\toff\nTX:\t\toff\nRX negotiated: off\nTX negotiated: off\n';
const NETLINK_WITH_STATS =
  'Pause parameters for enp3s0:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\ton\nRX negotiated: on\nTX negotiated: off\nStatistics:\n  tx_pause_frames: 12\n  rx_pause_frames: 0\n';
const IOCTL_OLD = 'Pause parameters for eth2:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n\n';

describe('parseEthtoolPause', () => {
  it.each([
    [
      'netlink output, all off',
      NETLINK_ICE_STYLE,
      { interface: 'ens1f0', autonegotiate: true, rx: false, tx: false, rxNegotiated: false, txNegotiated: false },
    ],
    [
      'netlink output with statistics (-I)',
      NETLINK_WITH_STATS,
      { interface: 'enp3s0', autonegotiate: true, rx: true, tx: true, rxNegotiated: true, txNegotiated: false },
    ],
    [
      'ioctl output without negotiated lines',
      IOCTL_OLD,
      { interface: 'eth2', autonegotiate: false, rx: true, tx: true, rxNegotiated: null, txNegotiated: null },
    ],
    [
      'a space before the colon',
      'Pause parameters for eth0:\nAutonegotiate : on\nRX:             off\nTX:             on\n',
      { interface: 'eth0', autonegotiate: true, rx: false, tx: true, rxNegotiated: null, txNegotiated: null },
    ],
    [
      'the JSON form',
      '[ {\n  "ifname": "eth0",\n  "autonegotiate": true,\n  "rx": true,\n  "tx": false,\n  "negotiated": { "rx": true, "tx": false }\n} ]\n',
      { interface: 'eth0', autonegotiate: true, rx: true, tx: false, rxNegotiated: true, txNegotiated: false },
    ],
  ])('reads %s', (_, text, expected) => {
    expect(parseEthtoolPause(text)).toEqual(expected);
  });

  it.each(realCaptures('local-vm', /^ethtool_-a-/))(
    'throws ParseError on the unsupported answer in %s (the collector maps the exit code first)',
    (name) => {
      expect(() => parseEthtoolPause(realCapture(name))).toThrow(ParseError);
    },
  );

  it.each([
    ['empty output', ''],
    ['garbage', 'hello world\nfoo: bar\n'],
    ['a header only (truncated)', 'Pause parameters for eth0:\n'],
    ['an unexpected value', 'Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\tmaybe\nTX:\t\ton\n'],
    ['truncated JSON', '[ { "ifname": "eth0", "rx": tr'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolPause(text)).toThrow(ParseError);
  });
});

describe('ethtool.pause collector', () => {
  function storeAnswering(stdout: string, stderr: string, exitCode: number, seen: string[][] = []) {
    const io = fakeHost({
      commands: (argv) => {
        seen.push(argv);
        return { exitCode, stdout, stderr };
      },
    });
    return new FactStore(io, [ethtoolPauseCollector], silentLogger());
  }

  it('runs ethtool -a <if> and parses it', async () => {
    const seen: string[][] = [];
    const result = await storeAnswering(NETLINK_ICE_STYLE, '', 0, seen).get('ethtool.pause', 'ens1f0');
    expect(seen).toEqual([['ethtool', '-a', 'ens1f0']]);
    expect(result).toMatchObject({
      ok: true,
      value: { rx: false, tx: false },
      sources: [{ kind: 'command', argv: ['ethtool', '-a', 'ens1f0'] }],
    });
  });

  it('turns the real virtio_net answer into an "unsupported" fact error', async () => {
    const result = await storeAnswering('', realCapture('local-vm/ethtool_-a-virtio_net-eth0.txt'), 1).get('ethtool.pause', 'eth0');
    expect(result).toMatchObject({ ok: false, error: { kind: 'unsupported' } });
  });
});
