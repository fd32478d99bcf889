import type { FactStore } from '../contracts/collector.js';
import type { FactId } from '../contracts/facts.js';
import type { InterfaceSettingsEntry, InterfaceSummary, ReportSettings, Scalar } from '../report/schema.js';
import { bestLinkMode } from '../domain/link-modes.js';
import { pciModelName } from '../domain/pci-vendors.js';
import type { EthtoolRings } from '../parsers/ethtool-rings.js';
import type { EthtoolChannels } from '../parsers/ethtool-channels.js';
import type { EthtoolSettings } from '../parsers/ethtool-settings.js';
import type { PcieLink, PcieLinkReading } from '../collectors/pcie-link.js';
import type { NetStatistics } from '../collectors/net-statistics.js';
import type { NicIrqs } from '../collectors/nic-irqs.js';
import type { NetDevice } from '../collectors/net-device.js';
import type { NumaTopology } from '../parsers/numactl.js';
import type { EthtoolStats } from '../parsers/ethtool-stats.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { rxQueuePackets } from '../domain/drop-counters.js';

/**
 * The settings a scan read, by readable name ("rx ring", "PCIe link"), for the report: fleet and
 * diff compare them between hosts, and the terminal's interface table shows them next to what the
 * hardware could do. Only facts the checks already collected are read, so the settings are exactly
 * those the checks judged and nothing new runs.
 */

type Values = Record<string, Scalar>;
type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Offloads that move throughput; ethtool lists some 60 features. */
const OFFLOADS = [
  'tcp-segmentation-offload',
  'generic-segmentation-offload',
  'generic-receive-offload',
  'large-receive-offload',
  'rx-checksumming',
  'tx-checksumming',
  'scatter-gather',
  'rx-gro-hw',
  'receive-hashing',
];

/** Interface facts read for the settings. */
const INTERFACE_FACTS = [
  'ethtool.rings',
  'ethtool.channels',
  'ethtool.features',
  'ethtool.coalesce',
  'ethtool.settings',
  'pcie.link',
  'ethtool.driver',
  'tc.qdisc',
  'net.statistics',
  'nic.irqs',
  'ethtool.stats',
  'net.device',
] as const;
const HOST_FACTS = ['sysctl.net', 'cpufreq', 'iperf3.version', 'numa'] as const;
/** CPUs, queues and hops kept for a picture: more than a screen shows is summed up, not drawn. */
const MAX_POINTS = 1024;

/** Drop counters of /sys/class/net/<if>/statistics summed for the table's "drops" column. */
const DROP_COUNTERS = ['rx_dropped', 'rx_missed_errors', 'rx_fifo_errors', 'tx_dropped'];

function set(values: Values, name: string, value: unknown): void {
  if (value === undefined) return;
  values[name] =
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);
}

function gbps(bits: number | null | undefined): string | null {
  return bits == null ? null : `${Math.round(bits / 1e7) / 100} Gb/s`;
}

const linkText = (speed: number | null, width: number | null) => `${speed ?? '?'} GT/s x${width ?? '?'}`;

/** The value of an already collected fact, or undefined; never collects anything new. */
async function collected(store: FactStore, id: string, subject = ''): Promise<unknown> {
  if (!store.ranOk(id, subject)) return undefined;
  const result = await store.get(id as FactId, subject || undefined);
  return result.ok ? result.value : undefined;
}

/** What an operator sets or a vendor ships, from one interface's facts. */
export function interfaceValues(facts: Record<string, unknown>, summary: InterfaceSummary): Values {
  const values: Values = {};
  set(values, 'MTU', summary.mtu);
  set(values, 'speed Mb/s', summary.speedMbps);
  const rings = facts['ethtool.rings'] as EthtoolRings | undefined;
  if (rings?.current) {
    if (rings.current.rx !== null) set(values, 'rx ring', rings.current.rx);
    if (rings.current.tx !== null) set(values, 'tx ring', rings.current.tx);
  }
  const channels = facts['ethtool.channels'] as EthtoolChannels | undefined;
  if (channels?.current) {
    for (const kind of ['combined', 'rx', 'tx'] as const)
      if (channels.current[kind]) set(values, `${kind} channels`, channels.current[kind]);
  }
  const features = (facts['ethtool.features'] as { features?: Record<string, { active: boolean }> } | undefined)?.features;
  if (features) for (const name of OFFLOADS) if (features[name]) set(values, `offload ${name}`, features[name].active ? 'on' : 'off');
  const coalesce = facts['ethtool.coalesce'] as Obj | undefined;
  if (coalesce) {
    for (const [key, label] of [
      ['adaptiveRx', 'adaptive-rx'],
      ['adaptiveTx', 'adaptive-tx'],
      ['rxUsecs', 'rx-usecs'],
      ['rxFrames', 'rx-frames'],
      ['txUsecs', 'tx-usecs'],
    ] as const) {
      if (coalesce[key] !== null && coalesce[key] !== undefined) set(values, `coalesce ${label}`, coalesce[key]);
    }
  }
  const pcie = facts['pcie.link'] as PcieLink | undefined;
  if (pcie?.present && pcie.link) set(values, 'PCIe link', linkText(pcie.link.speedGts, pcie.link.width));
  const driver = facts['ethtool.driver'] as { driver?: string; version?: string | null; firmwareVersion?: string | null } | undefined;
  if (driver) {
    set(values, 'driver version', driver.version ?? null);
    set(values, 'firmware version', driver.firmwareVersion ?? null);
  }
  const qdisc = facts['tc.qdisc'] as
    { qdiscs?: { kind: string; root: boolean; rateBitsPerSecond: number | null; bandwidthBitsPerSecond: number | null }[] } | undefined;
  const root = qdisc?.qdiscs?.find((entry) => entry.root);
  if (qdisc)
    set(
      values,
      'egress qdisc',
      root ? [root.kind, gbps(root.rateBitsPerSecond ?? root.bandwidthBitsPerSecond)].filter(Boolean).join(' ') : 'none',
    );
  return values;
}

/** The narrowest link on the path from the NIC to its root port (the NIC's own included). */
function narrowestHop(pcie: Extract<PcieLink, { present: true }>): { address: string; link: PcieLinkReading } | null {
  const hops = [
    ...(pcie.link ? [{ address: pcie.address, link: pcie.link }] : []),
    ...pcie.upstream.flatMap((port) => (port.link ? [{ address: port.address, link: port.link }] : [])),
  ];
  const rate = (link: PcieLinkReading) => (link.speedGts ?? Infinity) * (link.width || Infinity);
  return hops.reduce<{ address: string; link: PcieLinkReading } | null>(
    (best, hop) => (!best || rate(hop.link) < rate(best.link) ? hop : best),
    null,
  );
}

/** What the hardware offers: ring and queue maximums, the PCIe link it is capable of, the fastest link mode. */
function interfaceLimits(facts: Record<string, unknown>): Values {
  const limits: Values = {};
  const rings = facts['ethtool.rings'] as EthtoolRings | undefined;
  if (rings?.max.rx) set(limits, 'rx ring max', rings.max.rx);
  if (rings?.max.tx) set(limits, 'tx ring max', rings.max.tx);
  const channels = facts['ethtool.channels'] as EthtoolChannels | undefined;
  if (channels)
    for (const kind of ['combined', 'rx', 'tx'] as const) if (channels.max[kind]) set(limits, `${kind} channels max`, channels.max[kind]);
  const pcie = facts['pcie.link'] as PcieLink | undefined;
  if (pcie?.present && pcie.link && (pcie.link.maxSpeedGts !== null || pcie.link.maxWidth !== null))
    set(limits, 'PCIe capable', linkText(pcie.link.maxSpeedGts, pcie.link.maxWidth));
  if (pcie?.present && pcie.upstream.length) {
    const narrowest = narrowestHop(pcie);
    if (narrowest) set(limits, 'PCIe narrowest hop', `${narrowest.address} ${linkText(narrowest.link.speedGts, narrowest.link.width)}`);
  }
  const settings = facts['ethtool.settings'] as EthtoolSettings | undefined;
  const best = settings?.supportedLinkModes ? bestLinkMode(settings.supportedLinkModes) : null;
  if (best) set(limits, 'best speed Mb/s', best.speedMbps);
  return limits;
}

function interfaceCounters(facts: Record<string, unknown>): Values {
  const counters: Values = {};
  const stats = facts['net.statistics'] as NetStatistics | undefined;
  if (!stats) return counters;
  const present = DROP_COUNTERS.filter((name) => typeof stats.counters[name] === 'number');
  if (present.length)
    set(
      counters,
      'drops since boot',
      present.reduce((sum, name) => sum + stats.counters[name]!, 0),
    );
  return counters;
}

function hostValues(facts: Record<string, unknown>, kernel: string): Values {
  const values: Values = {};
  set(values, 'kernel', kernel);
  const sysctl = facts['sysctl.net'] as Obj | undefined;
  if (sysctl) {
    const mem = (value: unknown) => (isObj(value) ? [value.min, value.default, value.max].join(' ') : value);
    set(values, 'net.core.rmem_max', sysctl.rmemMax);
    set(values, 'net.core.wmem_max', sysctl.wmemMax);
    set(values, 'net.ipv4.tcp_rmem', mem(sysctl.tcpRmem));
    set(values, 'net.ipv4.tcp_wmem', mem(sysctl.tcpWmem));
    set(values, 'net.core.netdev_max_backlog', sysctl.netdevMaxBacklog);
    set(values, 'net.core.default_qdisc', sysctl.defaultQdisc);
    set(values, 'net.ipv4.tcp_congestion_control', sysctl.tcpCongestionControl);
  }
  const cpufreq = facts.cpufreq as { present: boolean; cpus: { governor: string | null }[] } | undefined;
  if (cpufreq?.present) set(values, 'CPU governor', [...new Set(cpufreq.cpus.map((cpu) => cpu.governor ?? '?'))].sort().join(','));
  const iperf3 = facts['iperf3.version'] as { version?: string } | undefined;
  if (iperf3?.version) set(values, 'iperf3 version', iperf3.version);
  return values;
}

/**
 * The group an interface is compared within, in plain words: "Intel 8086:1593 (ice)", "ice" when
 * no PCI ids were read, the software type ("veth") for a device with no driver named.
 */
export function modelName(summary: Pick<InterfaceSummary, 'kind' | 'softwareType'>, driver: string | null, pcie?: unknown): string {
  const link = pcie as PcieLink | undefined;
  const hardware = link?.present && link.vendorId && link.deviceId ? pciModelName(link.vendorId, link.deviceId) : null;
  if (hardware) return driver ? `${hardware} (${driver})` : hardware;
  if (driver) return driver;
  if (summary.softwareType) return summary.softwareType;
  return summary.kind === 'unknown' ? 'unidentified' : summary.kind;
}

type Distribution = NonNullable<InterfaceSettingsEntry['distribution']>;

function localCpus(device: NetDevice | undefined): number[] | null {
  if (!device?.localCpuList) return null;
  try {
    return parseCpuList(device.localCpuList);
  } catch {
    return null;
  }
}

/** Where the work lands: queue interrupts per CPU and per vector, packets per RX queue, the PCIe path. */
function distribution(facts: Record<string, unknown>, numa: NumaTopology | undefined): Distribution | undefined {
  const irqs = facts['nic.irqs'] as NicIrqs | undefined;
  const stats = facts['ethtool.stats'] as EthtoolStats | undefined;
  const pcie = facts['pcie.link'] as PcieLink | undefined;
  const nodeOf = new Map<number, number>();
  for (const node of numa?.nodes ?? []) for (const cpu of node.cpus) nodeOf.set(cpu, node.id);
  const queues = (irqs?.irqs ?? []).filter((irq) => irq.role === 'queue' && irq.counts.length);
  const perCpu = (irqs?.cpus ?? []).slice(0, MAX_POINTS).map((cpu, column) => ({
    cpu,
    count: queues.reduce((sum, irq) => sum + (irq.counts[column] ?? 0), 0),
    node: nodeOf.get(cpu) ?? null,
  }));
  const perQueue = queues
    .slice(0, MAX_POINTS)
    .map((irq) => ({ name: irq.name ?? `IRQ ${irq.irq}`, count: irq.counts.reduce((sum, value) => sum + value, 0) }));
  const packets = stats ? rxQueuePackets(stats).slice(0, MAX_POINTS) : [];
  const path: Distribution['pciePath'] = [];
  if (pcie?.present) {
    const narrowest = pcie.upstream.length ? narrowestHop(pcie)?.address : undefined;
    const hop = (address: string, link: PcieLinkReading | null) => ({
      address,
      link: link ? linkText(link.speedGts, link.width) : null,
      capable: link && (link.maxSpeedGts !== null || link.maxWidth !== null) ? linkText(link.maxSpeedGts, link.maxWidth) : null,
      narrowest: address === narrowest,
    });
    path.push(hop(pcie.address, pcie.link), ...pcie.upstream.slice(0, MAX_POINTS).map((port) => hop(port.address, port.link)));
  }
  if (!perQueue.length && !packets.length && path.length < 2) return undefined;
  return {
    interruptsPerCpu: perQueue.length ? perCpu : [],
    localCpus: localCpus(facts['net.device'] as NetDevice | undefined),
    interruptsPerQueue: perQueue,
    rxQueuePackets: packets,
    pciePath: path.length >= 2 ? path : [],
  };
}

export function interfaceEntry(summary: InterfaceSummary, facts: Record<string, unknown>, numa?: NumaTopology): InterfaceSettingsEntry {
  // sysfs names no driver for software devices; ethtool -i does (veth).
  const driver = summary.driver ?? (facts['ethtool.driver'] as { driver?: string } | undefined)?.driver ?? null;
  return {
    name: summary.name,
    kind: summary.kind,
    driver,
    model: modelName(summary, driver, facts['pcie.link']),
    pciAddress: summary.pciAddress,
    values: interfaceValues(facts, summary),
    limits: interfaceLimits(facts),
    counters: interfaceCounters(facts),
    ...(distributionOf(facts, numa) ?? {}),
  };
}

function distributionOf(facts: Record<string, unknown>, numa: NumaTopology | undefined): { distribution: Distribution } | undefined {
  const found = distribution(facts, numa);
  return found ? { distribution: found } : undefined;
}

/** The report's settings, from the facts the scan's checks collected. */
export async function reportSettings(store: FactStore, interfaces: readonly InterfaceSummary[], kernel: string): Promise<ReportSettings> {
  const hostFacts: Record<string, unknown> = {};
  for (const id of HOST_FACTS) hostFacts[id] = await collected(store, id);
  const entries: InterfaceSettingsEntry[] = [];
  for (const summary of interfaces) {
    const facts: Record<string, unknown> = {};
    for (const id of INTERFACE_FACTS) facts[id] = await collected(store, id, summary.name);
    entries.push(interfaceEntry(summary, facts, hostFacts.numa as NumaTopology | undefined));
  }
  return { host: hostValues(hostFacts, kernel), interfaces: entries };
}
