import type { CpuTopology } from '../collectors/cpu-topology.js';

/**
 * CPUs for iperf3 processes, in the order to use them: NIC-local CPUs first, one hardware
 * thread per physical core before any sibling (processes beyond physical cores lose ~15 %,
 * CAUSES.md cause 13). Returns the ordered list and the number of distinct physical cores.
 */
export function planCpus(topology: CpuTopology | null, localCpus: readonly number[] | null): { cpus: number[]; physicalCores: number } {
  const online = topology?.online.length ? topology.online : [];
  const local = localCpus?.length ? online.filter((cpu) => localCpus.includes(cpu)) : online;
  const candidates = local.length ? local : online;
  const firstThreads: number[] = [];
  const siblings: number[] = [];
  const seenCores = new Set<string>();
  for (const cpu of candidates) {
    const thread = topology?.cpus.find((entry) => entry.cpu === cpu);
    const core = thread?.siblings?.length ? thread.siblings.join(',') : `${cpu}`;
    if (seenCores.has(core)) siblings.push(cpu);
    else {
      seenCores.add(core);
      firstThreads.push(cpu);
    }
  }
  return { cpus: [...firstThreads, ...siblings], physicalCores: firstThreads.length };
}
