import type { AnyCheck } from '../src/contracts/check.js';
import mtu from './mtu.js';
import qdisc from './qdisc.js';
import pcieLink from './pcie-link.js';
import kernelPcie from './kernel-pcie.js';
import kernelEvents from './kernel-events.js';
import bonding from './bonding.js';
import socketBuffers from './socket-buffers.js';
import iperf3 from './iperf3.js';
import linkSpeed from './link-speed.js';
import offloads from './offloads.js';
import rxRings from './rx-rings.js';
import coalescing from './coalescing.js';
import flowControl from './flow-control.js';
import opticalModule from './optical-module.js';
import rssQueues from './rss-queues.js';
import rssIndirection from './rss-indirection.js';
import irqAffinity from './irq-affinity.js';
import numaLocality from './numa-locality.js';
import cpuFrequency from './cpu-frequency.js';
import nicDrops from './nic-drops.js';
import softnet from './softnet.js';
import protocolCounters from './protocol-counters.js';
import socketMemory from './socket-memory.js';
import conntrackTable from './conntrack-table.js';
import mbufs from './mbufs.js';
import sysctlDrift from './sysctl-drift.js';
import tools from './tools.js';
import throughput from './throughput.js';

/**
 * The check registry, in report order: from the wire to the host. One line per check; the
 * conformance test verifies that every file in checks/ is listed and has a test.
 */
const registry = [
  // The link itself: negotiated speed, the PCIe slot behind it, MTU, pause frames.
  linkSpeed,
  pcieLink,
  kernelPcie,
  kernelEvents,
  bonding,
  mtu,
  qdisc,
  flowControl,
  opticalModule,
  // How the NIC hands packets to the host.
  rssQueues,
  rssIndirection,
  rxRings,
  coalescing,
  offloads,
  irqAffinity,
  numaLocality,
  // The host's CPU and kernel.
  cpuFrequency,
  socketBuffers,
  softnet,
  nicDrops,
  protocolCounters,
  socketMemory,
  conntrackTable,
  mbufs,
  sysctlDrift,
  // The measuring tools, then the measurement (only with a bench).
  iperf3,
  tools,
  throughput,
] as const;

export const checks: readonly AnyCheck[] = registry;

/** The registered checks' own types (ids, symptoms and their data schemas), for typed test fixtures. */
export type RegisteredCheck = (typeof registry)[number];
