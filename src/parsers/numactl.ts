import { ParseError } from './parse-error.js';
import { parseCpuList } from './cpulist.js';
import { lines } from './text.js';

/** One NUMA node as the kernel sees it. */
export interface NumaNode {
  id: number;
  /** CPUs of the node; empty for memory-only nodes (GPU memory, CXL, HBM). */
  cpus: number[];
  /** Memory in MiB; 0 on a memory-less node (CPUs whose memory comes from another node); null when unknown. */
  memoryMb: number | null;
  /** Distance to each node of NumaTopology.nodes, in the same order (10 = local); empty when unknown. */
  distances: number[];
}

/** NUMA layout; `nodes` is empty when the kernel has no NUMA support. Node ids may be sparse (0, 8, 252). */
export interface NumaTopology {
  nodes: NumaNode[];
}

/**
 * Parses `numactl --hardware` (`numactl -H`), which sosreports carry:
 *   available: 2 nodes (0-1)
 *   node 0 cpus: 0 1 2 ...
 *   node 0 size: 94590 MB
 *   node distances:
 *   node   0   1
 *     0:  10  21
 * "No NUMA available on this system" is a kernel without NUMA: no nodes.
 */
export function parseNumactlHardware(text: string): NumaTopology {
  const all = lines(text).filter((line) => line.trim() !== '');
  if (all.some((line) => /No NUMA available/i.test(line))) return { nodes: [] };
  const available = all.map((line) => /^available:\s+(\d+) nodes?\s+\(([^)]*)\)/.exec(line)).find(Boolean);
  if (!available) throw new ParseError('numactl --hardware: no "available: N nodes" line');
  const ids = parseCpuList(available[2]!);
  if (ids.length !== Number(available[1])) throw new ParseError(`numactl --hardware: "${available[0]}" lists ${ids.length} node ids`);
  const nodes = new Map<number, NumaNode>(ids.map((id) => [id, { id, cpus: [], memoryMb: null, distances: [] }]));
  const nodeOf = (id: string, line: string): NumaNode => {
    const node = nodes.get(Number(id));
    if (!node) throw new ParseError(`numactl --hardware: node ${id} is not among the available nodes ("${line}")`);
    return node;
  };

  let distanceColumns: number[] | null = null;
  for (const line of all) {
    const cpus = /^node (\d+) cpus:(.*)$/.exec(line);
    if (cpus) {
      const words = cpus[2]!.trim().split(/\s+/).filter(Boolean);
      if (words.some((word) => !/^\d+$/.test(word))) throw new ParseError(`numactl --hardware: bad CPU list "${line}"`);
      nodeOf(cpus[1]!, line).cpus = words.map(Number);
      continue;
    }
    const size = /^node (\d+) size:\s+(\d+) MB$/.exec(line);
    if (size) {
      nodeOf(size[1]!, line).memoryMb = Number(size[2]);
      continue;
    }
    const columns = /^node((?:\s+\d+)+)\s*$/.exec(line);
    if (columns) {
      distanceColumns = columns[1]!.trim().split(/\s+/).map(Number);
      continue;
    }
    const row = /^\s*(\d+):((?:\s+\d+)+)\s*$/.exec(line);
    if (row && distanceColumns) {
      const values = row[2]!.trim().split(/\s+/).map(Number);
      if (values.length !== distanceColumns.length)
        throw new ParseError(
          `numactl --hardware: distance row "${line.trim()}" has ${values.length} values for ${distanceColumns.length} nodes`,
        );
      const byColumn = new Map(distanceColumns.map((id, index) => [id, values[index]!]));
      nodeOf(row[1]!, line).distances = ids.map((id) => byColumn.get(id) ?? Number.NaN);
      if (nodeOf(row[1]!, line).distances.some(Number.isNaN))
        throw new ParseError('numactl --hardware: distance table does not match the available nodes');
    }
  }
  return { nodes: ids.map((id) => nodes.get(id)!) };
}
