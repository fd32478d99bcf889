/**
 * tcpdump's word for a packet that arrived shorter than its own IP header says: "IP truncated-ip -
 * 7502 bytes missing! (tos 0x0, ..., length 9000)". With a capture size above the packet's length
 * (tcpdump's default has been 262144 since 4.0, 65535 before), the cut was made before the frame
 * reached this host: a switch, FPGA pipeline or tunnel endpoint on the path forwarded only the first
 * part of a frame larger than it carries. Lines are capped and every pattern is anchored: linear.
 */

const MAX_LINES = 20_000;
/** "IP truncated-ip - 7502 bytes missing!", "IP6 truncated-ip6 - 4000 bytes missing!". */
const TRUNCATED = /\btruncated-ip6? - (\d{1,6}) bytes missing!/;
/** The IP total length in the -v parenthesis, "..., proto TCP (6), length 9000)"; IPv6's "payload length: 8960". */
const IP_LENGTH = /[(,] ?length (\d{2,6})\)|\bpayload length: (\d{2,6})\b/;
const CAPTURE_SIZE = /\b(?:capture size|snapshot length) (\d{2,7}) bytes\b/;
/** Below this many bytes delivered the cut may be an old tcpdump's 68/96-byte snapshot, not the path. */
const MIN_DELIVERED = 256;
/** A cut of fewer bytes than this is a trailer or padding difference, not a frame size limit. */
const MIN_MISSING = 64;
const IPV6_HEADER = 40;

export interface FramesCut {
  /** The largest IP packet length the cut packets declare. */
  packetBytes: number;
  /** The most bytes of such a packet that arrived: about the largest IP packet the path carries. */
  deliveredBytes: number;
  /** How many truncated packets the text shows. */
  packets: number;
  /** The capture size tcpdump printed, null when the text does not show it. */
  captureBytes: number | null;
}

/** The packets a pasted tcpdump run shows cut on the path, or null when it shows none (or the cut may be tcpdump's own). */
export function readFramesCut(text: string): FramesCut | null {
  const lines = text.split('\n', MAX_LINES);
  const capture = lines.map((line) => CAPTURE_SIZE.exec(line)).find(Boolean);
  const captureBytes = capture ? Number(capture[1]) : null;
  let packetBytesMax = 0;
  let deliveredMax = 0;
  let packets = 0;
  for (const [index, line] of lines.entries()) {
    const truncated = TRUNCATED.exec(line);
    if (!truncated) continue;
    const length = IP_LENGTH.exec(recordFrom(lines, index).slice(truncated.index));
    if (!length) continue;
    const missing = Number(truncated[1]);
    const packetBytes = length[1] !== undefined ? Number(length[1]) : Number(length[2]) + IPV6_HEADER;
    const deliveredBytes = packetBytes - missing;
    if (missing < MIN_MISSING || deliveredBytes < MIN_DELIVERED) continue;
    // A capture size below the packet's length cut it in tcpdump, not on the path.
    if (captureBytes !== null && captureBytes < packetBytes) continue;
    packetBytesMax = Math.max(packetBytesMax, packetBytes);
    deliveredMax = Math.max(deliveredMax, deliveredBytes);
    packets += 1;
  }
  return packets === 0 ? null : { packetBytes: packetBytesMax, deliveredBytes: deliveredMax, packets, captureBytes };
}

/** A new packet's line: tcpdump starts each with its timestamp ("15:38:15.845825 "). */
const RECORD_START = /^\s*(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}\.\d{3,9} /;
/** Lines a mailer or a terminal broke one -v record into (its parenthesis runs on). */
const WRAPPED_LINES = 3;

/** The packet line at `index` with the lines a mailer wrapped it onto, up to the next packet. */
function recordFrom(lines: readonly string[], index: number): string {
  let record = lines[index]!;
  for (let next = index + 1; next < Math.min(lines.length, index + 1 + WRAPPED_LINES); next++) {
    if (IP_LENGTH.test(record) || RECORD_START.test(lines[next]!)) break;
    record += ` ${lines[next]!.trim()}`;
  }
  return record;
}
