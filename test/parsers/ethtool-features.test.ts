import { describe, expect, it } from 'vitest';
import { ethtoolFeaturesCollector } from '../../src/collectors/ethtool-features.js';
import { FactStore } from '../../src/contracts/collector.js';
import { ParseError } from '../../src/contracts/facts.js';
import { HostIOError } from '../../src/hostio/types.js';
import { parseEthtoolFeatures, type EthtoolFeatures } from '../../src/parsers/ethtool-features.js';
import { silentLogger } from '../../src/util/log.js';
import { fakeHost, type FakeAnswer } from '../helpers/fake-host.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [
  ...realCaptures('ethtool', /-k-/),
  ...realCaptures('local-vm', /^ethtool_-k-/),
  ...realCaptures('local-vm', /^ethtool_--json_-k-/),
];

type State = 'on' | 'off' | 'fixed' | 'requested' | 'absent';

function state(parsed: EthtoolFeatures, name: string): State {
  const feature = parsed.features[name];
  if (!feature) return 'absent';
  if (feature.active) return 'on';
  if (feature.fixed) return 'fixed';
  if (feature.requested) return 'requested';
  return 'off';
}

const KEY = [
  'rx-checksumming',
  'tx-checksumming',
  'scatter-gather',
  'tcp-segmentation-offload',
  'generic-segmentation-offload',
  'generic-receive-offload',
  'large-receive-offload',
];

// [interface, format, state of rx-csum, tx-csum, sg, tso, gso, gro, lro, number of features]
const expected: Record<string, [string, 'text' | 'json', State[], number]> = {
  'ethtool/bonding-k-insights-1.txt': ['bond0', 'text', ['fixed', 'on', 'on', 'on', 'requested', 'on', 'on'], 34],
  'ethtool/e1000e-k-hardware-1.txt': ['enp0s25', 'text', ['on', 'on', 'on', 'on', 'on', 'on', 'fixed'], 43],
  // SOURCES.md: all offloads disabled; TSO's sub-features are all [fixed], so TSO cannot be turned on.
  'ethtool/gianfar-k-alloff-partial-1.txt': ['eth0', 'text', ['off', 'off', 'off', 'fixed', 'off', 'off', 'fixed'], 38],
  // Filtered with grep -v fixed: LRO is missing.
  'ethtool/unknown-k-grepv-fixed-1.txt': ['eth1', 'text', ['on', 'on', 'on', 'on', 'on', 'on', 'absent'], 17],
  // SOURCES.md: csum/SG/TSO unavailable, GSO off [requested on].
  'ethtool/unknown-k-offloads-off-1.txt': ['eth1', 'text', ['fixed', 'fixed', 'fixed', 'fixed', 'requested', 'on', 'fixed'], 40],
  'local-vm/ethtool_-k-veth.txt': ['nd-va', 'text', ['on', 'on', 'on', 'on', 'on', 'off', 'fixed'], 63],
  'local-vm/ethtool_-k-virtio_net-eth0.txt': ['eth0', 'text', ['on', 'on', 'on', 'on', 'on', 'on', 'fixed'], 63],
  'local-vm/ethtool_--json_-k-virtio_net-eth0.json': ['eth0', 'json', ['on', 'on', 'on', 'on', 'on', 'on', 'fixed'], 63],
};

describe('parseEthtoolFeatures over every real capture', () => {
  it('has an expectation for every ethtool -k capture', () => {
    expect(captures.length).toBeGreaterThanOrEqual(8);
    expect(captures.filter((name) => !(name in expected))).toEqual([]);
  });

  it.each(captures)('%s', (name) => {
    const [iface, format, states, count] = expected[name]!;
    const parsed = parseEthtoolFeatures(realCapture(name));
    expect(parsed.interface).toBe(iface);
    expect(parsed.format).toBe(format);
    expect(KEY.map((key) => state(parsed, key))).toEqual(states);
    expect(Object.keys(parsed.features)).toHaveLength(count);
  });
});

describe('parseEthtoolFeatures details', () => {
  it('reads the same state from the text and the JSON form of one interface', () => {
    const text = parseEthtoolFeatures(realCapture('local-vm/ethtool_-k-virtio_net-eth0.txt'));
    const json = parseEthtoolFeatures(realCapture('local-vm/ethtool_--json_-k-virtio_net-eth0.json'));
    expect(Object.keys(json.features)).toEqual(Object.keys(text.features));
    for (const [name, feature] of Object.entries(text.features)) {
      const other = json.features[name]!;
      expect({ name, active: other.active, fixed: other.fixed, children: other.children }).toEqual({
        name,
        active: feature.active,
        fixed: feature.fixed,
        children: feature.children,
      });
    }
  });

  it('groups sub-features under their offload flag (tabs, 4 or 8 spaces)', () => {
    const virtio = parseEthtoolFeatures(realCapture('local-vm/ethtool_-k-virtio_net-eth0.txt'));
    expect(virtio.features['tcp-segmentation-offload']!.children).toEqual([
      'tx-tcp-segmentation',
      'tx-tcp-ecn-segmentation',
      'tx-tcp-mangleid-segmentation',
      'tx-tcp6-segmentation',
      'tx-tcp-accecn-segmentation',
    ]);
    const bond = parseEthtoolFeatures(realCapture('ethtool/bonding-k-insights-1.txt'));
    expect(bond.features['scatter-gather']!.children).toEqual(['tx-scatter-gather', 'tx-scatter-gather-fraglist']);
    const grepv = parseEthtoolFeatures(realCapture('ethtool/unknown-k-grepv-fixed-1.txt'));
    expect(grepv.features['tx-checksumming']!.children).toEqual(['tx-checksum-ipv4', 'tx-checksum-ipv6']);
    expect(grepv.features['generic-segmentation-offload']!.children).toEqual([]);
  });

  it('keeps the markers: [fixed], [requested on], and a group fixed only when all its sub-features are', () => {
    const off = parseEthtoolFeatures(realCapture('ethtool/unknown-k-offloads-off-1.txt'));
    expect(off.features['generic-segmentation-offload']).toEqual({ active: false, fixed: false, requested: true, children: [] });
    expect(off.features['rx-checksumming']).toEqual({ active: false, fixed: true, requested: null, children: [] });
    expect(off.features['tx-checksumming']).toMatchObject({ active: false, fixed: true, requested: false });
    const gianfar = parseEthtoolFeatures(realCapture('ethtool/gianfar-k-alloff-partial-1.txt'));
    // tx-checksum-ipv4 is changeable, so tx-checksumming is not fixed.
    expect(gianfar.features['tx-checksumming']).toMatchObject({ active: false, fixed: false, requested: false });
    expect(gianfar.features['tcp-segmentation-offload']).toMatchObject({ active: false, fixed: true });
  });

  it('marks a group requested on when a sub-feature asked for on', () => {
    const parsed = parseEthtoolFeatures(
      'Features for eth0:\ntcp-segmentation-offload: off\n\ttx-tcp-segmentation: off [requested on]\n\ttx-tcp6-segmentation: off [fixed]\n',
    );
    expect(parsed.features['tcp-segmentation-offload']).toEqual({
      active: false,
      fixed: false,
      requested: true,
      children: ['tx-tcp-segmentation', 'tx-tcp6-segmentation'],
    });
  });

  it('ignores ethtool complaints between feature lines', () => {
    const parsed = parseEthtoolFeatures(
      'Features for eth0:\nCannot get device udp-fragmentation-offload settings: Operation not supported\ngeneric-receive-offload: on\n',
    );
    expect(Object.keys(parsed.features)).toEqual(['generic-receive-offload']);
  });

  it.each([
    ['empty output', ''],
    ['an ethtool error', 'netlink error: Operation not supported\n'],
    ['garbage', 'hello world\nfoo: bar\n'],
    ['a truncated line', 'Features for eth0:\nrx-checksumming: o'],
    ['truncated JSON', '[ {\n "ifname": "eth0",\n "rx-checksumming": {\n "active": tr'],
    ['JSON without features', '[ { "ifname": "eth0" } ]'],
    ['JSON with a non-boolean state', '[ { "ifname": "eth0", "generic-receive-offload": { "active": "yes" } } ]'],
  ])('throws ParseError on %s', (_, text) => {
    expect(() => parseEthtoolFeatures(text)).toThrow(ParseError);
  });
});

describe('ethtool.features collector', () => {
  function storeAnswering(answers: Record<string, FakeAnswer>, seen: string[][] = []) {
    const io = fakeHost({
      commands: (argv) => {
        seen.push(argv);
        return answers[argv.join(' ')];
      },
    });
    return new FactStore(io, [ethtoolFeaturesCollector], silentLogger());
  }
  const json = realCapture('local-vm/ethtool_--json_-k-virtio_net-eth0.json');
  const text = realCapture('local-vm/ethtool_-k-virtio_net-eth0.txt');

  it('asks for JSON first', async () => {
    const seen: string[][] = [];
    const result = await storeAnswering({ 'ethtool --json -k eth0': { exitCode: 0, stdout: json, stderr: '' } }, seen).get(
      'ethtool.features',
      'eth0',
    );
    expect(seen).toEqual([['ethtool', '--json', '-k', 'eth0']]);
    expect(result).toMatchObject({ ok: true, value: { format: 'json', interface: 'eth0' } });
  });

  it('falls back to the text form when an old ethtool rejects --json', async () => {
    const seen: string[][] = [];
    const store = storeAnswering(
      {
        'ethtool --json -k eth0': {
          exitCode: 1,
          stdout: '',
          stderr: 'ethtool: bad command line argument(s)\nFor more information run ethtool -h\n',
        },
        'ethtool -k eth0': { exitCode: 0, stdout: text, stderr: '' },
      },
      seen,
    );
    const result = await store.get('ethtool.features', 'eth0');
    expect(seen.map((argv) => argv.join(' '))).toEqual(['ethtool --json -k eth0', 'ethtool -k eth0']);
    expect(result).toMatchObject({ ok: true, value: { format: 'text', interface: 'eth0' } });
  });

  it('falls back to the text form in a snapshot recorded without the JSON form', async () => {
    const result = await storeAnswering({ 'ethtool -k eth0': { exitCode: 0, stdout: text, stderr: '' } }).get('ethtool.features', 'eth0');
    expect(result).toMatchObject({ ok: true, value: { format: 'text' } });
  });

  it('reports a missing ethtool with an install hint, without retrying', async () => {
    const seen: string[][] = [];
    const missing = new HostIOError('tool-missing', 'ethtool: command not found');
    const result = await storeAnswering({ 'ethtool --json -k eth0': missing, 'ethtool -k eth0': missing }, seen).get(
      'ethtool.features',
      'eth0',
    );
    expect(seen).toHaveLength(1);
    expect(result).toMatchObject({ ok: false, error: { kind: 'tool-missing', hint: expect.stringContaining('apt-get install ethtool') } });
  });

  it("types the text form's failure when both fail", async () => {
    const gone = { exitCode: 1, stdout: '', stderr: 'netlink error: No such device\n' };
    const result = await storeAnswering({ 'ethtool --json -k eth9': gone, 'ethtool -k eth9': gone }).get('ethtool.features', 'eth9');
    expect(result).toMatchObject({ ok: false, error: { kind: 'not-found' } });
  });
});
