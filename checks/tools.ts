import { z } from 'zod';
import { TOOLS, type ToolName } from '../src/collectors/tools.js';
import { defineCheck, symptom } from '../src/contracts/check.js';

const options = z.object({
  /** Tools without which checks go unknown or the bench cannot run: a missing one is a warning. */
  needed: z.array(z.string()).default(['ethtool', 'iperf3']),
});

/** What each tool gives nicdoctor, for the message. */
const PURPOSE: Record<ToolName, string> = {
  ethtool: 'ring, queue, coalescing, offload and driver-statistics checks',
  lspci: 'PCIe link details where sysfs has none (MaxPayload, older kernels)',
  iperf3: 'the bandwidth test (nicdoctor bench)',
  numactl: "pinning test processes to the NIC's NUMA node",
  taskset: 'pinning test processes to CPUs',
  irqbalance: 'spreading interrupts over CPUs',
  tc: 'qdisc statistics and fq pacing',
  ip: 'interface and link settings',
};

export default defineCheck({
  id: 'tools',
  title: 'Diagnostic tools',
  description:
    'Looks for ethtool, lspci, iperf3, numactl, taskset, irqbalance, tc and ip in PATH and the sbin directories. Without ethtool most interface checks are unknown and without iperf3 the bench cannot run (warnings); the others are optional (info).',
  scope: 'host',
  requires: [],
  optionalFacts: ['tools'],
  options,
  symptoms: {
    'tool-missing': symptom({
      severity: 'info',
      data: z.object({ tool: z.enum(TOOLS), package: z.string().min(1), rpmPackage: z.string().min(1) }),
      phrases: { purpose: (d) => PURPOSE[d.tool] },
      message: '{tool} is not installed: nicdoctor uses it for {purpose}',
      fix: 'apt-get install {package} (Debian/Ubuntu) or dnf install {rpmPackage} (RHEL/Fedora)',
    }),
  },
  run({ optional, options: opts, report, source, notApplicable, unknown }) {
    const result = optional.tools;
    if (!result.ok) {
      // A capture that lists no tool directory (a ticket, a sosreport) says nothing of the host's
      // tools, and the machine that analyses it is not the host: there is nothing to judge.
      if (result.error.kind === 'not-captured') return notApplicable("the capture does not list the host's tool directories");
      return unknown(result.error.message);
    }
    const { tools, searchedDirs } = result.value;
    for (const tool of tools) {
      if (tool.path !== null) continue;
      const where = source('tools');
      report('tool-missing', {
        ...(opts.needed.includes(tool.name) ? { severity: 'warning' as const } : {}),
        evidence: [
          {
            label: `${tool.name} in ${searchedDirs.join(':')}`,
            observed: 'not found',
            expected: 'installed',
            ...(where ? { source: where } : {}),
          },
        ],
        data: { tool: tool.name, package: tool.debianPackage, rpmPackage: tool.rpmPackage },
      });
    }
    return undefined;
  },
});
