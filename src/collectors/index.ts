import type { Collector } from '../contracts/collector.js';
import { benchResultCollector } from './bench-result.js';
import { ticketReportsCollector } from './ticket-reports.js';
import { interfacesCollector } from './interfaces.js';
import { netDeviceCollector } from './net-device.js';
import { pcieLinkCollector } from './pcie-link.js';
import { sysctlCollector } from './sysctl.js';
import { iperf3VersionCollector } from './iperf3-version.js';
import { ethtoolChannelsCollector } from './ethtool-channels.js';
import { ethtoolRxfhCollector } from './ethtool-rxfh.js';
import { netQueuesCollector } from './net-queues.js';
import { ethtoolSettingsCollector } from './ethtool-settings.js';
import { ethtoolDriverCollector } from './ethtool-driver.js';
import { ethtoolFeaturesCollector } from './ethtool-features.js';
import { ethtoolRingsCollector } from './ethtool-rings.js';
import { ethtoolCoalesceCollector } from './ethtool-coalesce.js';
import { ethtoolPauseCollector } from './ethtool-pause.js';
import { ethtoolModuleCollector } from './ethtool-module.js';
import { ethtoolStatsCollector } from './ethtool-stats.js';
import { netStatisticsCollector } from './net-statistics.js';
import { softnetCollector } from './softnet.js';
import { toolsCollector } from './tools.js';
import { procInterruptsCollector } from './interrupts.js';
import { nicIrqsCollector } from './nic-irqs.js';
import { irqbalanceCollector } from './irqbalance.js';
import { numaCollector } from './numa.js';
import { cpuTopologyCollector } from './cpu-topology.js';
import { cpufreqCollector } from './cpufreq.js';
import { tcQdiscAllCollector, tcQdiscCollector } from './tc-qdisc.js';
import { ipLinksCollector } from './ip-links.js';
import { kernelPcieCollector } from './kernel-log.js';
import { kernelEventsCollector } from './kernel-events.js';
import { bondStatusCollector } from './bonding.js';
import { procNetDevCollector, protocolCountersCollector } from './proc-net.js';
import { uptimeCollector } from './uptime.js';
import { socketMemoryCollector } from './socket-memory.js';
import { conntrackCollector } from './conntrack.js';
import { mbufsCollector } from './mbufs.js';
import { sysctlOnDiskCollector } from './sysctl-on-disk.js';

/** Every fact collector. One line per collector; the conformance test checks that each is used. */
export const collectors: readonly Collector[] = [
  interfacesCollector,
  netDeviceCollector,
  benchResultCollector,
  ticketReportsCollector,
  pcieLinkCollector,
  sysctlCollector,
  iperf3VersionCollector,
  ethtoolChannelsCollector,
  ethtoolRxfhCollector,
  netQueuesCollector,
  ethtoolSettingsCollector,
  ethtoolDriverCollector,
  ethtoolFeaturesCollector,
  ethtoolRingsCollector,
  ethtoolCoalesceCollector,
  ethtoolPauseCollector,
  ethtoolModuleCollector,
  ethtoolStatsCollector,
  netStatisticsCollector,
  softnetCollector,
  toolsCollector,
  procInterruptsCollector,
  nicIrqsCollector,
  irqbalanceCollector,
  numaCollector,
  cpuTopologyCollector,
  cpufreqCollector,
  tcQdiscAllCollector,
  tcQdiscCollector,
  ipLinksCollector,
  procNetDevCollector,
  protocolCountersCollector,
  uptimeCollector,
  socketMemoryCollector,
  conntrackCollector,
  mbufsCollector,
  sysctlOnDiskCollector,
  kernelPcieCollector,
  kernelEventsCollector,
  bondStatusCollector,
] as Collector[];
