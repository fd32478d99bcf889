import type { FactStore } from '../contracts/collector.js';
import { classifyEthtoolStats } from '../domain/drop-counters.js';
import type { Bench } from '../report/schema.js';

export interface CounterSnapshot {
  softnetDropped: number | null;
  softnetTimeSqueeze: number | null;
  /** Drop and error counters of the egress NIC, by base name. */
  nicCounters: Map<string, number> | null;
  /** Interrupts of the NIC's vectors per CPU column. */
  interruptsPerCpu: number[] | null;
  /** TcpExt recovery counters since boot (this namespace's): episodes entered and undone. */
  tcpRecovery: { episodes: number; undone: number } | null;
}

/** Ways the sender enters loss recovery, and ways it takes a recovery back as spurious (include/uapi/linux/snmp.h). */
const RECOVERY_COUNTERS = ['TcpExt.TCPSackRecovery', 'TcpExt.TCPRenoRecovery', 'TcpExt.TCPTimeouts'];
const UNDO_COUNTERS = ['TcpExt.TCPFullUndo', 'TcpExt.TCPPartialUndo', 'TcpExt.TCPDSACKUndo', 'TcpExt.TCPLossUndo'];

function tcpRecoveryOf(counters: Record<string, number>): CounterSnapshot['tcpRecovery'] {
  if (!RECOVERY_COUNTERS.some((name) => name in counters)) return null;
  const sum = (names: readonly string[]) => names.reduce((total, name) => total + (counters[name] ?? 0), 0);
  return { episodes: sum(RECOVERY_COUNTERS), undone: sum(UNDO_COUNTERS) };
}

/**
 * Counters read just before and after the bench, through the same collectors a scan uses
 * (a fresh fact store each time, so nothing is memoised between the two readings).
 */
export async function captureCounters(store: FactStore, iface: string | null): Promise<CounterSnapshot> {
  const [softnet, stats, driver, irqs, protocol] = await Promise.all([
    store.get('softnet'),
    iface ? store.get('ethtool.stats', iface) : null,
    iface ? store.get('net.device', iface) : null,
    iface ? store.get('nic.irqs', iface) : null,
    store.get('net.protocol'),
  ]);
  const cpus = softnet.ok ? softnet.value.cpus : null;
  let nicCounters: Map<string, number> | null = null;
  if (stats?.ok) {
    const classified = classifyEthtoolStats(stats.value, driver?.ok ? driver.value.driver : null);
    nicCounters = new Map(classified.filter((counter) => counter.category !== 'info').map((counter) => [counter.name, counter.value]));
  }
  let interruptsPerCpu: number[] | null = null;
  if (irqs?.ok) {
    interruptsPerCpu = irqs.value.cpus.map((_, column) => irqs.value.irqs.reduce((total, irq) => total + (irq.counts[column] ?? 0), 0));
  }
  return {
    softnetDropped: cpus ? cpus.reduce((total, cpu) => total + cpu.dropped, 0) : null,
    softnetTimeSqueeze: cpus ? cpus.reduce((total, cpu) => total + cpu.timeSqueeze, 0) : null,
    nicCounters,
    interruptsPerCpu,
    tcpRecovery: protocol.ok ? tcpRecoveryOf(protocol.value.counters) : null,
  };
}

/** What changed during the run: only increases are news (counters since boot are not). */
export function counterDeltas(before: CounterSnapshot, after: CounterSnapshot): Bench['counters'] {
  const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.max(0, b - a));
  const nicDrops: Record<string, number> = {};
  for (const [name, value] of after.nicCounters ?? []) {
    const previous = before.nicCounters?.get(name);
    if (previous !== undefined && value > previous) nicDrops[name] = value - previous;
  }
  const interruptsPerCpu =
    after.interruptsPerCpu && before.interruptsPerCpu && after.interruptsPerCpu.length === before.interruptsPerCpu.length
      ? after.interruptsPerCpu.map((value, index) => Math.max(0, value - before.interruptsPerCpu![index]!))
      : [];
  return {
    softnetDropped: delta(before.softnetDropped, after.softnetDropped),
    softnetTimeSqueeze: delta(before.softnetTimeSqueeze, after.softnetTimeSqueeze),
    nicDrops,
    interruptsPerCpu,
    tcpRecovery:
      before.tcpRecovery && after.tcpRecovery
        ? {
            episodes: Math.max(0, after.tcpRecovery.episodes - before.tcpRecovery.episodes),
            undone: Math.max(0, after.tcpRecovery.undone - before.tcpRecovery.undone),
          }
        : null,
  };
}
