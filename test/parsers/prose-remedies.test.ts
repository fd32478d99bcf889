import { describe, expect, it } from 'vitest';
import {
  statedJumboMtu,
  statedTriedWithoutEffect,
  statedCpuFrequencyEvidence,
  statedFlowControlCure,
  statedMtuEvidence,
  statedOffloadEffect,
  statedRingCure,
  statedSettingCures,
} from '../../src/parsers/prose-remedies.js';

describe('statedFlowControlCure', () => {
  it.each([
    'Our Netgear had 802.3x disabled. After enabling flow control on that port, it works: 940 Mbit/s.',
    'I turned pause frames on at both ends and the stalls are gone, everything is fine now',
    'With FC on at the switch the problem disappeared.',
    'Switched flow control on in the UniFi controller. That fixed it!',
  ])('reads a cure in %j', (prose) => {
    expect(statedFlowControlCure(prose)).toBe(true);
  });

  it.each([
    'Flow control is off on the switch. Copies still crawl at 30 Mbit/s.',
    'I enabled flow control but it did not help; still slow.',
    'Disabling flow control fixed it for us (pause storms from a broken host).',
    'I enabled flow control, it is not good again yet.',
    'No mention of pause here, but after the driver update it works.',
  ])('reads no flow-control cure in %j', (prose) => {
    expect(statedFlowControlCure(prose)).toBe(false);
  });
});

describe('statedMtuEvidence', () => {
  it.each([
    'Lowering the MTU on the tunnel to 1400 fixed it, transfers no longer hang.',
    'After we enabled jumbo frames on the core switch all was OK again.',
    'The fix was clamping the TCP MSS on the router: works now.',
    'All our storage VLANs run jumbo frames (9000), yet the largest ping that gets through is 1472 bytes.',
    'Since I changed the NAS to MTU 9000 the backup client connects but cannot send anything.',
    'We turned on jumbo frames on the database host; now larger queries hang while small ones return.',
    'After "ip link set bond0 mtu 9000" large packets are lost, ssh still logs in fine.',
  ])('reads the frame size as the cause in %j', (prose) => {
    expect(statedMtuEvidence(prose)).toBe(true);
  });

  it.each([
    'MTU is 1500 everywhere. Replacing the cable fixed it.',
    'We use jumbo frames and the largest file we copied was 40 GB without trouble.',
    'Raised the ring size to 4096 and it works.',
    'ping -s 1472 works, so does iperf3.',
    'With MTU 9000 on both hosts I cannot get more than 6 Gbit/s.',
    'Jumbo frames are set everywhere and transfers run at line rate; the problem is latency.',
  ])('reads no frame-size evidence in %j', (prose) => {
    expect(statedMtuEvidence(prose)).toBe(false);
  });
});

describe('statedCpuFrequencyEvidence', () => {
  it.each([
    'With the powersave governor we get 6 Gbit/s; running a busy loop on the CPUs pushes it to 9.4.',
    'Switching to the performance governor fixed it.',
    'Booting with intel_pstate=disable (acpi-cpufreq) solved the problem for us.',
  ])('reads CPU power management as the cause in %j', (prose) => {
    expect(statedCpuFrequencyEvidence(prose)).toBe(true);
  });

  it.each([
    'The CPU is busy with interrupts on core 0 (ksoftirqd at 100 %), governor ondemand.',
    'Governor is performance on all cores; the rate is still 4 Gbit/s.',
    'Stressing the CPUs made no difference.',
  ])('reads no power-management evidence in %j', (prose) => {
    expect(statedCpuFrequencyEvidence(prose)).toBe(false);
  });
});

describe('statedOffloadEffect', () => {
  it.each([
    'Turning on scatter-gather on the guest (ethtool -K eth1 sg on) gave a huge boost: 1.2 Gbit/s became 6.',
    'With TSO and GSO disabled the 1G uplink can be fully saturated; with them on, uploads stay at half.',
    'Enabling tx checksumming on the backend interface sped things up a lot, the transfer is much faster.',
    'w/o GRO 3.1 Gbit/s, with it 9.4: much faster',
  ])('reads an offload that decides the throughput in %j', (prose) => {
    expect(statedOffloadEffect(prose)).toBe(true);
  });

  it.each([
    'I disabled TSO but it did not help, still 2 Gbit/s.',
    'TSO, GSO and GRO are all on. Raising the rings made it much faster.',
    'Offloads: we have not touched them.',
    'Disabling GRO cannot saturate the link either.',
  ])('reads no offload effect in %j', (prose) => {
    expect(statedOffloadEffect(prose)).toBe(false);
  });
});

describe('statedRingCure', () => {
  it.each([
    ['Changing buffer rings (from default 512) to maximum supported by card (4096) removes issue.', ''],
    ['After increasing the RX ring to 4096 the drops stopped.', ''],
    ['I raised the ring buffers with ethtool -G and it works now.', ''],
  ])('reads larger rings as the cure in %j', (prose, commands) => {
    expect(statedRingCure(prose, commands)).toEqual({ interfaces: [] });
  });

  it("names the interfaces of the poster's ethtool -G commands, in either argument order, and not a usage line's placeholder", () => {
    const commands = 'ethtool -G 4096 ens16f0\n# ethtool -G ens16f1 rx 4096 tx 4096\nethtool -G devname rx N\n';
    expect(statedRingCure('Raising the rings to the maximum fixed it.', commands)).toEqual({ interfaces: ['ens16f0', 'ens16f1'] });
  });

  it.each([
    'Rings are at 512 of 4096; should I raise them?',
    'Increasing the rings did not help, the drops are the same.',
    'I reduced the rings to 256 and now it works fine again (lower latency).',
    'We changed the MTU to 9000 and it works now. Rings are default.',
  ])('reads no ring cure in %j', (prose) => {
    expect(statedRingCure(prose)).toBeNull();
  });
});

describe('statedSettingCures', () => {
  it.each([
    ['The answer here has actually been to increase netdev_max_backlog.', 'backlog'],
    ['Bumping rmem_max and tcp_rmem to 64 MB fixed it, 9.4 Gbit/s now.', 'socketBuffers'],
    ['After raising the combined channels to 8 with ethtool -L the drops stopped.', 'queues'],
  ])('reads the setting whose raise cured it in %j', (prose, setting) => {
    expect(statedSettingCures(prose)).toEqual({ backlog: false, socketBuffers: false, queues: false, [setting]: true });
  });

  it.each([
    'bpftune raised netdev_budget and netdev_budget_usecs, which did not help.',
    'Increasing netdev_max_backlog did not help at all.',
    'I lowered tcp_rmem and it works fine again.',
    'netdev_max_backlog is 1000 on this host.',
  ])('reads no cure in %j', (prose) => {
    expect(statedSettingCures(prose)).toEqual({ backlog: false, socketBuffers: false, queues: false });
  });
});

describe('statedJumboMtu', () => {
  it.each([
    // Real tickets (fixtures/eval: perfSONAR, NetFPGA).
    ['I get bwctl results of all zeros on the transfer with iperf or iperf3 with interface MTU set to 8000, 8192, or 9000.', 8000],
    ['I configured an MTU size of 9000 Bytes for the Linux nodes', 9000],
    ['both hosts run a 9000 MTU', 9000],
    ['mtu=9216 on the storage VLAN', 9216],
  ])('%s → %s', (text, mtu) => {
    expect(statedJumboMtu(text)).toBe(mtu);
  });

  it.each([
    ['the default MTU of 1500'],
    ['the switch supports MTU up to 9216'],
    ['a maximum MTU 9000 on this NIC'],
    ['no MTU is mentioned, only 9000 Mbit/s'],
  ])('null for %s', (text) => {
    expect(statedJumboMtu(text)).toBeNull();
  });
});

describe('statedTriedWithoutEffect', () => {
  const none = { offloads: false, rings: false, flowControl: false, mtu: false };

  it('reads a real post: offloads and jumbo MTU tried, no luck (fixtures/eval, freebsd-hackers)', () => {
    expect(
      statedTriedWithoutEffect('I used iperf3 to do the benchmark. Also tried disabling TSO and LRO, enabling Jumbo MTU, but no luck.'),
    ).toEqual({
      ...none,
      offloads: true,
      mtu: true,
    });
  });

  it.each([
    ['I tried raising the rx ring to 4096, same results.', 'rings'],
    ['We tested with flow control on at both ends: nothing changed.', 'flowControl'],
  ] as const)('%s → %s', (text, setting) => {
    expect(statedTriedWithoutEffect(text)).toEqual({ ...none, [setting]: true });
  });

  it.each([
    // A cure, not a test that moved nothing.
    ['I tried disabling TSO and now it works at line rate.'],
    // A failure that is not about the setting tried.
    ['TSO is off. I tried another cable but no luck.'],
  ])('nothing for %s', (text) => {
    expect(statedTriedWithoutEffect(text)).toEqual(none);
  });
});
