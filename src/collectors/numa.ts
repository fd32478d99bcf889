import path from 'node:path';
import { defineCollector, type CollectContext } from '../contracts/collector.js';
import { ParseError } from '../contracts/facts.js';
import { HostIOError } from '../hostio/types.js';
import { parseCpuList } from '../parsers/cpulist.js';
import { parseNumactlHardware, type NumaNode, type NumaTopology } from '../parsers/numactl.js';
import { runTool } from './run-tool.js';
import { readAttribute } from '../hostio/sysfs-read.js';

export type { NumaNode, NumaTopology } from '../parsers/numactl.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    numa: NumaTopology;
  }
}

export const SYS_NODE = '/sys/devices/system/node';

export const numaCollector = defineCollector({
  id: 'numa',
  scope: 'host',
  description: 'NUMA nodes from /sys/devices/system/node: CPUs, memory and distances (numactl --hardware in snapshots without them)',
  reads: {
    commands: ['numactl --hardware'],
    files: ['/sys/devices/system/node/online', '/sys/devices/system/node/node<n>/*'],
    ask: 'numactl -H',
  },
  async collect(ctx) {
    let online: string | undefined;
    try {
      online = (await ctx.readFile(path.join(SYS_NODE, 'online'))).trim();
    } catch (error) {
      if (!(error instanceof HostIOError)) throw error;
      // A kernel without NUMA has no node directory: one memory domain, nothing to place.
      if (error.kind === 'not-found') return { nodes: [] };
      // A sosreport-style snapshot may carry `numactl --hardware` instead of the sysfs files.
      if (error.kind === 'not-captured') return parseNumactlHardware((await runTool(ctx, ['numactl', '--hardware'])).stdout);
      throw error;
    }
    const ids = parseCpuList(online);
    const nodes = await Promise.all(ids.map((id) => readNode(ctx, id, ids.length)));
    return { nodes };
  },
});

async function readNode(ctx: CollectContext, id: number, nodeCount: number): Promise<NumaNode> {
  const dir = path.join(SYS_NODE, `node${id}`);
  const [cpulist, meminfo, distance] = await Promise.all([
    readAttribute(ctx, path.join(dir, 'cpulist')),
    readAttribute(ctx, path.join(dir, 'meminfo')),
    readAttribute(ctx, path.join(dir, 'distance')),
  ]);
  const memTotalKb = meminfo === undefined ? undefined : /MemTotal:\s+(\d+) kB/.exec(meminfo)?.[1];
  const distances = distance ? distance.split(/\s+/).map(Number) : [];
  // The distance file lists one value per online node, in node order.
  if (distances.length > 0 && (distances.length !== nodeCount || distances.some(Number.isNaN))) {
    throw new ParseError(`${dir}/distance: "${distance}" does not list ${nodeCount} distances`);
  }
  return {
    id,
    cpus: cpulist === undefined ? [] : parseCpuList(cpulist),
    memoryMb: memTotalKb === undefined ? null : Math.floor(Number(memTotalKb) / 1024),
    distances,
  };
}
