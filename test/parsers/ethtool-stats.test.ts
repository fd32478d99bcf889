import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { classifyEthtoolStats, classifyNetStatistics, rxQueuePackets, splitQueue } from '../../src/domain/drop-counters.js';
import { parseEthtoolStats, type EthtoolStats } from '../../src/parsers/ethtool-stats.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const captures = [...realCaptures('ethtool', /-S-/), ...realCaptures('local-vm', /^ethtool_-S-/)];

function value(stats: EthtoolStats, name: string): number | undefined {
  return stats.counters.find((counter) => counter.name === name)?.value;
}

function parsed(file: string): EthtoolStats {
  return parseEthtoolStats(realCapture(file));
}

describe('parseEthtoolStats over every real capture', () => {
  it('finds the captures', () => {
    expect(captures.length).toBeGreaterThanOrEqual(21);
  });

  it.each(captures)('%s parses into counters', (file) => {
    const stats = parsed(file);
    expect(stats.counters.length).toBeGreaterThan(0);
    for (const counter of stats.counters) {
      expect(counter.name).toMatch(/\S/);
      expect(counter.name).not.toMatch(/^\s|\s$/);
      expect(Number.isFinite(counter.value)).toBe(true);
    }
  });

  // file, counter count, then named counters with their values.
  const table: Array<[string, number, Record<string, number>]> = [
    [
      'ethtool/e1000e-S-nodeexporter-1.txt',
      16,
      { 'port.rx_dropped': 12028, rx_missed: 401, tx_packets: 961500, 'duplicate metric': 1, duplicate_metric: 2 },
    ],
    ['ethtool/i40e-S-ethq-v2.3.2k-1.txt', 418, { rx_dropped: 179160, 'rx-0.packets': 36938878353, 'port.rx_dropped': 0 }],
    ['ethtool/i40e-S-ethq-1.txt', 202, { rx_packets: 371706048609, 'port.rx_dropped': 0 }],
    [
      'ethtool/bnxt_en-S-ethq-1.txt',
      499,
      { '[0]: rx_discards': 11763190, '[3]: rx_discards': 10573381, '[2]: rx_l4_csum_errors': 13872, rx_bits: 4621497487696704 },
    ],
    ['ethtool/bnx2x-S-ethq-1.txt', 189, { '[0]: rx_ucast_packets': 194386668, rx_discards: 0 }],
    ['ethtool/bnx2-S-ethq-1.txt', 47, { rx_bytes: 12532335371359, rx_ucast_packets: 19363870912 }],
    [
      'ethtool/be2net-S-ethq-1.txt',
      222,
      { rx_dropped_too_short: 5710, rx_tcp_checksum_errs: 93915, 'rxq8: rx_compl_err': 93862, 'rxq0: rx_pkts': 6743082 },
    ],
    ['ethtool/sfc-S-ethq-1.txt', 152, { port_rx_dp_di_dropped_packets: 27, 'rx-0.rx_packets': 232 }],
    [
      'ethtool/mlx5_core-S-ethq-1.txt',
      751,
      { rx_packets: 845320277, rx_out_of_buffer: 0, rx_discards_phy: 0, rx_prio0_packets: 845715962 },
    ],
    [
      'ethtool/ice-S-ethq-1.txt',
      602,
      { rx_unicast: 12117448, rx_queue_0_packets: 487528, rx_queue_70_packets: 1221711, 'rx_dropped.nic': 0 },
    ],
    ['ethtool/igb-S-4space-insights-1.txt', 82, { rx_packets: 912398, rx_no_buffer_count: 0, rx_missed_errors: 0 }],
    ['ethtool/fsl_dpaa2_eth-S-ethq-1.txt', 73, { '[hw] rx frames': 92343581, '[hw] rx bytes': 48809586696 }],
    ['ethtool/ena-S-ethq-1.txt', 104, { queue_0_tx_cnt: 2005711, interface_up: 1 }],
    ['ethtool/virtio_net-S-ethq-1.txt', 8, { rx_queue_0_packets: 10282181, rx_queue_1_packets: 10401806 }],
    ['ethtool/r8169-S-ethq-1.txt', 13, { tx_packets: 0, rx_missed: 0 }],
    ['local-vm/ethtool_-S-virtio_net-eth0.txt', 20, { rx_drops: 0, rx_kicks: 442, tx0_kicks: 1913 }],
    ['local-vm/ethtool_-S-veth.txt', 19, { peer_ifindex: 5, rx_queue_0_drops: 0 }],
  ];

  it.each(table)('%s: %i counters with the expected values', (file, count, expected) => {
    const stats = parsed(file);
    expect(stats.counters).toHaveLength(count);
    for (const [name, expectedValue] of Object.entries(expected)) expect(value(stats, name), name).toBe(expectedValue);
  });

  it('keeps vmxnet3 per-queue blocks, without counting the "Queue#" headers as counters', () => {
    const stats = parsed('ethtool/vmxnet3-S-ethq-1.txt');
    expect(stats.counters).toHaveLength(67);
    expect(stats.counters.some((counter) => /Queue#/.test(counter.name))).toBe(false);
    const ucast = stats.counters.filter((counter) => counter.name === 'ucast pkts rx');
    expect(ucast).toEqual([
      { name: 'ucast pkts rx', value: 40863, block: 'Rx Queue#: 0' },
      { name: 'ucast pkts rx', value: 143523, block: 'Rx Queue#: 1' },
    ]);
    // Nested, deeper-indented counters stay in their block; the last line is outside any block.
    expect(stats.counters.find((counter) => counter.name === 'too many frags')?.block).toBe('Tx Queue#: 0');
    expect(stats.counters.at(-1)).toEqual({ name: 'tx timeout count', value: 0, block: null });
  });
});

describe('parseEthtoolStats on edge cases', () => {
  it('reads negative values and indentation of any width', () => {
    expect(parseEthtoolStats('NIC statistics:\n  a: -1\n\tb.c: 2\nd[0]: 3\n').counters).toEqual([
      { name: 'a', value: -1, block: null },
      { name: 'b.c', value: 2, block: null },
      { name: 'd[0]', value: 3, block: null },
    ]);
  });

  it('accepts a driver with no counters (header only)', () => {
    expect(parseEthtoolStats('NIC statistics:\n')).toEqual({ counters: [] });
  });

  it.each([
    ['empty output', ''],
    ['the error text instead of statistics', 'no stats available\n'],
    ['a truncated line', 'NIC statistics:\n     rx_packets: 12\n     rx_bytes: '],
    ['a value that is not a number', 'NIC statistics:\n     rx_packets: n/a\n'],
    ['unrelated text', 'Settings for eth0:\n\tSpeed: 10000Mb/s\n'],
  ])('throws ParseError on %s', (_label, text) => {
    expect(() => parseEthtoolStats(text)).toThrow(ParseError);
  });
});

describe('splitQueue', () => {
  it.each([
    ['[3]: rx_discards', 'rx_discards', 3],
    ['rxq8: rx_compl_err', 'rx_compl_err', 8],
    ['txq2: tx_drv_drops', 'tx_drv_drops', 2],
    ['rx_queue_12_packets', 'rx_packets', 12],
    ['rx_queue_0_drops', 'rx_drops', 0],
    ['queue_3_rx_cnt', 'rx_cnt', 3],
    ['rx-5.packets', 'rx_packets', 5],
    ['rx-0.rx_packets', 'rx_packets', 0],
    ['rx7_buff_alloc_err', 'rx_buff_alloc_err', 7],
    ['rx_out_of_buffer', 'rx_out_of_buffer', null],
    ['port.rx_dropped', 'port.rx_dropped', null],
    ['rx_prio0_packets', 'rx_prio0_packets', null],
    ['rx_65_to_127_octet_packets', 'rx_65_to_127_octet_packets', null],
  ])('%s → %s, queue %s', (name, base, queue) => {
    expect(splitQueue({ name, block: null })).toEqual({ base, queue });
  });

  it('takes the queue of a vmxnet3 block', () => {
    expect(splitQueue({ name: 'drv dropped rx total', block: 'Rx Queue#: 1' })).toEqual({ base: 'drv dropped rx total', queue: 1 });
  });
});

describe('classifyEthtoolStats (driver counter meanings)', () => {
  it.each(captures)('%s classifies without duplicates', (file) => {
    const classified = classifyEthtoolStats(parsed(file), null);
    const names = classified.map((counter) => counter.name);
    expect(new Set(names).size).toBe(names.length);
    for (const counter of classified) expect(counter.meaning.length).toBeGreaterThan(10);
  });

  const drops = (file: string, driver: string | null) =>
    classifyEthtoolStats(parsed(file), driver)
      .filter((counter) => counter.value > 0 && counter.category === 'drop')
      .map(({ name, value, queues, remedy }) => ({ name, value, queues, remedy }));

  it('e1000e-S-nodeexporter: port-level drops (backpressure) and missed packets (rings)', () => {
    expect(drops('ethtool/e1000e-S-nodeexporter-1.txt', 'e1000e')).toEqual([
      { name: 'port.rx_dropped', value: 12028, queues: 0, remedy: 'host-backpressure' },
      { name: 'rx_missed', value: 401, queues: 0, remedy: 'rings' },
    ]);
  });

  it('i40e 2.3.2-k: rx_dropped means a full ring on Intel drivers, a possibly harmless count elsewhere', () => {
    const intel = classifyEthtoolStats(parsed('ethtool/i40e-S-ethq-v2.3.2k-1.txt'), 'i40e').find(
      (counter) => counter.name === 'rx_dropped',
    );
    expect(intel).toMatchObject({ value: 179160, category: 'drop', remedy: 'rings' });
    expect(intel?.mayBeBenign).toBeUndefined();
    const generic = classifyEthtoolStats(parsed('ethtool/i40e-S-ethq-v2.3.2k-1.txt'), null).find(
      (counter) => counter.name === 'rx_dropped',
    );
    expect(generic).toMatchObject({ value: 179160, category: 'drop', mayBeBenign: true });
  });

  it('bnxt_en: per-ring rx_discards are summed over the 12 rings', () => {
    expect(drops('ethtool/bnxt_en-S-ethq-1.txt', 'bnxt_en')).toEqual([
      { name: 'rx_discards', value: 123116579, queues: 12, remedy: 'rings' },
    ]);
    const csum = classifyEthtoolStats(parsed('ethtool/bnxt_en-S-ethq-1.txt'), 'bnxt_en').find(
      (counter) => counter.name === 'rx_l4_csum_errors',
    );
    expect(csum).toMatchObject({ value: 72085, queues: 12, category: 'error' });
  });

  it('bnx2x: a device-wide total wins over the per-queue counters of the same name', () => {
    const discards = classifyEthtoolStats(parsed('ethtool/bnx2x-S-ethq-1.txt'), 'bnx2x').find((counter) => counter.name === 'rx_discards');
    expect(discards).toMatchObject({ value: 0, queues: 0 });
  });

  it('sfc: port_rx_dp_di_dropped_packets is the dispatcher discarding unclaimed frames, not descriptor loss', () => {
    expect(drops('ethtool/sfc-S-ethq-1.txt', 'sfc')).toEqual([
      { name: 'port_rx_dp_di_dropped_packets', value: 27, queues: 0, remedy: 'none' },
    ]);
    expect(
      classifyEthtoolStats(parsed('ethtool/sfc-S-ethq-1.txt'), 'sfc').find((counter) => counter.name === 'port_rx_nodesc_drops'),
    ).toMatchObject({
      remedy: 'rings',
    });
  });

  it('be2net: malformed frames and checksum errors are errors, not drops', () => {
    const classified = classifyEthtoolStats(parsed('ethtool/be2net-S-ethq-1.txt'), 'be2net');
    expect(drops('ethtool/be2net-S-ethq-1.txt', 'be2net')).toEqual([]);
    expect(classified.find((counter) => counter.name === 'rx_dropped_too_short')).toMatchObject({ value: 5710, category: 'error' });
    expect(classified.find((counter) => counter.name === 'rx_tcp_checksum_errs')).toMatchObject({ value: 93915, category: 'error' });
    expect(classified.find((counter) => counter.name === 'rx_compl_err')).toMatchObject({ value: 93862, queues: 9, category: 'error' });
    expect(classified.find((counter) => counter.name === 'rx_drops_no_pbuf')).toMatchObject({
      value: 0,
      category: 'drop',
      remedy: 'host-backpressure',
    });
    expect(classified.find((counter) => counter.name === 'rx_address_filtered')).toMatchObject({ value: 5164994, category: 'info' });
  });

  it('mlx5: out-of-buffer (rings), discards at the port (backpressure) and PHY errors (physical)', () => {
    const classified = classifyEthtoolStats(parsed('ethtool/mlx5_core-S-ethq-1.txt'), 'mlx5_core');
    expect(classified.find((counter) => counter.name === 'rx_out_of_buffer')).toMatchObject({ category: 'drop', remedy: 'rings' });
    expect(classified.find((counter) => counter.name === 'rx_out_of_buffer')?.meaning).toContain('no receive buffer');
    expect(classified.find((counter) => counter.name === 'rx_discards_phy')).toMatchObject({
      category: 'drop',
      remedy: 'host-backpressure',
    });
    expect(classified.find((counter) => counter.name === 'rx_crc_errors_phy')).toMatchObject({
      category: 'physical-error',
      remedy: 'physical',
    });
    expect(classified.find((counter) => counter.name === 'rx_symbol_err_phy')).toMatchObject({ category: 'physical-error' });
    expect(classified.filter((counter) => counter.value > 0 && counter.category !== 'info')).toEqual([]);
  });

  it('igb: rx_no_buffer_count and rx_missed_errors point to the rings; per-queue drops are summed', () => {
    const classified = classifyEthtoolStats(parsed('ethtool/igb-S-4space-insights-1.txt'), 'igb');
    expect(classified.find((counter) => counter.name === 'rx_no_buffer_count')).toMatchObject({ category: 'drop', remedy: 'rings' });
    expect(classified.find((counter) => counter.name === 'rx_missed_errors')).toMatchObject({ category: 'drop', remedy: 'rings' });
    expect(classified.find((counter) => counter.name === 'rx_drops')).toMatchObject({ queues: 4, remedy: 'rings' });
    expect(classified.find((counter) => counter.name === 'rx_crc_errors')).toMatchObject({ category: 'physical-error' });
  });

  it('virtio_net (local VM): its own drop counter, device-wide and per queue', () => {
    const classified = classifyEthtoolStats(parsed('local-vm/ethtool_-S-virtio_net-eth0.txt'), 'virtio_net');
    expect(classified.find((counter) => counter.name === 'rx_drops')).toMatchObject({ value: 0, queues: 0, remedy: 'cpu' });
    expect(classified.find((counter) => counter.name === 'rx_xdp_drops')).toMatchObject({ category: 'info' });
  });

  it('knows nothing of counters it has no rule for', () => {
    expect(
      classifyEthtoolStats(parsed('ethtool/fsl_dpaa2_eth-S-ethq-1.txt'), 'fsl_dpaa2_eth').filter((counter) => counter.category === 'drop'),
    ).toEqual([]);
  });
});

describe('rxQueuePackets', () => {
  it.each<[string, number, Array<[number, number]>]>([
    [
      'ethtool/igb-S-4space-insights-1.txt',
      4,
      [
        [0, 912398],
        [1, 0],
      ],
    ],
    [
      'ethtool/virtio_net-S-ethq-1.txt',
      2,
      [
        [0, 10282181],
        [1, 10401806],
      ],
    ],
    [
      'ethtool/vmxnet3-S-ethq-1.txt',
      2,
      [
        [0, 40863],
        [1, 143523],
      ],
    ],
    [
      'ethtool/bnx2x-S-ethq-1.txt',
      8,
      [
        [0, 194386668],
        [5, 253934780],
      ],
    ],
    [
      'ethtool/ice-S-ethq-1.txt',
      128,
      [
        [0, 487528],
        [70, 1221711],
      ],
    ],
    ['ethtool/i40e-S-ethq-v2.3.2k-1.txt', 64, [[0, 36938878353]]],
    [
      'ethtool/sfc-S-ethq-1.txt',
      12,
      [
        [0, 232],
        [11, 60],
      ],
    ],
    ['ethtool/ena-S-ethq-1.txt', 4, []],
    [
      'ethtool/be2net-S-ethq-1.txt',
      9,
      [
        [0, 6743082],
        [8, 11437669],
      ],
    ],
    ['ethtool/bnxt_en-S-ethq-1.txt', 12, []],
    ['ethtool/mlx5_core-S-ethq-1.txt', 16, []],
    ['ethtool/r8169-S-ethq-1.txt', 0, []],
    ['local-vm/ethtool_-S-veth.txt', 0, []],
  ])('%s: %i queues', (file, count, samples) => {
    const queues = rxQueuePackets(parsed(file));
    expect(queues).toHaveLength(count);
    for (const [queue, packets] of samples) expect(queues.find((entry) => entry.queue === queue)?.packets).toBe(packets);
  });
});

describe('classifyNetStatistics (sysfs)', () => {
  it('maps the kernel counters to categories', () => {
    const classified = classifyNetStatistics({
      rx_packets: 10,
      rx_missed_errors: 3,
      rx_dropped: 5,
      rx_crc_errors: 2,
      tx_dropped: 1,
      rx_nohandler: 4,
      rx_length_errors: 1,
    });
    expect(classified.map(({ name, value, category, remedy }) => ({ name, value, category, remedy }))).toEqual([
      { name: 'rx_missed_errors', value: 3, category: 'drop', remedy: 'rings' },
      { name: 'rx_dropped', value: 5, category: 'drop', remedy: 'cpu' },
      { name: 'rx_crc_errors', value: 2, category: 'physical-error', remedy: 'physical' },
      { name: 'tx_dropped', value: 1, category: 'drop', remedy: 'tx-queue' },
      { name: 'rx_nohandler', value: 4, category: 'info', remedy: 'none' },
      { name: 'rx_length_errors', value: 1, category: 'error', remedy: 'mtu' },
    ]);
    expect(classified.find((counter) => counter.name === 'rx_dropped')?.mayBeBenign).toBe(true);
  });
});
