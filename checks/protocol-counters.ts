import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence } from '../src/report/schema.js';
import { crosses, rateText, sinceBoot, type SinceBoot, type SinceBootLimits } from '../src/domain/since-boot.js';

const options = z.object({
  /** TCP segments retransmitted per segment sent, since boot, from which loss is a warning. */
  retransWarningRatio: z.number().positive().default(0.01),
  /** ... and from which it is worth a note. */
  retransNoteRatio: z.number().positive().default(0.001),
  /** UDP datagrams dropped for a full socket buffer, per datagram received, from which it is a warning. */
  udpBufferWarningRatio: z.number().positive().default(1e-4),
  /**
   * ... or from this many since boot, whatever the rate (as hotsos judges loss): millions of
   * dropped datagrams over a long uptime are real bursts of loss a small average hides.
   */
  udpBufferWarningCount: z.number().int().positive().default(1_000_000),
  /** Too few segments say nothing about a rate. */
  minSegments: z.number().int().nonnegative().default(100_000),
  /**
   * Drops above the NIC (backlog, pruned queues, zero window, listen overflows, memory
   * pressure, checksum errors) are a warning from this count since boot, or this rate: below
   * both they happened, showed no lasting harm, and are a note.
   */
  dropsWarning: z.object({ count: z.number().positive(), perHour: z.number().positive() }).default({ count: 10_000, perHour: 100 }),
  /** Checksum errors are corruption on the wire or in a NIC: a lower bar. */
  checksumWarning: z.object({ count: z.number().positive(), perHour: z.number().positive() }).default({ count: 1_000, perHour: 10 }),
});

const perHour = z.number().nonnegative().nullable();

function severityFor(value: SinceBoot, limits: SinceBootLimits): { severity?: 'info' } {
  return crosses(value, limits) ? {} : { severity: 'info' };
}

/** A kernel counter since boot. */
const count = z.number().int().nonnegative();

/**
 * Counters the kernel keeps per protocol (/proc/net/snmp, /proc/net/netstat): the drops and
 * retransmits that happen above the NIC, where no ethtool counter shows them.
 */
export default defineCheck({
  id: 'protocol-counters',
  title: 'TCP and UDP loss counters above the NIC',
  description:
    'Reads /proc/net/snmp and /proc/net/netstat (totals since boot): UDP RcvbufErrors/SndbufErrors (datagrams dropped because a socket buffer was full), TCP RetransSegs against OutSegs (loss on the path or at a receiver), TCPBacklogDrop and receive-queue pruning (a socket that could not keep up), ListenOverflows/ListenDrops (an application that does not accept fast enough), TCPZeroWindowDrop and TCPRcvQDrop (a full receive window or queue), TCPMemoryPressures, TCPAbortOnMemory and PFMemallocDrop (the kernel short of socket memory), InCsumErrors (corrupted packets), UDP InErrors beyond buffer and checksum errors. A rate since boot (/proc/uptime) or a large count decides the severity; below both a drop is a note.',
  scope: 'host',
  requires: ['net.protocol'],
  optionalFacts: ['host.uptime'],
  options,
  symptoms: {
    'udp-buffer-errors': symptom({
      severity: 'warning',
      data: z.object({
        direction: z.enum(['Rcv', 'Snd']),
        errors: count,
        /** InDatagrams (Rcv) or OutDatagrams (Snd); null when the counter is missing. */
        datagrams: count.nullable(),
        /** errors / (datagrams + errors); null without a datagram count. */
        ratio: z.number().min(0).max(1).nullable(),
      }),
      phrases: {
        share: (d) => (d.ratio === null ? 'unknown share' : d.ratio.toPrecision(2)),
        datagramCount: (d) => (d.datagrams === null ? 'unknown' : String(d.datagrams)),
        buffer: (d) => (d.direction === 'Rcv' ? 'receive' : 'send'),
      },
      message:
        'UDP {direction}bufErrors = {errors} since boot ({share} of {datagramCount} datagrams): datagrams were dropped because a socket {buffer} buffer was full',
      fix: "Raise net.core.rmem_max / rmem_default (and the application's SO_RCVBUF, e.g. iperf3 -w) and net.core.netdev_max_backlog; spread the receiving threads over CPUs. Compare two readings of /proc/net/snmp to see whether it still grows.",
    }),
    'tcp-retransmits': symptom({
      severity: 'warning',
      data: z.object({ retrans: count, sent: count, ratio: z.number().nonnegative() }),
      phrases: { percent: (d) => (d.ratio * 100).toFixed(2) },
      message:
        "TCP retransmitted {retrans} of {sent} segments since boot ({percent} %): loss on the path, at a receiver, or in this host's own queues",
      fix: 'Find where packets are lost: NIC and softnet drops on both ends (ethtool -S, /proc/net/softnet_stat), qdisc drops (tc -s qdisc), switch port errors; pace many streams with fq (net.core.default_qdisc = fq).',
    }),
    'socket-backlog-drops': symptom({
      severity: 'warning',
      data: z.object({ backlogDrops: count, pruned: count, pruneCalled: count, ofoPruned: count, perHour }),
      phrases: { rate: (d) => rateText(d.perHour) },
      message:
        'TCP dropped {backlogDrops} segments for a full socket backlog and pruned {pruned} receive queues ({ofoPruned} out-of-order queues) since boot{rate}: an application did not read its sockets fast enough',
      fix: 'Raise net.ipv4.tcp_rmem (third field) and make the receiving application read faster (more threads, pinned to NIC-local CPUs); this is not a NIC fault.',
    }),
    'listen-drops': symptom({
      severity: 'info',
      data: z.object({ listenDrops: count, overflows: count, perHour }),
      phrases: { rate: (d) => rateText(d.perHour) },
      message:
        'ListenDrops = {listenDrops} (ListenOverflows {overflows}) since boot{rate}: connections were refused because an application did not accept them fast enough',
      fix: "Raise the application's listen backlog and net.core.somaxconn; nothing to change on the NIC.",
    }),
    'zero-window-drops': symptom({
      severity: 'warning',
      data: z.object({ zeroWindowDrops: count, receiveQueueDrops: count, perHour }),
      phrases: { rate: (d) => rateText(d.perHour) },
      message:
        'TCP dropped {zeroWindowDrops} segments that arrived for a zero receive window and {receiveQueueDrops} for a full receive queue since boot{rate}: receivers did not read their sockets fast enough, or ran out of socket memory',
      fix: 'Make the receiving application read faster (more threads, on NIC-local cores) and give its sockets room (net.ipv4.tcp_rmem); nothing to change on the NIC.',
    }),
    'memory-pressure': symptom({
      severity: 'warning',
      data: z.object({ memoryPressures: count, abortOnMemory: count, pfmemallocDrops: count, perHour }),
      phrases: { rate: (d) => rateText(d.perHour) },
      message:
        'TCP entered memory pressure {memoryPressures} times since boot{rate}, aborted {abortOnMemory} connections for want of memory and dropped {pfmemallocDrops} packets that arrived in emergency memory (PFMEMALLOC): the kernel ran short of socket memory',
      fix: 'Compare /proc/net/sockstat memory with net.ipv4.tcp_mem (pages); raise tcp_mem or find the sockets holding memory (ss -tm); PFMEMALLOC drops mean the host itself is short of free memory (vm.min_free_kbytes, memory use).',
    }),
    'checksum-errors': symptom({
      severity: 'warning',
      data: z.object({
        protocol: z.enum(['Tcp', 'Udp', 'Ip', 'Icmp']),
        errors: count,
        /** Segments or datagrams received (InSegs, InDatagrams, InReceives); null when not counted. */
        received: count.nullable(),
        perHour,
      }),
      phrases: {
        rate: (d) => rateText(d.perHour),
        share: (d) => (d.received ? ` of ${d.received} received` : ''),
      },
      message: '{protocol} InCsumErrors = {errors}{share} since boot{rate}: packets arrived corrupted and were dropped',
      fix: 'Corruption after the NIC checked the frame, or a NIC that did not check it: look for physical errors on the port (ethtool -S CRC counters, the switch port), try with receive checksum offload off (ethtool -K <if> rx off) to tell a NIC or driver fault from corruption on the wire.',
    }),
    'udp-other-errors': symptom({
      severity: 'info',
      data: z.object({ inErrors: count, rcvbufErrors: count, checksumErrors: count, other: count }),
      message:
        'UDP InErrors = {inErrors} since boot, {other} of them neither buffer nor checksum errors: malformed datagrams or a socket filter or memory limit dropped them',
      fix: 'Nothing to tune on the NIC; dropwatch or perf (skb:kfree_skb) shows where the kernel drops them.',
    }),
  },
  run({ facts, optional, options: opts, report, source }) {
    const { counters } = facts['net.protocol'];
    const get = (key: string) => counters[key];
    const where = (file: string) => {
      const from = source('net.protocol', file);
      return from ? { source: from } : {};
    };
    const snmp = where('/proc/net/snmp');
    const netstat = where('/proc/net/netstat');

    for (const direction of ['Rcv', 'Snd'] as const) {
      const errors = get(`Udp.${direction}bufErrors`);
      const datagrams = direction === 'Rcv' ? get('Udp.InDatagrams') : get('Udp.OutDatagrams');
      if (errors === undefined || errors === 0) continue;
      const ratio = datagrams ? errors / (datagrams + errors) : null;
      report('udp-buffer-errors', {
        ...(ratio !== null && ratio < opts.udpBufferWarningRatio && errors < opts.udpBufferWarningCount
          ? { severity: 'info' as const }
          : {}),
        evidence: [
          { label: `Udp ${direction}bufErrors`, observed: errors, expected: 0, unit: 'datagrams', ...snmp },
          ...(datagrams !== undefined
            ? [{ label: direction === 'Rcv' ? 'Udp InDatagrams' : 'Udp OutDatagrams', observed: datagrams, unit: 'datagrams', ...snmp }]
            : []),
        ],
        data: { direction, errors, datagrams: datagrams ?? null, ratio },
      });
    }

    const retrans = get('Tcp.RetransSegs');
    const sent = get('Tcp.OutSegs');
    if (retrans !== undefined && sent !== undefined && sent >= opts.minSegments && retrans / sent >= opts.retransNoteRatio) {
      const ratio = retrans / sent;
      report('tcp-retransmits', {
        ...(ratio < opts.retransWarningRatio ? { severity: 'info' as const } : {}),
        evidence: [
          {
            label: 'Tcp RetransSegs',
            observed: retrans,
            expected: `< ${opts.retransNoteRatio * 100} % of OutSegs`,
            unit: 'segments',
            ...snmp,
          },
          { label: 'Tcp OutSegs', observed: sent, unit: 'segments', ...snmp },
        ],
        data: { retrans, sent, ratio: Number(ratio.toFixed(5)) },
      });
    }

    const uptime = optional['host.uptime'].ok ? optional['host.uptime'].value.seconds : null;
    const rate = (value: number) => sinceBoot(value, uptime);

    const backlogDrops = get('TcpExt.TCPBacklogDrop') ?? 0;
    const pruned = get('TcpExt.RcvPruned') ?? 0;
    const ofoPruned = get('TcpExt.OfoPruned') ?? 0;
    if (backlogDrops > 0 || pruned > 0) {
      const judged = rate(backlogDrops + pruned);
      const evidence: Evidence[] = [
        { label: 'TcpExt TCPBacklogDrop', observed: backlogDrops, expected: 0, unit: 'segments', ...netstat },
        { label: 'TcpExt RcvPruned', observed: pruned, expected: 0, ...netstat },
      ];
      report('socket-backlog-drops', {
        ...severityFor(judged, opts.dropsWarning),
        evidence,
        data: { backlogDrops, pruned, pruneCalled: get('TcpExt.PruneCalled') ?? 0, ofoPruned, perHour: judged.perHour },
      });
    }

    const listenDrops = get('TcpExt.ListenDrops') ?? 0;
    const overflows = get('TcpExt.ListenOverflows') ?? 0;
    if (listenDrops > 0 || overflows > 0) {
      const judged = rate(Math.max(listenDrops, overflows));
      report('listen-drops', {
        // Refused connections are a warning only when they are many or frequent.
        ...(crosses(judged, opts.dropsWarning) ? { severity: 'warning' as const } : {}),
        evidence: [
          { label: 'TcpExt ListenDrops', observed: listenDrops, expected: 0, ...netstat },
          { label: 'TcpExt ListenOverflows', observed: overflows, expected: 0, ...netstat },
        ],
        data: { listenDrops, overflows, perHour: judged.perHour },
      });
    }

    const zeroWindowDrops = get('TcpExt.TCPZeroWindowDrop') ?? 0;
    const receiveQueueDrops = get('TcpExt.TCPRcvQDrop') ?? 0;
    if (zeroWindowDrops > 0 || receiveQueueDrops > 0) {
      const judged = rate(zeroWindowDrops + receiveQueueDrops);
      report('zero-window-drops', {
        ...severityFor(judged, opts.dropsWarning),
        evidence: [
          { label: 'TcpExt TCPZeroWindowDrop', observed: zeroWindowDrops, expected: 0, unit: 'segments', ...netstat },
          { label: 'TcpExt TCPRcvQDrop', observed: receiveQueueDrops, expected: 0, unit: 'segments', ...netstat },
        ],
        data: { zeroWindowDrops, receiveQueueDrops, perHour: judged.perHour },
      });
    }

    const memoryPressures = get('TcpExt.TCPMemoryPressures') ?? 0;
    const abortOnMemory = get('TcpExt.TCPAbortOnMemory') ?? 0;
    const pfmemallocDrops = get('TcpExt.PFMemallocDrop') ?? 0;
    if (memoryPressures > 0 || abortOnMemory > 0 || pfmemallocDrops > 0) {
      const judged = rate(memoryPressures);
      // Lost connections or packets are harm whatever their number; pressure alone is judged by count or rate.
      const harmed = abortOnMemory > 0 || pfmemallocDrops > 0 || crosses(judged, opts.dropsWarning);
      report('memory-pressure', {
        ...(harmed ? {} : { severity: 'info' as const }),
        evidence: [
          { label: 'TcpExt TCPMemoryPressures', observed: memoryPressures, expected: 0, ...netstat },
          { label: 'TcpExt TCPAbortOnMemory', observed: abortOnMemory, expected: 0, ...netstat },
          { label: 'TcpExt PFMemallocDrop', observed: pfmemallocDrops, expected: 0, unit: 'packets', ...netstat },
        ],
        data: { memoryPressures, abortOnMemory, pfmemallocDrops, perHour: judged.perHour },
      });
    }

    const checksumSources = [
      ['Tcp', 'Tcp.InCsumErrors', 'Tcp.InSegs', snmp],
      ['Udp', 'Udp.InCsumErrors', 'Udp.InDatagrams', snmp],
      ['Ip', 'IpExt.InCsumErrors', 'Ip.InReceives', netstat],
      ['Icmp', 'Icmp.InCsumErrors', 'Icmp.InMsgs', snmp],
    ] as const;
    for (const [protocol, errorsKey, receivedKey, where] of checksumSources) {
      const errors = get(errorsKey) ?? 0;
      if (errors === 0) continue;
      const received = get(receivedKey) ?? null;
      const judged = rate(errors);
      report('checksum-errors', {
        ...severityFor(judged, opts.checksumWarning),
        evidence: [{ label: errorsKey.replace('.', ' '), observed: errors, expected: 0, ...where }],
        data: { protocol, errors, received, perHour: judged.perHour },
      });
    }

    const inErrors = get('Udp.InErrors') ?? 0;
    const rcvbufErrors = get('Udp.RcvbufErrors') ?? 0;
    const checksumErrors = get('Udp.InCsumErrors') ?? 0;
    const other = inErrors - rcvbufErrors - checksumErrors;
    if (other > 0) {
      report('udp-other-errors', {
        evidence: [{ label: 'Udp InErrors', observed: inErrors, expected: rcvbufErrors + checksumErrors, ...snmp }],
        data: { inErrors, rcvbufErrors, checksumErrors, other },
      });
    }
    return undefined;
  },
});
