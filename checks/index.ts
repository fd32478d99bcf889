import type { AnyCheck } from '../src/engine/check.js';
import mtu from './mtu.js';
import pcieLink from './pcie-link.js';
import socketBuffers from './socket-buffers.js';
import iperf3 from './iperf3.js';
import linkSpeed from './link-speed.js';
import offloads from './offloads.js';
import rxRings from './rx-rings.js';
import coalescing from './coalescing.js';
import flowControl from './flow-control.js';
import rssQueues from './rss-queues.js';
import rssIndirection from './rss-indirection.js';
import irqAffinity from './irq-affinity.js';
import numaLocality from './numa-locality.js';
import cpuFrequency from './cpu-frequency.js';
import nicDrops from './nic-drops.js';
import softnet from './softnet.js';
import tools from './tools.js';
import throughput from './throughput.js';

/**
 * The check registry, in report order: cheap local checks first. One line per check; the
 * conformance test verifies that every file in checks/ is listed and has a test.
 */
export const checks: readonly AnyCheck[] = [
  mtu,
  pcieLink,
  socketBuffers,
  iperf3,
  linkSpeed,
  offloads,
  rxRings,
  coalescing,
  flowControl,
  rssQueues,
  rssIndirection,
  irqAffinity,
  numaLocality,
  cpuFrequency,
  nicDrops,
  softnet,
  tools,
  throughput,
];
