/**
 * SIGINT and SIGTERM, installed before the rest of the CLI loads (cli.ts imports this first), so
 * that a signal during start-up is handled too. Children are killed through the shared abort
 * signal; the command then prints what it has (a partial report) and exits. If it cannot
 * within a second, cleanups run and the process exits anyway: 130 for Ctrl-C, 143 for SIGTERM
 * (128 + the signal number, as shells report it).
 */
import { requestShutdown, runCleanups } from '../util/shutdown.js';

export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
let received: keyof typeof SIGNAL_EXIT | null = null;

/** The signal that asked the process to stop, or null. */
export function interruptedBy(): keyof typeof SIGNAL_EXIT | null {
  return received;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (received) process.exit(SIGNAL_EXIT[received]); // a second Ctrl-C: leave now
    received = signal;
    requestShutdown(signal);
    setTimeout(() => void runCleanups().finally(() => process.exit(SIGNAL_EXIT[signal])), 1000).unref();
  });
}
