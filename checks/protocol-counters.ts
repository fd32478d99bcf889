import { z } from 'zod';
import { defineCheck, symptom } from '../src/engine/check.js';
import type { Evidence } from '../src/report/schema.js';

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
});

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
    'Reads /proc/net/snmp and /proc/net/netstat (totals since boot): UDP RcvbufErrors/SndbufErrors (datagrams dropped because a socket buffer was full), TCP RetransSegs against OutSegs (loss on the path or at a receiver), TCPBacklogDrop and receive-queue pruning (a socket that could not keep up), ListenDrops (an application that does not accept fast enough). A rate or a large count since boot decides the severity.',
  scope: 'host',
  requires: ['net.protocol'],
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
      data: z.object({ backlogDrops: count, pruned: count, pruneCalled: count }),
      message:
        'TCP dropped {backlogDrops} segments for a full socket backlog and pruned {pruned} receive queues since boot: an application did not read its sockets fast enough',
      fix: 'Raise net.ipv4.tcp_rmem (third field) and make the receiving application read faster (more threads, pinned to NIC-local CPUs); this is not a NIC fault.',
    }),
    'listen-drops': symptom({
      severity: 'info',
      data: z.object({ listenDrops: count, overflows: count }),
      message:
        'ListenDrops = {listenDrops} (ListenOverflows {overflows}) since boot: connections were refused because an application did not accept them fast enough',
      fix: "Raise the application's listen backlog and net.core.somaxconn; nothing to change on the NIC.",
    }),
  },
  run({ facts, options: opts, report, source }) {
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

    const backlogDrops = get('TcpExt.TCPBacklogDrop') ?? 0;
    const pruned = get('TcpExt.RcvPruned') ?? 0;
    if (backlogDrops > 0 || pruned > 0) {
      const evidence: Evidence[] = [
        { label: 'TcpExt TCPBacklogDrop', observed: backlogDrops, expected: 0, unit: 'segments', ...netstat },
        { label: 'TcpExt RcvPruned', observed: pruned, expected: 0, ...netstat },
      ];
      report('socket-backlog-drops', { evidence, data: { backlogDrops, pruned, pruneCalled: get('TcpExt.PruneCalled') ?? 0 } });
    }

    const listenDrops = get('TcpExt.ListenDrops') ?? 0;
    if (listenDrops > 0) {
      report('listen-drops', {
        evidence: [{ label: 'TcpExt ListenDrops', observed: listenDrops, expected: 0, ...netstat }],
        data: { listenDrops, overflows: get('TcpExt.ListenOverflows') ?? 0 },
      });
    }
    return undefined;
  },
});
