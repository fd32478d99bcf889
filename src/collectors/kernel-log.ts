import { defineCollector } from '../contracts/collector.js';
import { parseKernelPcieReports, type KernelPcieReport } from '../parsers/kernel-log.js';
import { runTool } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** What the kernel log says about each NIC's PCIe bandwidth at probe time. */
    'kernel.pcie': KernelPcieReport[];
  }
}

export const kernelPcieCollector = defineCollector({
  id: 'kernel.pcie',
  scope: 'host',
  description:
    'The kernel log\'s PCIe bandwidth lines for NICs ("63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link at ...") from `dmesg`',
  reads: { commands: ['dmesg', 'journalctl --no-pager --catalog --boot -k'], ask: 'dmesg' },
  async collect(ctx) {
    // dmesg needs root where kernel.dmesg_restrict is 1: runTool turns that into permission-denied.
    // A capture may hold the journal's kernel messages instead (sos logs plugin).
    try {
      return parseKernelPcieReports((await runTool(ctx, ['dmesg'])).stdout);
    } catch (error) {
      try {
        return parseKernelPcieReports(
          (await runTool(ctx, ['journalctl', '--no-pager', '--catalog', '--boot', '-k'], { timeoutMs: 10_000 })).stdout,
        );
      } catch {
        throw error;
      }
    }
  },
});
