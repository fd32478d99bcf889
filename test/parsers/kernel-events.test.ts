import { describe, expect, it } from 'vitest';
import { parseKernelEvents, type KernelEvent } from '../../src/parsers/kernel-events.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const only = (file: string): KernelEvent[] => parseKernelEvents(realCapture(file)).events;

describe('parseKernelEvents over real kernel logs', () => {
  it('counts NETDEV WATCHDOG timeouts per port in the 6.x "CPU: n:" form, with first and last uptime', () => {
    const log = parseKernelEvents(realCapture('kernel-events/r8125-netdev-watchdog-cpu-format-1.txt'));
    expect(log.clock).toBe('uptime');
    expect(log.endSeconds).toBeCloseTo(29949.25, 1);
    expect(log.events).toEqual([
      expect.objectContaining({
        kind: 'tx-timeout',
        detail: 'watchdog',
        driver: 'r8125',
        address: '0000:22:04.0',
        interface: 'eth4',
        count: 4,
        firstSeconds: 1356.29693,
        lastSeconds: 28094.903314,
      }),
      expect.objectContaining({ kind: 'tx-timeout', address: '0000:22:01.0', interface: 'eth1', count: 3 }),
    ]);
  });

  it('reads the old watchdog form "eth0 (e1000e): transmit queue 0 timed out" with its driver', () => {
    expect(only('kernel-events/e1000e-netdev-watchdog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'tx-timeout', driver: 'e1000e', interface: 'eth0', count: 1, firstAt: '1212.593121 s after boot' }),
    ]);
  });

  it('counts "Detected Tx Unit Hang" (igb under syslog dates, ixgbe with its multi-line dump)', () => {
    expect(only('kernel-events/igb-tx-unit-hang-syslog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'tx-hang', driver: 'igb', address: '0000:09:00.0', count: 2, firstAt: 'May 6 19:47:29' }),
    ]);
    expect(only('kernel-events/ixgbe-tx-unit-hang-1.txt')).toEqual([
      expect.objectContaining({ kind: 'tx-hang', driver: 'ixgbe', interface: 'eth3', count: 2 }),
    ]);
  });

  it('counts AER errors once each: by "PCIe Bus Error" lines when present, else by "error received", on the device named', () => {
    expect(only('kernel-events/aer-pcieport-receiver-error-sata-1.txt')).toEqual([
      expect.objectContaining({ kind: 'aer-corrected', driver: 'pcieport', address: '0000:00:1d.0', count: 3 }),
    ]);
    expect(only('kernel-events/aer-corrected-received-syslog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'aer-corrected', address: '0000:00:1c.5', count: 12 }),
    ]);
    // The root port relays it; the NIC printed it.
    expect(only('kernel-events/aer-alx-badtlp-1.txt')).toEqual([
      expect.objectContaining({ kind: 'aer-corrected', driver: 'alx', address: '0000:07:00.0', count: 1 }),
    ]);
  });

  it('reads rejected transceivers (ixgbe with its address, i40e without a prefix) and the mlx5 health line', () => {
    expect(only('kernel-events/ixgbe-unsupported-sfp-journal-1.txt')).toEqual([
      expect.objectContaining({ kind: 'module-rejected', driver: 'ixgbe', address: '0000:5e:00.0', count: 1 }),
    ]);
    expect(only('kernel-events/i40e-unsupported-sfp-1.txt')).toEqual([expect.objectContaining({ kind: 'module-rejected', address: null })]);
    expect(only('kernel-events/mlx5-health-compromised-1.txt')).toEqual([
      expect.objectContaining({ kind: 'firmware-fault', detail: 'health-compromised' }),
    ]);
  });

  it('counts one MDD event for the four lines ice prints for it, under `dmesg -H` relative stamps', () => {
    expect(only('kernel-events/ice-mdd-vf-1.txt')).toEqual([
      expect.objectContaining({ kind: 'mdd', driver: 'ice', address: '0000:86:00.0', count: 1, firstAt: null }),
    ]);
  });

  it('reads a conntrack-full line a mailer wrapped, over-MTU drops with their sizes, and a link that went down after up', () => {
    expect(only('kernel-events/conntrack-full-wrapped-syslog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'conntrack-full', count: 5, firstAt: 'Feb 23 16:44:36' }),
    ]);
    expect(only('kernel-events/ovs-over-mtu-tap-syslog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'over-mtu', interface: 'tap0e778df8-ca', count: 3, packetBytes: 8950, mtuBytes: 1450 }),
    ]);
    expect(only('kernel-events/ixgbe-link-flap-syslog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'link-flap', driver: 'ixgbe', interface: 'eth11', count: 1, lastAt: 'Nov 17 13:16:56' }),
    ]);
  });

  it('counts a page allocation failure only when its call trace is in the network path', () => {
    expect(only('kernel-events/page-alloc-napi-journal-1.txt')).toEqual([
      expect.objectContaining({ kind: 'page-alloc-failure', count: 1 }),
    ]);
    expect(only('kernel-events/page-alloc-capture-module-1.txt')).toEqual([]);
  });

  it('finds nothing in healthy logs: a probe, and every capture in dmesg/', () => {
    const together = 'dmesg/ice-iavf-link-quoted-1.txt';
    for (const file of ['kernel-events/i40e-healthy-probe-journal-1.txt', ...realCaptures('dmesg')].filter((file) => file !== together))
      expect(only(file), file).toEqual([]);
    // Four ports that lost link within 20 ms, 13 days after boot: lost links, but taken down together by the host.
    const ports = only(together);
    expect(ports.length).toBe(4);
    for (const event of ports) expect(event).toMatchObject({ kind: 'link-flap', detail: 'together' });
  });

  it('a first "Link is Down" hours after boot is a lost link (the excerpt began while it was up); one at probe time is not', () => {
    expect(only('kernel-events/igb-link-down-once-syslog-1.txt')).toEqual([
      expect.objectContaining({ kind: 'link-flap', interface: 'eth0', count: 1, detail: 'still-down' }),
    ]);
    const probe = parseKernelEvents(
      [
        '[    4.120000] e1000e 0000:00:1f.6 eth0: NIC Link is Down',
        '[    9.310000] e1000e 0000:00:1f.6 eth0: NIC Link is Up 1000 Mbps Full Duplex',
      ].join('\n'),
    );
    expect(probe.events).toEqual([]);
    const cameBack = parseKernelEvents(
      [
        '[ 7200.000001] igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Down',
        '[ 7203.500000] igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Up 1000 Mbps Full Duplex',
      ].join('\n'),
    );
    expect(cameBack.events).toEqual([expect.objectContaining({ kind: 'link-flap', interface: 'eno1', detail: null })]);
  });

  it("reads TCP's socket-memory complaints as one host-wide event, whatever prefix the log gives them", () => {
    const events = parseKernelEvents(
      [
        'Mar  3 10:00:01 web1 kernel: [86400.100000] TCP: out of memory -- consider tuning tcp_mem',
        'Mar  3 10:00:02 web1 kernel: [86401.200000] TCP: out of memory -- consider tuning tcp_mem',
        '[  512.000000] Out of socket memory',
        '[  600.000000] TCP: too many orphaned sockets',
        'TCP: out of memory -- consider tuning tcp_mem',
      ].join('\n'),
    ).events;
    expect(events).toEqual([
      expect.objectContaining({ kind: 'socket-memory', detail: 'tcp-mem', count: 4, interface: null, address: null }),
      expect.objectContaining({ kind: 'socket-memory', detail: 'orphans', count: 1 }),
    ]);
    // The words alone, in a sentence about something else, are not the kernel's line.
    expect(parseKernelEvents('the OOM killer ran out of memory; consider tuning vm.overcommit').events).toEqual([]);
  });

  it('stays linear and bounded on hostile input', () => {
    const long = 'x'.repeat(100_000);
    expect(parseKernelEvents(`${long}\n${'NETDEV WATCHDOG: '.repeat(2000)}\n`).events.length).toBeLessThanOrEqual(1);
    const many = Array.from(
      { length: 2000 },
      (_, index) => `[ 1.0] eth${index}: NIC Link is Up 10 Gbps\n[ 2.0] eth${index}: NIC Link is Down`,
    ).join('\n');
    expect(parseKernelEvents(many).events).toHaveLength(500);
    expect(parseKernelEvents('').events).toEqual([]);
  });
});

describe('parseKernelEvents: quoted echoes', () => {
  it('a device-less fragment of a message one device logged is not a second event', () => {
    const text = [
      'because an unsupported SFP module type was detected.',
      '[160831.934190] i40e 0000:5e:00.1: Rx/Tx is disabled on this device because an unsupported SFP module type was detected.',
    ].join('\n');
    expect(parseKernelEvents(text).events).toEqual([
      expect.objectContaining({ kind: 'module-rejected', address: '0000:5e:00.1', count: 1 }),
    ]);
  });

  it('a bare mention of a transmit hang echoes the device whose watchdog timeout the log names (one fault told two ways)', () => {
    const text = [
      'e1000e 0000:01:00.0: eth1: Detected Hardware Unit Hang: TDH <36> ... NETDEV WATCHDOG: eth1 (e1000e): transmit queue 0 timed out ... e1000e 0000:01:00.0: eth1: Reset adapter',
      'After "Detected Hardware Unit Hang" traffic stops until the driver resets the NIC.',
    ].join('\n');
    const events = parseKernelEvents(text).events;
    expect(events.every((event) => event.interface === 'eth1' || event.address === '0000:01:00.0')).toBe(true);
    expect(events.map((event) => event.kind)).toContain('tx-timeout');
  });

  it("names the interface of ixgbe's Tx Unit Hang under a syslog-ng tag", () => {
    const text = [
      '[kern.err] [kernel: .]: ixgbe 0000:08:00.1: eth3: Detected Tx Unit Hang',
      '[kern.info] [kernel: .]: ixgbe 0000:08:00.1: eth3: tx hang 301 detected on queue 2, resetting adapter',
    ].join('\n');
    for (const event of parseKernelEvents(text).events) expect(event).toMatchObject({ address: '0000:08:00.1', interface: 'eth3' });
  });

  it('counts "bna: enp1s0f2 link down" after its link up as a flap', () => {
    const text = [
      '[ 136.2] bna: enp1s0f2 link up',
      '[ 160.2] bna: enp1s0f2 link down',
      '[ 167.6] bna: enp1s0f2 link up',
      '[ 169.7] bna: enp1s0f2 link down',
    ].join('\n');
    expect(parseKernelEvents(text).events).toEqual([expect.objectContaining({ kind: 'link-flap', interface: 'enp1s0f2', count: 2 })]);
  });

  it('reads a link message that opens with the port name and driver details, and calls a drop seconds after "up" short-lived', () => {
    const text = [
      'Mar  2 08:01:40 kernel: lan2 (Int switch port: 2) (Logical Port: 2) (phyId: 4) Link DOWN.',
      'Mar  2 08:01:44 kernel: eth1 (Int switch port: 1) (phyId: 3) Link Up at 1000 mbps full duplex AN: On',
      'Mar  2 08:01:52 kernel: eth1 (Int switch port: 1) (phyId: 3) Link DOWN.',
      'Mar  2 09:30:00 kernel: eth1: Link is Up - 10Gbps/Full',
      'Mar  2 11:00:00 kernel: eth1: Link is Down',
      'Mar  2 11:00:09 kernel: eth1: Link is Up - 10Gbps/Full',
    ].join('\n');
    const flaps = parseKernelEvents(text).events;
    expect(flaps).toEqual([
      expect.objectContaining({ kind: 'link-flap', interface: 'eth1', detail: 'short-lived', count: 1 }),
      expect.objectContaining({ kind: 'link-flap', interface: 'eth1', detail: null, count: 1 }),
    ]);
    // "lan2" is no kernel-style name: a switch port's label names no interface of this host.
    expect(flaps.some((event) => event.interface === 'lan2')).toBe(false);
  });

  it('times a short-lived link in seconds since boot as well', () => {
    const text = [
      '[ 900.1] r8169 0000:02:00.0 enp2s0: Link is Up - 1Gbps/Full',
      '[ 905.0] r8169 0000:02:00.0 enp2s0: Link is Down',
      '[ 990.0] r8169 0000:02:00.0 enp2s0: Link is Up - 1Gbps/Full',
      '[ 9000.0] r8169 0000:02:00.0 enp2s0: Link is Down',
      '[ 9100.0] r8169 0000:02:00.0 enp2s0: Link is Up - 1Gbps/Full',
    ].join('\n');
    const details = parseKernelEvents(text).events.map((event) => [event.detail, event.count]);
    expect(details).toEqual([
      ['short-lived', 1],
      [null, 1],
    ]);
  });
});
