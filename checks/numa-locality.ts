import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import { formatCpuList, parseCpuList } from '../src/parsers/cpulist.js';

/** Where the NIC sits: its node, the host's CPU nodes, its local CPUs and the nearest node with memory. */
const placement = z.object({
  node: z.number().int(),
  nodes: z.number().int(),
  /** A cpulist ("0-7"). */
  localCpus: z.string(),
  memoryNode: z.number().int(),
  /** The firmware's distance to memoryNode (10: local), null when it gives none. */
  distance: z.number().nullable(),
});

export default defineCheck({
  id: 'numa-locality',
  title: "The NIC's NUMA node",
  description:
    "Reads the NIC's numa_node and local_cpulist and the host's NUMA nodes (/sys/devices/system/node). On a multi-node host, test processes and IRQs belong on the NIC's node: the wrong socket costs up to 2x at 40/100G. IRQs on remote CPUs are reported by irq-affinity.",
  scope: 'interface',
  // Only the kind decides not-applicable: a NIC whose address the capture lacks is unknown (run()).
  appliesTo: (iface) => (isSoftware(iface) ? `${iface.name} is not a PCI device (${iface.kind} interface): it has no NUMA node` : null),
  requires: ['net.device', 'numa'],
  symptoms: {
    'nic-numa-node': symptom({
      severity: 'info',
      data: placement,
      message: '{subject} is attached to NUMA node {node} of {nodes}: its local CPUs are {localCpus}',
      fix: "Run the test processes on that node: numactl --cpunodebind={node} --membind={memoryNode} iperf3 ... (or taskset -c {localCpus}), and keep the NIC's IRQs on CPUs {localCpus}",
    }),
    'numa-node-unknown': symptom({
      severity: 'info',
      data: z.object({ nodes: z.number().int() }),
      message: 'The firmware does not say which of the {nodes} NUMA nodes {subject} is attached to (numa_node is -1)',
      fix: 'Find the socket from the slot (lspci -tv, the board manual) and pin test processes with numactl --cpunodebind=<node>; a BIOS/firmware update often restores the ACPI proximity (_PXM) information',
    }),
    'nic-node-memoryless': symptom({
      severity: 'warning',
      data: placement,
      message:
        'NUMA node {node} of {subject} has CPUs but no memory: packet buffers and socket memory come from node {memoryNode} (distance {distance})',
      fix: 'Populate the memory channels of that socket/die, or change the BIOS NUMA-per-socket (NPS) setting; meanwhile bind memory to the nearest node: numactl --cpunodebind={node} --membind={memoryNode}',
    }),
  },
  run({ facts, subject, report, notApplicable, unknown, source }) {
    const device = facts['net.device'];
    const nodes = facts.numa.nodes;
    // Memory-only nodes (GPU memory, CXL) do not run processes: they do not make a host multi-socket.
    const cpuNodes = nodes.filter((node) => node.cpus.length > 0);
    if (cpuNodes.length <= 1)
      return notApplicable(`single NUMA node host (${nodes.length <= 1 ? 'one node' : `${cpuNodes.length} node with CPUs`})`);
    if (!device.pciPath) {
      if (isSoftware(device)) return notApplicable(`${subject} is not a PCI device (${device.kind} interface): it has no NUMA node`);
      return unknown(
        `the capture does not give the PCI device of ${subject} (a ${device.kind} interface), so its NUMA node cannot be read`,
        `cat /sys/class/net/${subject}/device/numa_node /sys/class/net/${subject}/device/local_cpulist`,
      );
    }

    const nodeSource = source('net.device', '/numa_node');
    if (device.numaNode === null) {
      report('numa-node-unknown', {
        evidence: [
          {
            label: 'NIC numa_node',
            observed: -1,
            expected: `one of ${cpuNodes.map((node) => node.id).join(', ')}`,
            ...(nodeSource ? { source: nodeSource } : {}),
          },
        ],
        data: { nodes: cpuNodes.length },
      });
      return undefined;
    }
    const index = nodes.findIndex((node) => node.id === device.numaNode);
    const node = nodes[index];
    if (!node)
      return unknown(
        `${subject} reports NUMA node ${device.numaNode}, which is not among the host's nodes (${nodes.map((entry) => entry.id).join(', ')})`,
      );

    const localCpus = device.localCpuList ? parseCpuList(device.localCpuList) : node.cpus;
    // The nearest node that has memory, by the firmware's distance table.
    let memoryNode = node.id;
    let distance = node.distances[index] ?? 10;
    if (node.memoryMb === 0) {
      const candidates = nodes
        .map((other, otherIndex) => ({ other, distance: node.distances[otherIndex] }))
        .filter(({ other }) => other.id !== node.id && other.memoryMb !== 0)
        .sort((a, b) => (a.distance ?? Infinity) - (b.distance ?? Infinity));
      const nearest = candidates[0];
      if (nearest) {
        memoryNode = nearest.other.id;
        distance = nearest.distance ?? Number.NaN;
      }
    }
    const data = {
      node: node.id,
      nodes: cpuNodes.length,
      localCpus: formatCpuList(localCpus),
      memoryNode,
      distance: Number.isNaN(distance) ? null : distance,
    };
    const nodeEvidence = { label: 'NIC numa_node', observed: node.id, ...(nodeSource ? { source: nodeSource } : {}) };
    const numaSource = source('numa', `node${node.id}/meminfo`);
    if (node.memoryMb === 0) {
      report('nic-node-memoryless', {
        evidence: [
          nodeEvidence,
          { label: `node ${node.id} memory`, observed: 0, expected: '> 0', unit: 'MiB', ...(numaSource ? { source: numaSource } : {}) },
        ],
        data,
      });
    }
    const cpulistSource = source('net.device', '/local_cpulist');
    report('nic-numa-node', {
      evidence: [
        nodeEvidence,
        { label: 'NIC local_cpulist', observed: data.localCpus, ...(cpulistSource ? { source: cpulistSource } : {}) },
      ],
      data,
    });
    return undefined;
  },
});
