import { defineCollector } from '../contracts/collector.js';
import { parseKernelEvents, type KernelEvents } from '../parsers/kernel-events.js';
import { runTool } from './run-tool.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** Fault events in the kernel log (link flaps, TX timeouts, AER, rejected modules, ...), counted per device. */
    'kernel.events': KernelEvents;
  }
}

/**
 * Files that hold the kernel's messages over a longer span than the ring buffer: Debian's
 * kern.log, RHEL's messages (both copied at their path by sos's logs plugin).
 */
const LOG_FILES = ['/var/log/kern.log', '/var/log/messages'];

export const kernelEventsCollector = defineCollector({
  id: 'kernel.events',
  scope: 'host',
  description:
    'Fault events in the kernel log (`dmesg`, the journal\'s kernel messages, /var/log/kern.log or messages): link flaps, "NETDEV WATCHDOG ... timed out", TX hangs and resets, PCIe AER errors, rejected modules, firmware and MDD events, "nf_conntrack: table full", over-MTU drops, page allocation failures',
  reads: {
    commands: ['dmesg', 'journalctl --no-pager --catalog --boot -k'],
    files: ['/var/log/kern.log', '/var/log/messages'],
    ask: 'dmesg',
  },
  async collect(ctx) {
    // The ring buffer first (what the boot and the fault wrote), then the journal, then the log
    // files: the first source with an event wins, so one event is never counted from two copies.
    let first: KernelEvents | undefined;
    let failure: unknown;
    const sources: Array<() => Promise<string | undefined>> = [
      async () => (await runTool(ctx, ['dmesg'])).stdout,
      async () => (await runTool(ctx, ['journalctl', '--no-pager', '--catalog', '--boot', '-k'], { timeoutMs: 10_000 })).stdout,
      ...LOG_FILES.map((file) => () => ctx.readOptionalFile(file)),
    ];
    for (const read of sources) {
      let text: string | undefined;
      try {
        text = await read();
      } catch (error) {
        failure ??= error;
        continue;
      }
      if (text === undefined) continue;
      const events = parseKernelEvents(text);
      if (events.events.length > 0) return events;
      first ??= events;
    }
    if (first) return first;
    if (failure instanceof Error) throw failure;
    throw new Error('no kernel log could be read');
  },
});
