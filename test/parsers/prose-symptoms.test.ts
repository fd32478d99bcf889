import { describe, expect, it } from 'vitest';
import {
  statedInterruptConcentration,
  statedLinkDownshift,
  statedLinkFlapping,
  statedLogRepeats,
  statedSingleQueue,
} from '../../src/parsers/prose-symptoms.js';

describe('statedSingleQueue', () => {
  it.each([
    'With PPPoE on the WAN side the card puts everything on a single queue, so one core hits 100 %.',
    'All traffic goes to the same rx queue although we have thousands of clients.',
    'Only one RX queue is used, the other seven stay at zero.',
    'After the firmware update queue 0 gets all the packets.',
    'When receiving double-tagged frames the adapter places it all on one\nqueue by default.',
  ])('reads one receive queue taking all the traffic in %j', (prose) => {
    expect(statedSingleQueue(prose)).toBe(true);
  });

  it.each([
    'Traffic is not all on one queue any more since we changed the hash fields.',
    'We have 8 queues and the load is spread evenly.',
    'All interrupts are pinned to one CPU by the tuning script.',
    'I set the number of queues to 16 on each port.',
  ])('reads no single-queue report in %j', (prose) => {
    expect(statedSingleQueue(prose)).toBe(false);
  });
});

describe('statedLinkDownshift', () => {
  it.each([
    ['The network manager always negotiates a 10mbps connection. Tested on both 1000Mbps and 100Mbps networks.', 10, 1000],
    ['内核5.10 网卡intel x550 连接2.5G端口时显示1G 而内核5.4时是正常的。', 1000, 2500],
    ['cannot achieve over 1Gbps Link speed. Verified 5Gbps connectivity on PC to PC.', 1000, 5000],
    ['It should link at 10G but it links at 1G after every reboot.', 1000, 10_000],
    ['Plugged into the 10GBASE-T switch the X550 falls back to 100Mb/s full duplex.', 100, 10_000],
    ['The NIC only connects at 100 Mbps on our gigabit switch.', 100, 1000],
    ['ethtool shows 1000Mb/s even though the switch port is 10G.', 1000, 10_000],
    ['The negotiated speed is 1Gbps instead of 10Gbps.', 1000, 10_000],
    ["It's running at 100Mbit instead of gigabit.", 100, 1000],
    ['I am only getting a 1G link on a 2.5G port.', 1000, 2500],
    ["I should have 1000baseT link, but I'm only having 100baseT.", 100, 1000],
    ['intel X550网卡，被默认在千兆状态。另一头接口是电脑的2.5G的接口。', 1000, 2500],
    ['这块万兆网卡接到万兆交换机上只工作在百兆。', 100, 10_000],
    ['The link is stuck at 100Mbps although both ends are gigabit.', 100, 1000],
    ['Speed shows 100Mb/s, should be 1000Mb/s.', 100, 1000],
    ['Link speed is 10Mb/s on a 1Gb network.', 10, 1000],
    ['The link comes up at 1G but never 10G.', 1000, 10_000],
    // The speed a link verb gives the card is what it negotiated, though a noun for the card follows it.
    ['2.5G网卡不能正常识别，只能识别为1000M网卡，使用iperf3进行测试，结果为940M。', 1000, 2500],
    ['The 2.5G card is detected as a 1000M card.', 1000, 2500],
  ])('reads a link below its capability in %j', (prose, negotiatedMbps, capableMbps) => {
    expect(statedLinkDownshift(prose)).toEqual({ negotiatedMbps, capableMbps });
  });

  it('takes what the port can do from a pasted device name', () => {
    expect(
      statedLinkDownshift(
        'eth0 always comes up at 100Mbps.',
        '00:19.0 Ethernet controller: Intel Corporation 82566MM Gigabit Network Connection',
      ),
    ).toEqual({
      negotiatedMbps: 100,
      capableMbps: 1000,
    });
  });

  it.each([
    // Rates are not link speeds.
    'iperf3 shows 940 Mbits/sec on our 10G network.',
    // A link named by its speed is not a negotiation.
    'I upgraded from 1GbE to 10GbE. The 1GbE link was the bottleneck.',
    // A guess.
    'Suspicious about the switch. Maybe the link gets downgraded to 100Mb on a 10G port.',
    'The 10G port links at 10G fine.',
    // Throughput, said with the same words as a link.
    'I cannot get over 1Gbps in iperf3 on my 10G NIC.',
    'Throughput is stuck at 1Gbps on the 10G port.',
    'iperf3 shows 1 Gbps between the two 10G servers.',
    // Only a negotiated speed, nothing faster stated.
    'The port links at 1G.',
    // The other end can do no more: the link came up right.
    'Our 10G NIC connects to a 1G switch, so 1G is expected.',
    // A copy, a download or an ISP plan is not the link.
    'Copying a file over the 10G link runs at 1 Gbps.',
    'Download speed is 100 Mbps on a gigabit connection from my ISP.',
    'My ISP gives me a 1G connection and the router has 2.5G ports.',
    'We have a 1G uplink and a 10G storage network.',
  ])('reads no downshift in %j', (prose) => {
    expect(statedLinkDownshift(prose)).toBeNull();
  });
});

describe('statedInterruptConcentration', () => {
  it.each([
    'All NIC interrupts are routed to cpu0 by default, killing its performance.',
    'The current bottleneck is JUST one core with the process ksoftirqd/23 is 100% si.',
    'top shows one core at 100% si while the others idle.',
    'Every queue IRQ of eth2 lands on the same core.',
    'RPS disabled by default (rps_cpus: 000) — all RX processing on single interrupt CPU',
  ])('reads the receive work on one CPU in %j', (prose) => {
    expect(statedInterruptConcentration(prose)).toBe(true);
  });

  it.each([
    'The interrupts are not all on cpu0 any more since irqbalance runs.',
    'ksoftirqd/2 uses 12% CPU during the test.',
    'iperf3 runs at 100% on one core (a single-threaded tool).',
    'All interrupts are spread over the 16 cores.',
  ])('reads no concentration in %j', (prose) => {
    expect(statedInterruptConcentration(prose)).toBe(false);
  });
});

describe('statedLinkFlapping', () => {
  it.each([
    'MGMT interface `eth0` flaps abruptly. Kernel messages confirm that the interface went down, and came back up.',
    'The uplink keeps flapping every few hours since the firmware update.',
    'Since Monday eth2 goes down and up again several times a day.',
    'The X710 keeps dropping the link under load.',
    'The link drops every 10 minutes and comes back after a few seconds.',
    'eth1 loses link randomly.',
    'NIC disconnects and reconnects every 30 seconds.',
    'We see the port bouncing several times an hour.',
  ])('reads a flapping link in %j', (prose) => {
    expect(statedLinkFlapping(prose)).toBe(true);
  });

  it.each([
    'dmesg clean, no link flaps or PHY resets.',
    'The link is stable, it never flaps.',
    'If the link flaps, the bond fails over to eth1.',
    'We see BGP session flapping between the routers.',
    'However enabling/disabling fw-lldp-agent using the ethtool flaps the link.',
    'Throughput goes down when I add more streams.',
    'I lost the connection once when I moved the cable.',
    'Packets drop and then the TCP window recovers.',
  ])('reads no flapping in %j', (prose) => {
    expect(statedLinkFlapping(prose)).toBe(false);
  });
});

describe('statedLogRepeats', () => {
  it.each([
    'The Killer E2500 causes huge amount of PCIe AER error spam, but the functions work fine.',
    'dmesg is flooded with "NETDEV WATCHDOG" messages.',
    'The same line keeps coming every second in the kernel log.',
  ])('reads messages that keep coming in %j', (prose) => {
    expect(statedLogRepeats(prose)).toBe(true);
  });

  it.each([
    'No more AER spam since the BIOS update.',
    'We have thousands of clients behind this router.',
    'iperf3 runs every minute from cron.',
  ])('reads no repeating messages in %j', (prose) => {
    expect(statedLogRepeats(prose)).toBe(false);
  });
});
