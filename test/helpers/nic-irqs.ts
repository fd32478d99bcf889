import type { NicIrqs } from '../../src/collectors/nic-irqs.js';
import { nicInterruptRows, type ProcInterrupts } from '../../src/parsers/proc-interrupts.js';

/** nic.irqs as the collector builds it from /proc/interrupts alone (no msi_irqs, no affinity files). */
export function nicIrqsOf(interrupts: ProcInterrupts, name: string): NicIrqs {
  return {
    cpus: interrupts.cpus,
    msiIrqs: [],
    irqs: nicInterruptRows(interrupts, { name, driver: null, pciAddress: null, virtioDevice: null }).map(({ row, name: action, role }) => ({
      irq: row.irq!,
      name: action,
      role,
      counts: row.counts,
      affinity: null,
      effectiveAffinity: null,
      shared: row.actions.length > 1,
    })),
  };
}
