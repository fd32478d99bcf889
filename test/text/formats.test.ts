import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatForCommand, sniffKinds } from '../../src/text/formats.js';
import { FIXTURES } from '../helpers/fixtures.js';

const read = (file: string) => readFileSync(path.join(FIXTURES, 'text', file), 'utf8');

describe('content-shape sniffing of real outputs pasted without a prompt', () => {
  it.each([
    ['softnet-rhel9-13col-no-prompt.txt', ['softnet']],
    ['numactl-aws-c5n18xl-2node-no-prompt.txt', ['numactl']],
    ['iperf3-3.x-P3-client.txt', ['iperf3-text']],
    ['iperf3-3.12-P4-netns.json', ['iperf3-json']],
    ['iavf-proc-interrupts-grep-wrapped.txt', ['proc-interrupts']],
    ['seed-002-10g-stuck-3.5-pcie-x1.txt', []],
  ] as const)('%s → %j', (file, kinds) => {
    expect(sniffKinds(read(file))).toEqual(kinds);
  });

  it('tells iperf2 from iperf3', () => {
    expect(sniffKinds(read('forum-iperf2-82572ei-gigabit.txt'))).toContain('iperf2');
    expect(sniffKinds(read('forum-iperf2-82572ei-gigabit.txt'))).not.toContain('iperf3-text');
  });

  it('several ethtool outputs in one text, each by its header', () => {
    expect(sniffKinds(read('ice-e810xxv-25g-kvm-root-prompts.txt'))).toEqual([
      'ethtool-settings',
      'ethtool-rings',
      'ethtool-channels',
      'ethtool-features',
      'ethtool-coalesce',
      'ethtool-driver',
    ]);
  });

  it('names the output and the interface from a command line', () => {
    expect(formatForCommand('sudo ethtool -S eth3')).toMatchObject({ format: { kind: 'ethtool-stats' }, iface: 'eth3' });
    expect(formatForCommand('ethtool eth3')).toMatchObject({ format: { kind: 'ethtool-settings' }, iface: 'eth3' });
    expect(formatForCommand('ethtool --show-ring ens1f0np0')).toMatchObject({ format: { kind: 'ethtool-rings' }, iface: 'ens1f0np0' });
    expect(formatForCommand('ip -s -s link show dev eth3')).toMatchObject({ format: { kind: 'ip-link' }, iface: 'eth3' });
    expect(formatForCommand('iperf3 -c 10.0.0.1 -P 8 -J')).toMatchObject({ format: { kind: 'iperf3-json' } });
    expect(formatForCommand('C:\\iperf3\\iperf3.exe -c 10.0.0.1')).toMatchObject({ format: { kind: 'iperf3-text' } });
    expect(formatForCommand('iperf -c 10.0.0.1 -d')).toMatchObject({ format: { kind: 'iperf2' } });
    expect(formatForCommand('ping 10.0.0.1')).toBeUndefined();
  });
});
