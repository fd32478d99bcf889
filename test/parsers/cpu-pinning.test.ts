import { describe, expect, it } from 'vitest';
import { pinnedTestShortOfLink, readPinnedTest } from '../../src/parsers/cpu-pinning.js';

describe('readPinnedTest', () => {
  it('reads a benchmark pinned with taskset -c behind sudo, and the interface its arguments name', () => {
    const text = [
      'rank 0 - ',
      '```',
      'sudo taskset -c 0 ./benchmark --size 2 --rank 0 --tcp-device enp4s0 --transport tcp allreduce_ring_chunked',
      '```',
      'rank 1 -',
      'sudo taskset -c 0 ./benchmark --size 2 --rank 1 --tcp-device enp4s0 --transport tcp allreduce_ring_chunked',
    ].join('\n');
    expect(readPinnedTest(text)).toEqual({ tool: 'benchmark', cpu: 0, interface: 'enp4s0' });
  });

  it('reads one-bit masks, numactl -C and --physcpubind, and skips numactl options before the command', () => {
    expect(readPinnedTest('# taskset 0x4 iperf3 -c 10.0.0.2 -P 8')).toEqual({ tool: 'iperf3', cpu: 2, interface: null });
    expect(readPinnedTest('numactl -m 0 -C 3 netperf -H peer')).toEqual({ tool: 'netperf', cpu: 3, interface: null });
    expect(readPinnedTest('numactl --localalloc --physcpubind=5 iperf3 -s')).toEqual({ tool: 'iperf3', cpu: 5, interface: null });
    expect(readPinnedTest('> $ taskset -c 7-7 iperf -c host')).toEqual({ tool: 'iperf', cpu: 7, interface: null });
  });

  it('is null for several CPUs, a mask of several bits, a running process, or processes spread over CPUs by hand', () => {
    expect(readPinnedTest('taskset -c 0-3 iperf3 -c peer')).toBeNull();
    expect(readPinnedTest('taskset -c 0,2 iperf3 -c peer')).toBeNull();
    expect(readPinnedTest('taskset 0x3 iperf3 -c peer')).toBeNull();
    expect(readPinnedTest('taskset -pc 0 4242')).toBeNull();
    expect(readPinnedTest('numactl -N 1 iperf3 -c peer')).toBeNull();
    expect(readPinnedTest('taskset -c 2 iperf3 -c peer -p 5201 &\ntaskset -c 3 iperf3 -c peer -p 5202 &')).toBeNull();
    expect(readPinnedTest('no pinning here: iperf3 -c peer -P 4')).toBeNull();
  });
});

describe('pinnedTestShortOfLink', () => {
  const pinned = { tool: 'iperf3', cpu: 0, interface: null };
  it('keeps a pin on a fast link that no rate comes near', () => {
    expect(pinnedTestShortOfLink(pinned, 40_000, [null, 8_600])).toEqual({ ...pinned, linkMbps: 40_000 });
  });
  it('drops it when a rate fills the link, when the link is slow or unknown', () => {
    expect(pinnedTestShortOfLink(pinned, 10_000, [9_400])).toBeNull();
    expect(pinnedTestShortOfLink(pinned, 1_000, [200])).toBeNull();
    expect(pinnedTestShortOfLink(pinned, null, [])).toBeNull();
    expect(pinnedTestShortOfLink(null, 40_000, [])).toBeNull();
  });
});
