import { z } from 'zod';
import { ParseError } from './parse-error.js';

/**
 * iperf3's `-J` document (3.0 .. 3.17+), read leniently: fields that newer versions add are
 * kept out of the way, fields that older versions lack are optional. What nicdoctor needs:
 * sender/receiver totals, retransmits, per-interval sums, CPU, version, and the error string.
 */
const intervalSum = z
  .object({
    start: z.number(),
    end: z.number(),
    seconds: z.number(),
    bytes: z.number(),
    bits_per_second: z.number(),
    retransmits: z.number().optional(),
    omitted: z.boolean().optional(),
    sender: z.boolean().optional(),
  })
  .loose();

const endSum = z
  .object({
    seconds: z.number().optional(),
    bytes: z.number(),
    bits_per_second: z.number(),
    retransmits: z.number().optional(),
    lost_packets: z.number().optional(),
    packets: z.number().optional(),
    lost_percent: z.number().optional(),
    jitter_ms: z.number().optional(),
    sender: z.boolean().optional(),
  })
  .loose();

const cpu = z
  .object({
    host_total: z.number(),
    host_user: z.number().optional(),
    host_system: z.number().optional(),
    remote_total: z.number(),
    remote_user: z.number().optional(),
    remote_system: z.number().optional(),
  })
  .loose();

const iperf3DocumentSchema = z
  .object({
    start: z
      .object({
        version: z.string().optional(),
        system_info: z.string().optional(),
        tcp_mss_default: z.number().optional(),
        sndbuf_actual: z.number().optional(),
        rcvbuf_actual: z.number().optional(),
        test_start: z
          .object({
            protocol: z.string(),
            num_streams: z.number(),
            omit: z.number().optional(),
            duration: z.number().optional(),
            reverse: z.number().optional(),
            bidir: z.number().optional(),
          })
          .loose()
          .optional(),
      })
      .loose()
      .default({}),
    intervals: z.array(z.object({ sum: intervalSum.optional(), sum_bidir_reverse: intervalSum.optional() }).loose()).default([]),
    end: z
      .object({
        sum_sent: endSum.optional(),
        sum_received: endSum.optional(),
        sum: endSum.optional(),
        sum_sent_bidir_reverse: endSum.optional(),
        sum_received_bidir_reverse: endSum.optional(),
        cpu_utilization_percent: cpu.optional(),
        sender_tcp_congestion: z.string().optional(),
        receiver_tcp_congestion: z.string().optional(),
      })
      .loose()
      .default({}),
    error: z.string().optional(),
    server_output_json: z.unknown().optional(),
  })
  .loose();

export type Iperf3Document = z.infer<typeof iperf3DocumentSchema>;

export interface Iperf3Interval {
  start: number;
  end: number;
  bitsPerSecond: number;
  retransmits: number | null;
  omitted: boolean;
}

export interface Iperf3Result {
  version: string | null;
  protocol: string | null;
  streams: number | null;
  /** An error iperf3 reported ("the server is busy running a test. try again later"). */
  error: string | null;
  senderBitsPerSecond: number | null;
  receiverBitsPerSecond: number | null;
  /** Second direction of a --bidir test. */
  reverseSenderBitsPerSecond: number | null;
  reverseReceiverBitsPerSecond: number | null;
  retransmits: number | null;
  seconds: number | null;
  /** Percent of one core, process CPU time over wall time (can exceed 100 with threads). */
  hostCpuPercent: number | null;
  remoteCpuPercent: number | null;
  intervals: Iperf3Interval[];
  lostPercent: number | null;
  sndbufActual: number | null;
  rcvbufActual: number | null;
}

export function parseIperf3Json(text: string): Iperf3Result {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ParseError(
      `iperf3 output is not a JSON document${text.trim() ? `: ${text.trim().split('\n')[0]!.slice(0, 120)}` : ' (empty)'}`,
    );
  }
  const parsed = iperf3DocumentSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ParseError(`iperf3 JSON: ${issue?.path.join('.') || 'document'}: ${issue?.message}`);
  }
  return fromDocument(parsed.data);
}

function fromDocument(doc: Iperf3Document): Iperf3Result {
  const end = doc.end;
  const udp = doc.start.test_start?.protocol === 'UDP';
  // UDP reports its receiver view in end.sum (lost packets); TCP in sum_received.
  const sender = end.sum_sent ?? (udp ? end.sum : undefined);
  const receiver = udp ? (end.sum ?? end.sum_received) : (end.sum_received ?? end.sum);
  return {
    version: doc.start.version?.replace(/^iperf\s+/, '') ?? null,
    protocol: doc.start.test_start?.protocol ?? null,
    streams: doc.start.test_start?.num_streams ?? null,
    error: doc.error ?? null,
    senderBitsPerSecond: sender?.bits_per_second ?? null,
    receiverBitsPerSecond: receiver?.bits_per_second ?? null,
    reverseSenderBitsPerSecond: end.sum_sent_bidir_reverse?.bits_per_second ?? null,
    reverseReceiverBitsPerSecond: end.sum_received_bidir_reverse?.bits_per_second ?? null,
    retransmits: end.sum_sent?.retransmits ?? null,
    seconds: receiver?.seconds ?? sender?.seconds ?? null,
    hostCpuPercent: end.cpu_utilization_percent?.host_total ?? null,
    remoteCpuPercent: end.cpu_utilization_percent?.remote_total ?? null,
    intervals: doc.intervals
      .filter((interval) => interval.sum)
      .map((interval) => ({
        start: interval.sum!.start,
        end: interval.sum!.end,
        bitsPerSecond: interval.sum!.bits_per_second,
        retransmits: interval.sum!.retransmits ?? null,
        omitted: interval.sum!.omitted ?? false,
      })),
    lostPercent: udp ? (end.sum?.lost_percent ?? null) : null,
    sndbufActual: doc.start.sndbuf_actual ?? null,
    rcvbufActual: doc.start.rcvbuf_actual ?? null,
  };
}

/**
 * `--json-stream` (3.17+): one JSON event per line: {"event": "start"|"interval"|"end"|"error", "data": ...}.
 * Reassembled into the `-J` shape so the rest of nicdoctor sees one format.
 */
export function parseIperf3JsonStream(text: string): Iperf3Result {
  const doc: Record<string, unknown> = { start: {}, intervals: [], end: {} };
  let events = 0;
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new ParseError(`iperf3 --json-stream line ${index + 1} is not JSON`);
    }
    // `null`, a number or an array is JSON but not an event.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new ParseError(`iperf3 --json-stream line ${index + 1} is not an event object`);
    const event = parsed as { event?: string; data?: unknown };
    events += 1;
    if (event.event === 'start') doc.start = event.data;
    else if (event.event === 'interval') (doc.intervals as unknown[]).push(event.data);
    else if (event.event === 'end') doc.end = event.data;
    else if (event.event === 'error') doc.error = String(event.data);
  }
  if (events === 0) throw new ParseError('iperf3 --json-stream output is empty');
  return parseIperf3Json(JSON.stringify(doc));
}
