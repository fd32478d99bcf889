import type { EthtoolCounter, EthtoolStats } from '../parsers/ethtool-stats.js';

/**
 * What driver-specific counters mean. Every driver names its drop and error counters its own way
 * (mlx5 rx_out_of_buffer, ixgbe rx_missed_errors, i40e port.rx_dropped, bnxt "[3]: rx_discards");
 * this maps them to one vocabulary so that a check can say what a count means and what to do.
 */
export type CounterCategory = 'drop' | 'error' | 'physical-error' | 'info';

/** The kind of fix a counter points to; checks turn it into commands. */
export type CounterRemedy =
  | 'rings' // no free receive descriptor: raise the ring, spread the CPU load
  | 'host-backpressure' // the NIC's own buffer overflowed: PCIe, rings, flow control
  | 'host-memory' // the driver could not allocate buffers
  | 'cpu' // software queue full: the receiving CPU did not keep up
  | 'tx-queue' // dropped on transmit
  | 'cloud-allowance' // the hypervisor enforces an instance limit
  | 'physical' // cable, optic, switch port
  | 'mtu' // frames of an invalid length: MTU mismatch along the path
  | 'none';

export interface CounterMeaning {
  category: CounterCategory;
  remedy: CounterRemedy;
  /** One sentence for the report: what a non-zero value means on this driver. */
  meaning: string;
  /** Also counts harmless events (unknown protocols, filtered frames): never a warning alone. */
  mayBeBenign?: boolean;
}

interface CounterRule extends CounterMeaning {
  /** Matched against the base name (per-queue prefix removed, see splitQueue). */
  pattern: RegExp;
  /** Only for these drivers; rules with drivers come before the generic ones. */
  drivers?: readonly string[];
}

const RINGS_HINT = 'ring too small, or the CPU serving the queue too slow to refill it';

/** First match wins: driver-specific rules first, then generic names. */
const ETHTOOL_RULES: readonly CounterRule[] = [
  // Mellanox / NVIDIA mlx5 (Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst).
  {
    pattern: /^rx_out_of_buffer$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the NIC had no receive buffer posted by the host when packets arrived (${RINGS_HINT})`,
  },
  {
    pattern: /^rx_discards_phy$/,
    category: 'drop',
    remedy: 'host-backpressure',
    meaning:
      'the NIC port discarded packets because its own buffer was full: the host (PCIe, memory, receive rings) did not drain it fast enough',
  },
  { pattern: /^rx_buff_alloc_err$/, category: 'drop', remedy: 'host-memory', meaning: 'the driver could not allocate receive buffers' },
  // Intel i40e / ice / iavf: port-level versus queue-level drops.
  {
    pattern: /^(port\.rx_dropped|rx_dropped\.nic)$/,
    category: 'drop',
    remedy: 'host-backpressure',
    meaning:
      "the port's receive packet buffer overflowed: the host did not take packets over PCIe fast enough (link too slow or busy, rings full, flow control off)",
  },
  {
    pattern: /^rx_dropped$/,
    drivers: ['i40e', 'ice', 'iavf'],
    category: 'drop',
    remedy: 'rings',
    meaning: `the driver found no free receive descriptor on a queue (${RINGS_HINT}); it also counts frames of unknown protocols`,
  },
  // Intel igb / ixgbe / e1000e, Realtek r8169.
  {
    pattern: /^rx_missed(_errors)?$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the NIC's receive FIFO overflowed because the host had no free descriptor, and packets were lost (${RINGS_HINT})`,
  },
  {
    pattern: /^rx_no_buffer_count$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the NIC found no free receive descriptor (${RINGS_HINT}); packets wait in its FIFO and are lost (rx_missed_errors) once it fills`,
  },
  {
    pattern: /^rx_(fifo|over)_errors$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `receive FIFO overruns: packets did not fit in the buffers the host provided (${RINGS_HINT})`,
  },
  // Broadcom bnxt_en per ring, bnx2x / bnx2 / tg3 / iavf totals.
  {
    pattern: /^rx_discards$/,
    drivers: ['bnxt_en'],
    category: 'drop',
    remedy: 'rings',
    meaning: `the ring had no free buffer when packets arrived (${RINGS_HINT})`,
  },
  {
    pattern: /^rx_discards$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the NIC discarded received packets for lack of host receive buffers (${RINGS_HINT})`,
  },
  // Emulex be2net.
  {
    pattern: /^rx_drops_no_pbuf$/,
    category: 'drop',
    remedy: 'host-backpressure',
    meaning: 'the adapter ran out of packet buffer memory: the host did not drain it fast enough',
  },
  {
    pattern: /^rx_drops_no_(erx|tpre)_descr$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the host had posted no receive descriptor (${RINGS_HINT})`,
  },
  {
    pattern: /^(rxpp_fifo_overflow_drop|rx_input_fifo_overflow_drop|pmem_fifo_overflow_drop)$/,
    category: 'drop',
    remedy: 'host-backpressure',
    meaning: 'an internal FIFO of the adapter overflowed: the host did not drain it fast enough',
  },
  {
    pattern: /^rx_drops_no_(skbs|frags)$/,
    category: 'drop',
    remedy: 'host-memory',
    meaning: 'the driver could not allocate receive buffers',
  },
  // Solarflare sfc.
  {
    pattern: /^port_rx_nodesc_drops$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the adapter's datapath dropped packets it could not deliver to a receive queue (no descriptor: ${RINGS_HINT})`,
  },
  {
    // The dispatcher's own discards: frames no receive filter claimed (traffic for other hosts on
    // a shared segment, unwanted multicast), counted on idle ports too; descriptor loss is nodesc.
    pattern: /^port_rx_dp_di_dropped_packets$/,
    category: 'drop',
    remedy: 'none',
    meaning:
      "the adapter's datapath discarded frames by its own delivery decision (no receive filter matched them), not for lack of descriptors",
    mayBeBenign: true,
  },
  {
    pattern: /^port_rx_pm_discard_(vfifo_full|bb_overflow|qbb)$/,
    category: 'drop',
    remedy: 'host-backpressure',
    meaning: "the adapter's packet memory was full: the host did not drain it fast enough",
  },
  {
    pattern: /^rx_nodesc_trunc$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `packets truncated for lack of receive descriptors (${RINGS_HINT})`,
  },
  { pattern: /^rx_noskb_drops$/, category: 'drop', remedy: 'host-memory', meaning: 'the driver could not allocate receive buffers' },
  // AWS ENA: the hypervisor enforces per-instance limits.
  {
    pattern: /^(bw_in|bw_out|pps|conntrack|linklocal)_allowance_exceeded$/,
    category: 'drop',
    remedy: 'cloud-allowance',
    meaning: 'the instance exceeded a network allowance of its type and the hypervisor queued or dropped packets',
  },
  // Paravirtual and software devices.
  {
    pattern: /^rx_drops$/,
    drivers: ['virtio_net'],
    category: 'drop',
    remedy: 'cpu',
    meaning: 'virtio_net dropped received packets: the guest did not refill the virtqueue in time (busy vCPU or failed buffer allocation)',
  },
  {
    pattern: /^rx_drops$/,
    drivers: ['veth'],
    category: 'drop',
    remedy: 'cpu',
    meaning: "the peer's receive queue was full: the receiving side did not keep up",
  },
  {
    pattern: /^rx_drops$/,
    drivers: ['igb', 'igc', 'ixgbe'],
    category: 'drop',
    remedy: 'rings',
    meaning: `the queue had no free receive descriptor and dropped packets (${RINGS_HINT})`,
  },
  { pattern: /^rx_drops$/, category: 'drop', remedy: 'cpu', meaning: 'the driver dropped received packets' },
  { pattern: /^drv dropped rx total$/, category: 'drop', remedy: 'cpu', meaning: 'the vmxnet3 driver dropped received packets' },
  {
    pattern: /^(rx_alloc_fail(ed)?|rx_pg_alloc_fail|rx buf alloc fail)$/,
    category: 'drop',
    remedy: 'host-memory',
    meaning: 'the driver could not allocate receive buffers',
  },
  // Transmit side.
  {
    pattern: /^(tx_dropped|tx_discards|tx_queue_dropped|tx_drv_drops|tx_drops|pkts tx discard|drv dropped tx total)$/,
    category: 'drop',
    remedy: 'tx-queue',
    meaning: 'packets were dropped on transmit (transmit ring full or no descriptor)',
  },
  // Physical layer (CAUSES.md cause 16).
  {
    pattern: /^(port\.)?rx_crc_errors(_phy|\.nic)?$|^rx_fcs_errors$|^rx_eth_crc_err$|^roce_drops_crc$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'frames arrived with a bad checksum (CRC/FCS): a bad cable or optic, a dirty connector or a failing switch port',
  },
  {
    pattern: /^rx_(pcs_)?symbol_err(_phy)?$|^rx_alignment_symbol_errors$|^(rx_)?align(ment)?_errors$|^rx_frame_errors$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'symbol or alignment errors on the wire: a bad cable or optic, or a failing switch port',
  },
  {
    pattern:
      /^(port\.)?rx_(fragments|jabbers)(_phy)?$|^port\.(mac_local_faults|mac_remote_faults|rx_illegal_bytes)$|^rx_jabber(s|_errors)?$|^jabber_events$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'malformed frames or link faults at the physical layer: cable, optic or switch port',
  },
  {
    pattern: /^tx_carrier_errors$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'the carrier was lost while transmitting: cable, optic or switch port',
  },
  // Invalid lengths: usually an MTU mismatch, not a broken link.
  {
    pattern:
      /^(port\.)?rx_(length_errors|frame_too_long(_errors)?|oversize(_pkts_phy)?|undersize|too_long_errors|long_length_errors|short_length_errors|in_range_errors|out_range_errors)$/,
    category: 'error',
    remedy: 'mtu',
    meaning: 'frames of an invalid length arrived: usually an MTU mismatch with the switch or the peer',
  },
  {
    pattern: /csum_err|checksum_err|csum_offload_errors/,
    category: 'error',
    remedy: 'none',
    meaning: 'packets arrived with a bad IP/TCP/UDP checksum (corrupted on the way or mangled by a middlebox)',
  },
  {
    pattern: /^rx_dropped_(too_small|too_short|header_too_small|tcp_length|runt)$|^rx_compl_err$|^rx_drops_too_many_frags$/,
    category: 'error',
    remedy: 'none',
    meaning: 'malformed frames were discarded',
  },
  {
    pattern: /^tx_timeout(s|_count)?$|^tx timeout count$/,
    category: 'error',
    remedy: 'none',
    meaning: 'a transmit queue hung and the driver reset it',
  },
  { pattern: /^(rx|tx)_errors$/, category: 'info', remedy: 'none', meaning: 'total of the error counters, which are judged one by one' },
  // Harmless by design.
  { pattern: /xdp\w*_drops?$/, category: 'info', remedy: 'none', meaning: 'an XDP program dropped the packets on purpose' },
  {
    pattern: /^rx_address_filtered$|^rx_unknown_protocol$/,
    category: 'info',
    remedy: 'none',
    meaning: 'frames filtered by address or protocol, normally harmless',
  },
  {
    pattern: /^rx_dropped$/,
    category: 'drop',
    remedy: 'cpu',
    mayBeBenign: true,
    meaning:
      'the kernel or driver did not process received packets: lack of resources, but also frames of unknown protocols or VLANs (often harmless)',
  },
];

/**
 * /sys/class/net/<if>/statistics, with the kernel's definitions (Documentation/networking/statistics.rst).
 * Used when ethtool -S does not show a category (virtio, veth, bridges) or is not available.
 */
const SYSFS_RULES: readonly CounterRule[] = [
  {
    pattern: /^rx_missed_errors$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `the device dropped packets for lack of buffer space: the host did not keep up (${RINGS_HINT})`,
  },
  {
    pattern: /^rx_(fifo|over)_errors$/,
    category: 'drop',
    remedy: 'rings',
    meaning: `packets did not fit in the buffers the host provided (${RINGS_HINT})`,
  },
  {
    pattern: /^rx_dropped$/,
    category: 'drop',
    remedy: 'cpu',
    mayBeBenign: true,
    meaning: 'received but not processed: lack of resources, but also frames of unknown protocols, VLANs or L2 filtering (often harmless)',
  },
  {
    pattern: /^(tx_dropped|tx_fifo_errors)$/,
    category: 'drop',
    remedy: 'tx-queue',
    meaning: 'packets were dropped on their way to transmission (lack of resources)',
  },
  {
    pattern: /^rx_crc_errors$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'frames arrived with a bad CRC: a bad cable or optic, or a failing switch port',
  },
  {
    pattern: /^rx_frame_errors$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'frame alignment errors: a bad cable or optic, or a failing switch port',
  },
  {
    pattern: /^tx_(carrier|aborted|window|heartbeat)_errors$|^collisions$/,
    category: 'physical-error',
    remedy: 'physical',
    meaning: 'transmit errors at the physical layer (carrier loss, collisions: duplex mismatch, cable, switch port)',
  },
  {
    pattern: /^rx_length_errors$/,
    category: 'error',
    remedy: 'mtu',
    meaning: 'frames of an invalid length: usually an MTU mismatch with the switch or the peer',
  },
  { pattern: /^(rx|tx)_errors$/, category: 'info', remedy: 'none', meaning: 'total of the error counters, which are judged one by one' },
  {
    pattern: /^rx_nohandler$/,
    category: 'info',
    remedy: 'none',
    meaning: 'frames no protocol wanted (inactive bond members, unknown protocols)',
  },
];

export interface QueuedName {
  /** Name without the queue part: "[3]: rx_discards" → "rx_discards", "rx-0.packets" → "rx_packets". */
  base: string;
  queue: number | null;
}

/** Per-queue naming styles across drivers, tried in order. */
const QUEUE_STYLES: ReadonlyArray<{ pattern: RegExp; base(match: RegExpExecArray): string }> = [
  { pattern: /^\[(\d+)\]:\s*(\S.*)$/, base: (m) => m[2]! }, // bnxt_en, bnx2x
  { pattern: /^[rt]xq(\d+):\s*(\S.*)$/, base: (m) => m[2]! }, // be2net
  { pattern: /^(rx|tx)_queue_(\d+)_(.+)$/, base: (m) => `${m[1]}_${m[3]}` }, // igb, ixgbe, ice, virtio_net (old), veth
  { pattern: /^queue_(\d+)_(rx|tx)_(.+)$/, base: (m) => `${m[2]}_${m[3]}` }, // ena
  { pattern: /^(rx|tx)-(\d+)\.(.+)$/, base: (m) => (m[3]!.startsWith(`${m[1]}_`) ? m[3]! : `${m[1]}_${m[3]}`) }, // i40e, sfc
  { pattern: /^(rx|tx)(\d+)_(.+)$/, base: (m) => `${m[1]}_${m[3]}` }, // mlx5, virtio_net (new)
];

export function splitQueue(counter: Pick<EthtoolCounter, 'name' | 'block'>): QueuedName {
  const blockQueue = counter.block ? trailingNumber(counter.block) : null;
  if (blockQueue !== null) return { base: counter.name, queue: blockQueue };
  for (const style of QUEUE_STYLES) {
    const match = style.pattern.exec(counter.name);
    if (match) {
      const queue = Number(match.slice(1).find((part) => /^\d+$/.test(part)));
      return { base: style.base(match), queue };
    }
  }
  return { base: counter.name, queue: null };
}

export interface ClassifiedCounter extends CounterMeaning {
  /** Base name, e.g. "rx_discards" for bnxt's per-ring "[N]: rx_discards". */
  name: string;
  /** The device-wide value, or the sum over queues when the driver only counts per queue. */
  value: number;
  /** How many per-queue counters were summed; 0 for a device-wide counter. */
  queues: number;
}

function findRule(rules: readonly CounterRule[], base: string, driver: string | null): CounterRule | undefined {
  return rules.find((rule) => rule.pattern.test(base) && (!rule.drivers || (driver !== null && rule.drivers.includes(driver))));
}

function meaningOf(rule: CounterRule): CounterMeaning {
  return { category: rule.category, remedy: rule.remedy, meaning: rule.meaning, ...(rule.mayBeBenign ? { mayBeBenign: true } : {}) };
}

/**
 * What one counter means, by the name the classifiers report (the base name) and where it was
 * read: the wording of a finding is derived from its counter name, never stored with it.
 */
export function counterMeaning(name: string, driver: string | null, from: 'ethtool' | 'generic'): CounterMeaning | undefined {
  const rule = findRule(from === 'ethtool' ? ETHTOOL_RULES : SYSFS_RULES, name, driver);
  return rule ? meaningOf(rule) : undefined;
}

/**
 * The counters of `ethtool -S` that nicdoctor understands, one per base name, in output order.
 * A device-wide counter wins over the per-queue ones of the same name (bnx2x prints both).
 */
export function classifyEthtoolStats(stats: EthtoolStats, driver: string | null): ClassifiedCounter[] {
  const groups = new Map<string, { rule: CounterRule; device: number | null; queueSum: number; queues: number }>();
  for (const counter of stats.counters) {
    const { base, queue } = splitQueue(counter);
    const rule = findRule(ETHTOOL_RULES, base, driver);
    if (!rule) continue;
    let group = groups.get(base);
    if (!group) {
      group = { rule, device: null, queueSum: 0, queues: 0 };
      groups.set(base, group);
    }
    if (queue === null) group.device ??= counter.value;
    else {
      group.queueSum += counter.value;
      group.queues += 1;
    }
  }
  // virtio_net counts an XDP program's XDP_DROP verdicts in rx_drops too: those are the
  // program's choice, not loss. Only what exceeds the XDP drops is a drop.
  const xdpDrops = stats.counters
    .filter((counter) => splitQueue(counter).base === 'rx_xdp_drops')
    .reduce((sum, counter) => sum + counter.value, 0);
  return [...groups.entries()].map(([name, group]) => {
    const raw = group.device ?? group.queueSum;
    const value = name === 'rx_drops' && xdpDrops > 0 ? Math.max(0, raw - xdpDrops) : raw;
    return { name, value, queues: group.device === null ? group.queues : 0, ...meaningOf(group.rule) };
  });
}

/** The counters of /sys/class/net/<if>/statistics that nicdoctor understands. */
export function classifyNetStatistics(counters: Readonly<Record<string, number>>): ClassifiedCounter[] {
  const classified: ClassifiedCounter[] = [];
  for (const [name, value] of Object.entries(counters)) {
    const rule = findRule(SYSFS_RULES, name, null);
    if (rule) classified.push({ name, value, queues: 0, ...meaningOf(rule) });
  }
  return classified;
}

/** Received packets per queue, in the first naming the driver uses; [] when it has none. */
const RX_QUEUE_PACKET_NAMES = ['rx_packets', 'rx_pkts', 'rx_cnt', 'rx_ucast_packets', 'ucast pkts rx'];

export function rxQueuePackets(stats: EthtoolStats): Array<{ queue: number; packets: number }> {
  const perName = new Map<string, Map<number, number>>();
  for (const counter of stats.counters) {
    if (counter.block && !/^rx/i.test(counter.block)) continue;
    const { base, queue } = splitQueue(counter);
    if (queue === null || !RX_QUEUE_PACKET_NAMES.includes(base)) continue;
    const queues = perName.get(base) ?? new Map<number, number>();
    queues.set(queue, (queues.get(queue) ?? 0) + counter.value);
    perName.set(base, queues);
  }
  for (const name of RX_QUEUE_PACKET_NAMES) {
    const queues = perName.get(name);
    if (queues) return [...queues.entries()].sort((a, b) => a[0] - b[0]).map(([queue, packets]) => ({ queue, packets }));
  }
  return [];
}

/** The number a text ends with ("Rx Queue#: 3" → 3), or null; a scan from the end, linear in the text. */
function trailingNumber(text: string): number | null {
  let start = text.length;
  while (start > 0 && text.charCodeAt(start - 1) >= 48 && text.charCodeAt(start - 1) <= 57) start -= 1;
  return start === text.length ? null : Number(text.slice(start));
}
