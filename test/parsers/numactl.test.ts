import { describe, expect, it } from 'vitest';
import { ParseError } from '../../src/contracts/facts.js';
import { parseNumactlHardware } from '../../src/parsers/numactl.js';
import { realCapture, realCaptures } from '../helpers/fixtures.js';

const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

describe('parseNumactlHardware', () => {
  it.each(realCaptures('numactl'))('%s parses: every node has a distance row with 10 to itself', (file) => {
    const topology = parseNumactlHardware(realCapture(file));
    expect(topology.nodes.length).toBeGreaterThan(0);
    topology.nodes.forEach((node, index) => {
      expect(node.distances).toHaveLength(topology.nodes.length);
      expect(node.distances[index]).toBe(10);
      expect(node.memoryMb).not.toBeNull();
    });
  });

  it('AWS c5n.18xlarge: 2 nodes, SMT siblings +36, distance 21', () => {
    const { nodes } = parseNumactlHardware(realCapture('numactl/aws-c5n18xl-2node-1.txt'));
    expect(nodes.map((node) => node.id)).toEqual([0, 1]);
    expect(nodes[0]).toEqual({ id: 0, cpus: [...range(0, 17), ...range(36, 53)], memoryMb: 94590, distances: [10, 21] });
    expect(nodes[1]).toEqual({ id: 1, cpus: [...range(18, 35), ...range(54, 71)], memoryMb: 94710, distances: [21, 10] });
  });

  it('POWER9 with GPU memory: sparse node ids, CPU-less nodes', () => {
    const { nodes } = parseNumactlHardware(realCapture('numactl/hpc-sparse-node-ids-1.txt'));
    expect(nodes.map((node) => node.id)).toEqual([0, 8, 252, 253, 254, 255]);
    expect(nodes[1]).toMatchObject({ id: 8, cpus: range(64, 127), memoryMb: 261747, distances: [40, 10, 80, 80, 80, 80] });
    expect(nodes[2]).toMatchObject({ id: 252, cpus: [], memoryMb: 16128, distances: [80, 80, 10, 80, 80, 80] });
  });

  it('single node with trailing spaces', () => {
    expect(parseNumactlHardware(realCapture('numactl/single-node-1.txt'))).toEqual({
      nodes: [{ id: 0, cpus: range(0, 7), memoryMb: 7957, distances: [10] }],
    });
  });

  it('Threadripper NPS4: memory-less nodes 0 and 3', () => {
    const { nodes } = parseNumactlHardware(realCapture('numactl/tr3960x-nps4-memoryless-1.txt'));
    expect(nodes.map((node) => node.memoryMb)).toEqual([0, 64307, 64472, 0]);
    expect(nodes[0]).toMatchObject({ cpus: [...range(0, 5), ...range(24, 29)], distances: [10, 12, 12, 12] });
  });

  it('a kernel without NUMA has no nodes', () => {
    expect(parseNumactlHardware('No NUMA available on this system\n')).toEqual({ nodes: [] });
  });

  it.each([
    ['empty', ''],
    ['garbage', 'numactl: command not found\n'],
    ['node count mismatch', 'available: 3 nodes (0-1)\nnode 0 cpus: 0\n'],
    ['unknown node', 'available: 1 nodes (0)\nnode 1 cpus: 0 1\n'],
    ['truncated distance row', `${realCapture('numactl/aws-c5n18xl-2node-1.txt').trimEnd().slice(0, -4)}\n`],
  ])('%s → ParseError', (_, text) => {
    expect(() => parseNumactlHardware(text)).toThrow(ParseError);
  });
});
