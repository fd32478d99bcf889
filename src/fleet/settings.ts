import type { FactStore } from '../engine/collector.js';
import type { FactId } from '../engine/facts.js';
import type { Report, Scalar } from '../report/schema.js';

/**
 * The settings fleet compares between hosts, by readable name ("rx ring", "PCIe link"). Only
 * what an operator sets or a vendor ships: counters differ on every host and say nothing here.
 */
export type SettingValues = Record<string, Scalar>;

export interface InterfaceSettings {
  name: string;
  driver: string | null;
  /** "ice 0x8086:0x1593": hosts are compared only with hosts holding the same NIC model and driver. */
  model: string;
  values: SettingValues;
}

export interface HostSettings {
  host: SettingValues;
  interfaces: InterfaceSettings[];
}

/** Kinds of interface whose settings are compared: software devices (veth, bridge) are left out unless nothing else is there. */
const HARDWARE_KINDS = new Set(['physical', 'paravirtual']);

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

/** Facts that hold counters or raw text: they differ between any two reads and are never settings. */
const COUNTER_FACTS = new Set<string>([
  'ethtool.stats',
  'net.statistics',
  'softnet',
  'proc.interrupts',
  'tc.qdisc.all',
  'bench.result',
  'interfaces',
  'tools',
]);
const COUNTER_KEYS =
  /(^|\.)(sentBytes|sentPackets|dropped|overlimits|requeues|backlogBytes|backlogPackets|carrierChanges|curKHz|source|sources|durationMs|counts|perCpu|total)(\.|$)/;

type Obj = Record<string, unknown>;
const isObj = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Nested fact values as dotted paths → scalars (scalar arrays joined), for `diff`. */
export function flatten(value: unknown, prefix = '', into = new Map<string, unknown>(), depth = 0): Map<string, unknown> {
  if (depth > 8) return into;
  if (Array.isArray(value)) {
    if (value.every((item) => !isObj(item) && !Array.isArray(item))) into.set(prefix, value.join(','));
    else value.forEach((item, index) => flatten(item, `${prefix}[${index}]`, into, depth + 1));
  } else if (isObj(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, into, depth + 1);
  } else {
    into.set(prefix, value ?? null);
  }
  return into;
}

function gbps(bits: number | null | undefined): string | null {
  return bits == null ? null : `${Math.round(bits / 1e7) / 100} Gb/s`;
}

function set(values: SettingValues, name: string, value: unknown): void {
  if (value === undefined) return;
  values[name] =
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);
}

/** The value of an already collected fact, or undefined; never collects anything new. */
async function collected(store: FactStore, id: string, subject = ''): Promise<unknown> {
  if (!store.runs.some((run) => run.fact === id && (run.subject ?? '') === subject && run.ok)) return undefined;
  const result = await store.get(id as FactId, subject || undefined);
  return result.ok ? result.value : undefined;
}

function interfaceValues(facts: Record<string, unknown>, summary: Report['interfaces'][number]): SettingValues {
  const values: SettingValues = {};
  set(values, 'MTU', summary.mtu);
  set(values, 'speed Mb/s', summary.speedMbps);
  const rings = facts['ethtool.rings'] as { current?: { rx?: number | null; tx?: number | null } } | undefined;
  if (rings?.current) {
    set(values, 'rx ring', rings.current.rx);
    set(values, 'tx ring', rings.current.tx);
  }
  const channels = facts['ethtool.channels'] as { current?: Record<string, number | null> } | undefined;
  if (channels?.current) {
    for (const kind of ['combined', 'rx', 'tx'] as const)
      if (channels.current[kind]) set(values, `${kind} channels`, channels.current[kind]);
  }
  const features = (facts['ethtool.features'] as { features?: Record<string, { active: boolean }> } | undefined)?.features;
  if (features) for (const name of OFFLOADS) if (features[name]) set(values, `offload ${name}`, features[name].active ? 'on' : 'off');
  const coalesce = facts['ethtool.coalesce'] as Record<string, unknown> | undefined;
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
  const pcie = facts['pcie.link'] as { present: boolean; link?: { speedGts: number | null; width: number | null } | null } | undefined;
  if (pcie?.present && pcie.link) set(values, 'PCIe link', `${pcie.link.speedGts ?? '?'} GT/s x${pcie.link.width ?? '?'}`);
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

function hostValues(facts: Record<string, unknown>, report: Report): SettingValues {
  const values: SettingValues = {};
  set(values, 'kernel', report.host.kernel);
  const sysctl = facts['sysctl.net'] as Record<string, unknown> | undefined;
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

function modelOf(driver: string | null, pcie: unknown, kind: string): string {
  // A software device with no driver named (veth: the checks never ask ethtool -i there) is grouped by its kind.
  if (!driver) return `${kind}, no driver`;
  const link = pcie as { present: boolean; vendorId?: string | null; deviceId?: string | null } | undefined;
  const ids = link?.present && link.vendorId && link.deviceId ? `${link.vendorId}:${link.deviceId}` : null;
  return [driver, ids].filter(Boolean).join(' ');
}

/** Which interfaces to compare: the hardware ones when the host has any, else all (a VM, the namespace lab). */
function comparedInterfaces(report: Report): Report['interfaces'] {
  const hardware = report.interfaces.filter((iface) => HARDWARE_KINDS.has(iface.kind));
  return hardware.length ? hardware : report.interfaces.filter((iface) => iface.kind !== 'bridge' && iface.kind !== 'bond');
}

/**
 * Settings and all facts from the facts a scan collected. Reads only what the scan's checks
 * already asked for, so the settings are exactly those the checks read.
 */
export async function settingsFromStore(
  store: FactStore,
  report: Report,
): Promise<{ settings: HostSettings; facts: Map<string, unknown> }> {
  const facts = new Map<string, unknown>();
  for (const run of store.runs) {
    if (!run.ok || COUNTER_FACTS.has(run.fact)) continue;
    const value = await collected(store, run.fact, run.subject ?? '');
    for (const [key, inner] of flatten(value)) {
      if (!COUNTER_KEYS.test(key)) facts.set(`${run.fact}\t${run.subject ?? ''}\t${key}`, inner);
    }
  }
  const hostFacts: Record<string, unknown> = {};
  for (const id of ['sysctl.net', 'cpufreq', 'iperf3.version']) hostFacts[id] = await collected(store, id);
  const interfaces: InterfaceSettings[] = [];
  for (const summary of comparedInterfaces(report)) {
    const perIface: Record<string, unknown> = {};
    for (const id of [
      'ethtool.rings',
      'ethtool.channels',
      'ethtool.features',
      'ethtool.coalesce',
      'pcie.link',
      'ethtool.driver',
      'tc.qdisc',
    ])
      perIface[id] = await collected(store, id, summary.name);
    // sysfs names no driver for software devices; ethtool -i does (veth).
    const driver = summary.driver ?? (perIface['ethtool.driver'] as { driver?: string } | undefined)?.driver ?? null;
    interfaces.push({
      name: summary.name,
      driver,
      model: modelOf(driver, perIface['pcie.link'], summary.kind),
      values: interfaceValues(perIface, summary),
    });
  }
  return { settings: { host: hostValues(hostFacts, report), interfaces }, facts };
}

/**
 * What a bare JSON report tells about settings: interface summaries and the policy's observed
 * values. Bundles carry the raw outputs and give the full list.
 */
export function settingsFromReport(report: Report): HostSettings {
  const interfaces = comparedInterfaces(report).map((summary) => ({
    name: summary.name,
    driver: summary.driver,
    model: modelOf(summary.driver, undefined, summary.kind),
    values: interfaceValues({}, summary),
  }));
  const host = hostValues({}, report);
  for (const item of report.policy?.items ?? []) {
    if (item.subject) {
      const iface = interfaces.find((candidate) => candidate.name === item.subject);
      if (iface) set(iface.values, `policy ${item.id}`, item.observed);
    } else {
      set(host, `policy ${item.id}`, item.observed);
    }
  }
  if (report.bench?.iperf3.client) set(host, 'iperf3 version', report.bench.iperf3.client);
  return { host, interfaces };
}
