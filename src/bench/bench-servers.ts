import { LOOPBACK, type BenchOptions } from './bench-options.js';
import type { BenchPlan } from './bench-plan.js';
import { fetchServerInfo } from './info-endpoint.js';
import { Iperf3ServerPool } from './server-pool.js';

export interface BenchServers {
  /** The ports the clients use: those the peer's `nicdoctor serve` offers, else the given ones. */
  ports: number[];
  serverVersion: string | null;
  /** The local iperf3 servers of a loopback bench, to stop afterwards; null with a peer. */
  pool: Iperf3ServerPool | null;
}

/**
 * Step "servers": with a peer, ask its `nicdoctor serve` info endpoint which ports and iperf3 it
 * has; on loopback, start one pinned iperf3 server per port.
 */
export async function startServers(options: BenchOptions, plan: BenchPlan): Promise<BenchServers> {
  if (options.peer) {
    let ports = options.ports;
    let serverVersion: string | null = null;
    let missing = 'no reply';
    const info = await fetchServerInfo(options.peer, options.controlPort, undefined, (why) => (missing = why));
    if (info) {
      serverVersion = info.iperf3;
      const offered = ports.filter((port) => info.ports.includes(port));
      if (offered.length) ports = offered;
      options.log.info({ info }, 'peer runs nicdoctor serve');
    } else {
      options.log.warn(
        { peer: options.peer, port: options.controlPort, why: missing },
        'no nicdoctor serve info endpoint on the peer; using the given ports',
      );
    }
    return { ports, serverVersion, pool: null };
  }
  const pool = new Iperf3ServerPool(LOOPBACK, options.log);
  // Servers take the CPUs from the far end of the plan, clients from the near end.
  const reversed = [...plan.cpus].reverse();
  await pool.start(options.ports.map((port, index) => ({ port, cpu: reversed.length ? reversed[index % reversed.length]! : null })));
  return { ports: options.ports, serverVersion: plan.clientVersion, pool };
}
