import type { BenchMeasurement } from '../collectors/bench-result.js';
import type { FactStore } from '../contracts/collector.js';
import { RunError } from '../util/errors.js';
import type { HostIO } from '../hostio/types.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { compareVersions, parseVersionTriple } from '../parsers/iperf3-version.js';
import { tcpGoodputMbps } from '../domain/goodput.js';
import { usableGbps } from '../domain/pcie.js';
import { LOOPBACK, type BenchOptions } from './bench-options.js';
import { planCpus } from './cpu-plan.js';

/** What the bench knows before any traffic: where it sends, on which CPUs, against which ceilings. */
export interface BenchPlan {
  host: string;
  mode: BenchMeasurement['mode'];
  clientVersion: BenchMeasurement['iperf3']['client'];
  /** The interface traffic to the peer leaves by; null for loopback. */
  iface: string | null;
  cpus: number[];
  physicalCores: number;
  linkSpeedMbps: number | null;
  mtu: number | null;
  ceilingBitsPerSecond: number | null;
  pcieBitsPerSecond: number | null;
}

/** "3.17.1", "3.12+" or null against a minimum such as "3.16". */
export function versionAtLeast(version: string | null, minimum: string): boolean {
  const numbers = /^\d+\.\d+(?:\.\d+)?/.exec(version ?? '')?.[0];
  return numbers !== undefined && compareVersions(parseVersionTriple(numbers), parseVersionTriple(minimum)) >= 0;
}

/** The interface traffic to the peer leaves by (`ip route get`), null for loopback. */
async function egressInterface(io: HostIO, peer: string): Promise<string | null> {
  try {
    const result = await io.exec(['ip', '-o', 'route', 'get', peer], { timeoutMs: 5000 });
    const dev = /\bdev (\S+)/.exec(result.stdout)?.[1];
    return dev && dev !== 'lo' ? dev : null;
  } catch {
    return null;
  }
}

/**
 * Step "plan": the local iperf3 (required), the egress interface, NIC-local CPUs (one per physical
 * core first), and the ceilings the ramp stops at: the link's TCP goodput and the PCIe link.
 */
export async function planBench(options: BenchOptions, store: FactStore): Promise<BenchPlan> {
  const clientVersionFact = await store.get('iperf3.version');
  if (!clientVersionFact.ok)
    throw new RunError(
      `iperf3 is needed for the bench: ${clientVersionFact.error.message}${clientVersionFact.error.hint ? ` (${clientVersionFact.error.hint})` : ''}`,
    );

  const iface = options.peer ? await egressInterface(options.io, options.peer) : null;
  const device = iface ? await store.get('net.device', iface) : null;
  const topology = await store.get('cpu.topology');
  const deviceValue = device?.ok ? device.value : null;
  const local = deviceValue?.localCpuList ? parseCpuList(deviceValue.localCpuList) : null;
  const cpuPlan = planCpus(topology.ok ? topology.value : null, local);
  const linkSpeedMbps = options.linkSpeedMbps ?? deviceValue?.speedMbps ?? null;
  const mtu = deviceValue?.mtu ?? null;
  const ceilingBitsPerSecond = linkSpeedMbps ? tcpGoodputMbps(linkSpeedMbps, mtu ?? 1500) * 1e6 : null;
  let pcieBitsPerSecond: number | null = null;
  if (iface) {
    const pcie = await store.get('pcie.link', iface);
    if (pcie.ok && pcie.value.present && pcie.value.link?.speedGts && pcie.value.link.width) {
      pcieBitsPerSecond = (usableGbps(pcie.value.link.speedGts, pcie.value.link.width) ?? 0) * 1e9 || null;
    }
  }
  return {
    host: options.peer ?? LOOPBACK,
    mode: options.peer ? 'peer' : 'loopback',
    clientVersion: clientVersionFact.value.version,
    iface,
    cpus: cpuPlan.cpus,
    physicalCores: cpuPlan.physicalCores,
    linkSpeedMbps,
    mtu,
    ceilingBitsPerSecond,
    pcieBitsPerSecond,
  };
}
