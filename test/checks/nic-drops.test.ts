import { parseIpLink } from '../../src/parsers/ip-link.js';
import { describe, expect, it } from 'vitest';
import nicDrops from '../../checks/nic-drops.js';
import { ethtoolStatsCollector } from '../../src/collectors/ethtool-stats.js';
import { netStatisticsCollector } from '../../src/collectors/net-statistics.js';
import { FactStore } from '../../src/contracts/collector.js';
import { parseEthtoolStats, type EthtoolStats } from '../../src/parsers/ethtool-stats.js';
import { silentLogger } from '../../src/util/log.js';
import { failed, type FactInput } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { fakeHost, type FakeAnswer } from '../helpers/fake-host.js';
import { realCapture } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

const CLEAN_SYSFS = {
  rx_packets: 1_000_000,
  tx_packets: 900_000,
  rx_dropped: 0,
  rx_missed_errors: 0,
  rx_fifo_errors: 0,
  rx_crc_errors: 0,
  tx_dropped: 0,
};

function capture(file: string): EthtoolStats {
  return parseEthtoolStats(realCapture(file));
}

function facts(driver: string | null, ethtool: FactInput['ethtool.stats'], sysfs: Record<string, number> = CLEAN_SYSFS): FactInput {
  return { 'net.device': netDevice('eth0', { driver }), 'net.statistics': { counters: sysfs }, 'ethtool.stats': ethtool };
}

const tester = checkTester(nicDrops);

describe('nic-drops check', () => {
  it('passes a clean i40e (real capture, balanced queues)', async () => {
    const result = await tester.run(facts('i40e', capture('ethtool/i40e-S-ethq-1.txt')));
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('passes a clean mlx5 and a clean virtio_net (real captures)', async () => {
    expect((await tester.run(facts('mlx5_core', capture('ethtool/mlx5_core-S-ethq-1.txt')))).findings).toEqual([]);
    expect((await tester.run(facts('virtio_net', capture('local-vm/ethtool_-S-virtio_net-eth0.txt')))).status).toBe('pass');
  });

  it('fails e1000e-S-nodeexporter: port.rx_dropped 12028 (backpressure) and rx_missed 401 (rings)', async () => {
    const result = await tester.run(facts('e1000e', capture('ethtool/e1000e-S-nodeexporter-1.txt')));
    expect(result.status).toBe('fail');
    expect(
      result.findings.map((finding) => [finding.symptom, finding.severity, finding.data.counter, finding.data.value, finding.data.remedy]),
    ).toEqual([
      ['nic-drops', 'warning', 'port.rx_dropped', 12028, 'host-backpressure'],
      ['nic-drops', 'warning', 'rx_missed', 401, 'rings'],
    ]);
    const [port, missed] = result.findings;
    expect(port!.message).toContain('since the driver loaded');
    // No port.* packet totals here: a share of the delivered packets plus the dropped ones.
    expect(port!.message).toContain('(1.19 % of 1012028 packets that arrived)');
    expect(port!.fix).toContain('ethtool -A eth0 rx on tx on');
    expect(missed!.fix).toContain('ethtool -G eth0 rx <max> tx <max>');
    expect(missed!.fix).not.toContain('{subject}');
    expect(missed!.fix).toContain('bench measures the increase');
    expect(missed!.evidence).toEqual([{ label: 'rx_missed', observed: 401, expected: 0, unit: 'packets' }]);
  });

  it('divides mlx5 *_phy drops by rx_packets_phy, not the software rx_packets: never above 100 % (real mlx5 capture, drops added)', async () => {
    const real = capture('ethtool/mlx5_core-S-ethq-1.txt');
    // The port discarded 900 M packets that the software counters never saw: rx_packets stays 845 M.
    const counters = real.counters.map((counter) =>
      counter.name === 'rx_discards_phy'
        ? { ...counter, value: 900_000_000 }
        : counter.name === 'rx_packets_phy'
          ? { ...counter, value: counter.value + 900_000_000 }
          : counter,
    );
    const result = await tester.run(facts('mlx5_core', { ...real, counters }, { rx_packets: 845_320_277 }));
    const phy = result.findings.find((finding) => finding.data.counter === 'rx_discards_phy')!;
    expect(phy.data.rxPackets).toBe(1_745_715_962);
    expect(phy.message).toContain('(51.55 % of 1745715962 packets that arrived)');
  });

  it('judges millions of drops since boot by their count, even when their rate is below one in a million', async () => {
    const result = await tester.run(
      facts('ixgbe', parseEthtoolStats('NIC statistics:\n     rx_missed_errors: 3000000\n'), {
        rx_packets: 9_000_000_000_000,
      }),
    );
    expect(result.findings).toEqual([
      expect.objectContaining({ symptom: 'nic-drops', severity: 'warning', data: expect.objectContaining({ negligible: false }) }),
    ]);
  });

  it('fails i40e 2.3.2-k: rx_dropped 179160 means full rings on i40e', async () => {
    const result = await tester.run(facts('i40e', capture('ethtool/i40e-S-ethq-v2.3.2k-1.txt')));
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'nic-drops',
        severity: 'warning',
        subject: 'eth0',
        data: expect.objectContaining({ counter: 'rx_dropped', value: 179160, remedy: 'rings' }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('no free receive descriptor');
  });

  it('fails bnxt_en: rx_discards summed over 12 rings, checksum errors as info', async () => {
    const result = await tester.run(
      facts('bnxt_en', capture('ethtool/bnxt_en-S-ethq-1.txt'), { ...CLEAN_SYSFS, rx_packets: 123_000_000_000 }),
    );
    expect(result.status).toBe('fail');
    const drops = result.findings.filter((finding) => finding.symptom === 'nic-drops');
    expect(drops).toHaveLength(1);
    expect(drops[0]!.data).toMatchObject({ counter: 'rx_discards', value: 123116579, queues: 12 });
    expect(drops[0]!.message).toContain('sum of 12 queues');
    const errors = result.findings.filter((finding) => finding.symptom === 'nic-errors');
    expect(errors.map((finding) => [finding.data.counter, finding.severity])).toEqual([
      ['rx_l4_csum_errors', 'info'],
      ['rx_total_l4_csum_errors', 'info'],
    ]);
  });

  it("notes sfc's port_rx_dp_di_dropped_packets 27 (dispatcher discards), without failing on them", async () => {
    const result = await tester.run(facts('sfc', capture('ethtool/sfc-S-ethq-1.txt')));
    expect(result.findings.map((finding) => [finding.symptom, finding.severity, finding.data.counter, finding.data.value])).toEqual([
      ['nic-drops', 'info', 'port_rx_dp_di_dropped_packets', 27],
    ]);
  });

  it('notes a few thousand drops over billions of packets, and fails the same count over a million', async () => {
    const stats = (packets: number) => parseEthtoolStats(`NIC statistics:\n     rx_packets: ${packets}\n     rx_missed_errors: 6000\n`);
    const severities = async (packets: number) =>
      (await tester.run(facts('igb', stats(packets), { ...CLEAN_SYSFS, rx_packets: packets }))).findings.map((finding) => [
        finding.symptom,
        finding.severity,
      ]);
    expect(await severities(2_000_000_000)).toEqual([['nic-drops', 'info']]);
    expect(await severities(1_000_000)).toEqual([['nic-drops', 'warning']]);
  });

  it('reports CRC errors as physical errors with the cable/optic fix', async () => {
    const stats = parseEthtoolStats('NIC statistics:\n     rx_packets: 5000\n     rx_crc_errors: 17\n     rx_missed_errors: 0\n');
    const result = await tester.run(facts('ixgbe', stats));
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'physical-errors',
        severity: 'warning',
        data: expect.objectContaining({ counter: 'rx_crc_errors', value: 17 }),
      }),
    ]);
    expect(result.findings[0]!.fix).toContain('ethtool -m eth0');
  });

  it('warns when one of several receive queues took every packet and the others none (igb capture: 912398 on queue 0 of 4)', async () => {
    const result = await tester.run(facts('igb', capture('ethtool/igb-S-4space-insights-1.txt')));
    expect(result.status).toBe('fail');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'rx-queue-imbalance',
        severity: 'warning',
        data: expect.objectContaining({ queue: 0, sharePercent: 100, queues: 4, activeQueues: 1, allOnOne: true }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('since the driver loaded');
    expect(result.findings[0]!.message).toContain('receive-side scaling is effectively off');
  });

  it('only notes one queue taking everything over too few packets to judge, or when the others took a few', async () => {
    const real = capture('ethtool/igb-S-4space-insights-1.txt');
    const scaled = (queue0: number, others: number) => ({
      ...real,
      counters: real.counters.map((counter) => {
        const queue = /^rx_queue_(\d+)_packets$/.exec(counter.name);
        return queue ? { ...counter, value: queue[1] === '0' ? queue0 : others } : counter;
      }),
    });
    // 50000 packets: a short-lived host with one flow; 912398 on queue 0 and a handful elsewhere: RSS works.
    for (const stats of [scaled(50_000, 0), scaled(912_398, 40)]) {
      const result = await tester.run(facts('igb', stats));
      expect(result.findings).toEqual([expect.objectContaining({ symptom: 'rx-queue-imbalance', severity: 'info' })]);
    }
  });

  it("names AWS ENA allowance counters as the cloud's shaping, never as ring drops", async () => {
    const ena = parseEthtoolStats(
      'NIC statistics:\n     total_resets: 0\n     tx_timeout: 0\n     bw_in_allowance_exceeded: 52110\n     bw_out_allowance_exceeded: 0\n     pps_allowance_exceeded: 17\n     linklocal_allowance_exceeded: 0\n     queue_0_rx_cnt: 8812001\n',
    );
    const result = await tester.run(facts('ena', ena));
    expect(result.findings.map((finding) => [finding.symptom, finding.data.counter])).toEqual([
      ['cloud-allowance-exceeded', 'bw_in_allowance_exceeded'],
      ['cloud-allowance-exceeded', 'pps_allowance_exceeded'],
    ]);
    expect(result.findings[0]!.message).toContain('the inbound bandwidth allowance');
    expect(result.findings[1]!.message).toContain('the packets-per-second allowance');
    expect(result.findings[0]!.message).toContain('not a NIC ring drop');
    expect(result.findings[0]!.fix).toContain('larger instance type');
  });

  it('finds a systematic skew across many queues that no single queue dominates (real mlx5 capture, 8 of 16 queues x30)', async () => {
    const real = capture('ethtool/mlx5_core-S-ethq-1.txt');
    // Even as captured (max/median 1.1): no finding.
    expect((await tester.run(facts('mlx5_core', real))).findings).toEqual([]);
    const skewed = real.counters.map((counter) => {
      const queue = /^rx(\d+)_packets$/.exec(counter.name);
      return queue && Number(queue[1]) % 2 === 0 ? { ...counter, value: counter.value * 30 } : counter;
    });
    const result = await tester.run(facts('mlx5_core', { ...real, counters: skewed }));
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'rx-queue-imbalance',
        severity: 'info',
        data: expect.objectContaining({ dominant: false, activeQueues: 16 }),
      }),
    ]);
    const data = result.findings[0]!.data;
    expect(data.sharePercent as number).toBeLessThan(50);
    expect(data.p90OverP10 as number).toBeGreaterThanOrEqual(10);
    expect(result.findings[0]!.message).toContain('the load is skewed across the queues');
  });

  it('does not call two evenly loaded queues an imbalance (virtio_net capture, 50.3 %)', async () => {
    const result = await tester.run(facts('virtio_net', capture('ethtool/virtio_net-S-ethq-1.txt')));
    expect(result.findings).toEqual([]);
  });

  it('falls back to the sysfs counters when ethtool -S is not available', async () => {
    const result = await tester.run(
      facts('veth', failed('unsupported', 'ethtool -S: the driver has no statistics'), {
        ...CLEAN_SYSFS,
        rx_missed_errors: 250,
        rx_crc_errors: 3,
      }),
    );
    expect(result.status).toBe('fail');
    expect(result.findings.map((finding) => [finding.symptom, finding.data.counter, finding.data.origin])).toEqual([
      ['nic-drops', 'rx_missed_errors', 'net.statistics'],
      ['physical-errors', 'rx_crc_errors', 'net.statistics'],
    ]);
  });

  it('names a ring counter that holds most of what arrived a stuck receive path, and the same count over many packets ring drops', async () => {
    // The real XDP ticket's port: 9,980 FIFO drops against 613 delivered packets; kernel rx_dropped
    // at the same share stays a note (it counts frames of unknown protocols too).
    const stuck = await tester.run(
      facts(null, failed('tool-missing', 'ethtool: command not found'), { rx_packets: 613, rx_fifo_errors: 9980, rx_dropped: 9980 }),
    );
    expect(stuck.findings.map((finding) => [finding.symptom, finding.severity, finding.data.counter]).sort()).toEqual([
      ['nic-drops', 'info', 'rx_dropped'],
      ['rx-path-stuck', 'warning', 'rx_fifo_errors'],
    ]);
    const busy = await tester.run(
      facts(null, failed('tool-missing', 'ethtool: command not found'), { rx_packets: 20_000_000, rx_fifo_errors: 9980 }),
    );
    expect(busy.findings.map((finding) => finding.symptom)).toEqual(['nic-drops']);
  });

  it('shows sysfs rx_dropped as info only: it also counts frames of unknown protocols', async () => {
    const result = await tester.run(
      facts(null, failed('tool-missing', 'ethtool: command not found'), { ...CLEAN_SYSFS, rx_dropped: 29220 }),
    );
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'nic-drops',
        severity: 'info',
        data: expect.objectContaining({ counter: 'rx_dropped', value: 29220 }),
      }),
    ]);
  });

  it('does not repeat a sysfs drop counter when the driver reports drops itself', async () => {
    const result = await tester.run(
      facts('virtio_net', capture('local-vm/ethtool_-S-virtio_net-eth0.txt'), { ...CLEAN_SYSFS, rx_dropped: 7 }),
    );
    expect(result.findings).toEqual([]);
  });

  it('ignores counts at or below the configured minimum', async () => {
    const result = await tester.run(facts('sfc', capture('ethtool/sfc-S-ethq-1.txt')), { options: { minDrops: 100 } });
    expect(result.status).toBe('pass');
  });

  it('is not applicable to a bond: its members are judged', async () => {
    const bond = netDevice('bond0', { kind: 'bond', driver: null, bondSlaves: ['eth0', 'eth1'] });
    const result = await tester.run(
      { 'net.device': bond, 'net.statistics': { counters: { ...CLEAN_SYSFS, rx_dropped: 500 } }, 'ethtool.stats': failed('unsupported') },
      { interfaces: [{ name: 'bond0', kind: 'bond' }] },
    );
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('bond');
  });

  it('judges ethtool -S alone when the sysfs statistics cannot be read (a capture without /sys)', async () => {
    const result = await tester.run({
      ...facts('sfc', capture('ethtool/sfc-S-ethq-1.txt')),
      'net.statistics': failed('not-captured', 'the sosreport holds no /sys/class/net/eth0/statistics'),
    });
    expect(['pass', 'fail']).toContain(result.status);
  });

  it('is unknown, and says what to capture, when no source of counters holds the interface', async () => {
    const unreadable = await tester.run({
      'net.device': netDevice('eth0', { driver: 'ixgbe' }),
      'ethtool.stats': failed('not-captured', 'the sosreport holds no output of `ethtool -S eth0`'),
      'net.statistics': failed('permission-denied', '/sys/class/net/eth0/statistics: permission denied', 'run as root'),
    });
    expect(unreadable.status).toBe('unknown');
    expect(unreadable.reason).toContain('no drop counters');
    expect(unreadable.hint).toContain('ethtool -S eth0');
  });

  it('finds drops in `ip -s link` when neither sysfs nor ethtool -S was captured, and calls a one-in-a-billion rate negligible', async () => {
    const ipText = [
      '2: eno1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000',
      '    link/ether 00:11:22:33:44:55 brd ff:ff:ff:ff:ff:ff',
      '    RX:  bytes packets errors dropped  missed   mcast',
      '    9000000000 900000000 0 0 45000000 0',
      '    TX:  bytes packets errors dropped carrier collsns',
      '    100 1 0 0 0 0',
      '3: eno2: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000',
      '    link/ether 00:11:22:33:44:56 brd ff:ff:ff:ff:ff:ff',
      '    RX:  bytes packets errors dropped  missed   mcast',
      '    9000000000 9000000000 0 0 3 0',
      '    TX:  bytes packets errors dropped carrier collsns',
      '    100 1 0 0 0 0',
    ].join('\n');
    const links = parseIpLink(ipText);
    const noStats = {
      'ethtool.stats': failed('not-captured', 'not captured'),
      'net.statistics': failed('not-captured', 'not captured'),
      'ip.links': links,
    };
    const heavy = await tester.run(
      { 'net.device': netDevice('eno1', { driver: 'ixgbe' }), ...noStats },
      { interfaces: [{ name: 'eno1' }] },
    );
    expect(heavy.status).toBe('fail');
    expect(heavy.findings[0]).toMatchObject({
      symptom: 'nic-drops',
      severity: 'warning',
      data: { counter: 'rx_missed_errors', value: 45_000_000, origin: 'ip.links' },
    });
    const negligible = await tester.run(
      { 'net.device': netDevice('eno2', { driver: 'ixgbe' }), ...noStats },
      { interfaces: [{ name: 'eno2' }] },
    );
    expect(negligible.status).toBe('pass');
    expect(negligible.findings[0]).toMatchObject({ severity: 'info' });
    expect(negligible.findings[0]!.message).toContain('negligible');
  });

  it("does not count an XDP program's XDP_DROP verdicts as loss (virtio_net rx_drops = rx_xdp_drops, real AF_XDP guest)", async () => {
    // fixtures/eval/virtio-net-kvm-guest-macvtap-1vcpu-afxdp: rx_queue_0_drops 79419999 = rx_queue_0_xdp_drops.
    const text =
      'NIC statistics:\n\t rx_queue_0_packets: 80341229\n\t rx_queue_0_drops: 79419999\n\t rx_queue_0_xdp_packets: 80332151\n\t rx_queue_0_xdp_drops: 79419999\n';
    const result = await tester.run(facts('virtio_net', parseEthtoolStats(text)));
    expect(result.status).toBe('pass');
    expect(result.findings.filter((finding) => finding.symptom === 'nic-drops')).toEqual([]);
  });

  it("reports drops on a software device as the kernel's, never as a NIC fault (flannel VXLAN)", async () => {
    const vxlan = netDevice('flannel.1', { kind: 'virtual', softwareType: 'vxlan', driver: null, pciAddress: null });
    const result = await tester.run(
      {
        'net.device': vxlan,
        'ethtool.stats': failed('unsupported', 'no stats'),
        'net.statistics': { counters: { rx_packets: 1000, rx_dropped: 0, tx_packets: 100, tx_dropped: 52 } },
      },
      { interfaces: [{ name: 'flannel.1', kind: 'virtual' }] },
    );
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['software-device-drops']);
    expect(result.findings[0]!.message).toContain('vxlan');
  });
});

/** A host that serves a few files and commands, for the collectors behind this check. */
const fakeIO = (files: Record<string, string>, commands: Record<string, FakeAnswer>) => fakeHost({ files, commands });

describe('collectors behind nic-drops', () => {
  it('net.statistics reads every counter file of /sys/class/net/<if>/statistics', async () => {
    const io = fakeIO(
      {
        '/sys/class/net/eth0/statistics/rx_dropped': '29220\n',
        '/sys/class/net/eth0/statistics/rx_packets': '1000\n',
        '/sys/class/net/eth0/statistics/tx_bad': 'garbage\n',
      },
      {},
    );
    const store = new FactStore(io, [netStatisticsCollector], silentLogger());
    const result = await store.get('net.statistics', 'eth0');
    expect(result).toMatchObject({ ok: true, value: { counters: { rx_dropped: 29220, rx_packets: 1000 } } });
  });

  it('ethtool.stats parses ethtool -S and turns "no stats available" into unsupported', async () => {
    const io = fakeIO(
      {},
      {
        'ethtool -S eth0': { stdout: realCapture('local-vm/ethtool_-S-virtio_net-eth0.txt') },
        'ethtool -S lo': { stderr: 'no stats available\n', exitCode: 94 },
      },
    );
    const store = new FactStore(io, [ethtoolStatsCollector], silentLogger());
    const eth0 = await store.get('ethtool.stats', 'eth0');
    expect(eth0.ok && eth0.value.counters.find((counter) => counter.name === 'rx_kicks')?.value).toBe(442);
    const lo = await store.get('ethtool.stats', 'lo');
    expect(lo.ok).toBe(false);
    expect(!lo.ok && lo.error.kind).toBe('unsupported');
  });
});
