import type { FactStore } from '../contracts/collector.js';
import type { Report } from '../report/schema.js';

/**
 * Raw values that let a policy show what it observed when a check passed (a passing check
 * reports no finding, so no numbers). Everything is optional: without it the policy judges
 * from the report alone and says "at least ..." where that is all the report proves.
 */
export interface PolicyFacts {
  /** `iperf3 -v` version as printed ("3.12", "3.17.1"). */
  iperf3Version?: string;
  /** scaling_governor of every CPU that has one. */
  governors?: string[];
  /** The four sysctls the socket-buffer tiers cover; null where the kernel lacks the key. */
  socketBuffers?: { rmemMax: number | null; wmemMax: number | null; tcpRmemMax: number | null; tcpWmemMax: number | null };
  /** `ethtool -g` per interface: current and maximum RX/TX descriptors. */
  rings?: Record<string, { rxCurrent: number | null; rxMax: number | null; txCurrent: number | null; txMax: number | null }>;
}

/**
 * Reads the policy's facts from the scan's store. The checks already collected them, so this
 * costs nothing extra; a fact that failed is left out (the report says why).
 */
export async function collectPolicyFacts(store: FactStore, report: Report): Promise<PolicyFacts> {
  const facts: PolicyFacts = {};
  const [iperf3, cpufreq, sysctl] = await Promise.all([store.get('iperf3.version'), store.get('cpufreq'), store.get('sysctl.net')]);
  if (iperf3.ok) facts.iperf3Version = iperf3.value.version;
  if (cpufreq.ok && cpufreq.value.present) {
    facts.governors = cpufreq.value.cpus.map((cpu) => cpu.governor).filter((governor): governor is string => governor !== null);
  }
  if (sysctl.ok) {
    const value = sysctl.value;
    facts.socketBuffers = {
      rmemMax: value.rmemMax,
      wmemMax: value.wmemMax,
      tcpRmemMax: value.tcpRmem?.max ?? null,
      tcpWmemMax: value.tcpWmem?.max ?? null,
    };
  }
  const rings: NonNullable<PolicyFacts['rings']> = {};
  for (const iface of report.interfaces.filter((candidate) => candidate.kind === 'physical' || candidate.kind === 'paravirtual')) {
    const result = await store.get('ethtool.rings', iface.name);
    if (result.ok)
      rings[iface.name] = {
        rxCurrent: result.value.current.rx,
        rxMax: result.value.max.rx,
        txCurrent: result.value.current.tx,
        txMax: result.value.max.tx,
      };
  }
  if (Object.keys(rings).length) facts.rings = rings;
  return facts;
}
