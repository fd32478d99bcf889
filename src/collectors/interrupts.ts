import { defineCollector } from '../contracts/collector.js';
import { parseProcInterrupts, type ProcInterrupts } from '../parsers/proc-interrupts.js';

export type { InterruptRow, ProcInterrupts } from '../parsers/proc-interrupts.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'proc.interrupts': ProcInterrupts;
  }
}

export const PROC_INTERRUPTS = '/proc/interrupts';

export const procInterruptsCollector = defineCollector({
  id: 'proc.interrupts',
  scope: 'host',
  description: 'Interrupt counts per CPU and IRQ names from /proc/interrupts',
  reads: { files: ['/proc/interrupts'], ask: 'cat /proc/interrupts' },
  async collect(ctx) {
    return parseProcInterrupts(await ctx.readFile(PROC_INTERRUPTS));
  },
});
