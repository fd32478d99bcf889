import type { FactStore } from '../contracts/collector.js';
import type { FactId } from '../contracts/facts.js';
import type { Report, ReportSettings, Scalar } from '../report/schema.js';
import { interfaceEntry, reportSettings } from '../pipeline/report-settings.js';

/**
 * The settings fleet compares between hosts, by readable name ("rx ring", "PCIe link"). Only
 * what an operator sets or a vendor ships: counters differ on every host and say nothing here.
 */
export type SettingValues = Record<string, Scalar>;

export interface InterfaceSettings {
  name: string;
  driver: string | null;
  /** "Intel 8086:1593 (ice)": hosts are compared only with hosts holding the same NIC model and driver. */
  model: string;
  /** Pairs interfaces across hosts when their names differ. */
  pciAddress: string | null;
  values: SettingValues;
}

export interface HostSettings {
  host: SettingValues;
  interfaces: InterfaceSettings[];
}

/** Kinds of interface whose settings are compared: software devices (veth, bridge) are left out unless nothing else is there. */
const HARDWARE_KINDS = new Set(['physical', 'paravirtual']);

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

function set(values: SettingValues, name: string, value: unknown): void {
  if (value === undefined) return;
  values[name] =
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);
}

/** The value of an already collected fact, or undefined; never collects anything new. */
async function collected(store: FactStore, id: string, subject = ''): Promise<unknown> {
  if (!store.ranOk(id, subject)) return undefined;
  const result = await store.get(id as FactId, subject || undefined);
  return result.ok ? result.value : undefined;
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
  const computed = await reportSettings(store, report.interfaces, report.host.kernel);
  return { settings: compared(computed, report), facts };
}

/**
 * The settings a JSON report carries (its scan's own reading of the facts, the same as a bundle's
 * rescan gives). A report written before reports carried settings gives its interface summaries.
 */
export function settingsFromReport(report: Report): HostSettings {
  return compared(
    report.settings ?? {
      host: { kernel: report.host.kernel },
      interfaces: report.interfaces.map((summary) => interfaceEntry(summary, {})),
    },
    report,
  );
}

/**
 * The settings fleet and diff compare, whatever the input: the compared interfaces' values, with
 * the policy's observed values and the bench's iperf3 version, which only the report holds.
 */
function compared(settings: ReportSettings, report: Report): HostSettings {
  const names = new Set(comparedInterfaces(report).map((iface) => iface.name));
  const host: SettingValues = { ...settings.host };
  const interfaces: InterfaceSettings[] = settings.interfaces
    .filter((entry) => names.has(entry.name))
    .map((entry) => ({
      name: entry.name,
      driver: entry.driver,
      model: entry.model,
      pciAddress: entry.pciAddress,
      values: { ...entry.values },
    }));
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
