/**
 * One place that knows the process is stopping (Ctrl-C, SIGTERM). Child processes are started
 * with this signal so that they are killed with us, and long-running work can stop early.
 */
const controller = new AbortController();
const cleanups = new Set<() => Promise<void> | void>();

export const shutdownSignal: AbortSignal = controller.signal;

export function requestShutdown(reason: string): void {
  if (!controller.signal.aborted) controller.abort(new Error(reason));
}

/** Registers work to do before exit (stop servers, remove temp files); returns an unregister function. */
export function onShutdown(cleanup: () => Promise<void> | void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

export async function runCleanups(): Promise<void> {
  const pending = [...cleanups];
  cleanups.clear();
  await Promise.allSettled(pending.map(async (cleanup) => cleanup()));
}
