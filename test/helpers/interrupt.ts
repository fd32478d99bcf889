import { execa } from 'execa';

/**
 * Starts `file args` with debug logging, sends `signal` as soon as the log line of `phase` (the
 * scan's "phase" field, logged as the phase starts) appears on stderr, and resolves to the result
 * and how long the exit took after the signal. `args` must put `--log-level debug` where the
 * program reads it; `env` is added to the test's environment.
 */
export async function interruptAtPhase(
  file: string,
  args: string[],
  phase: string,
  signal: 'SIGTERM' | 'SIGINT',
  env: Record<string, string> = {},
) {
  const child = execa(file, args, {
    env,
    reject: false,
    timeout: 900_000,
    forceKillAfterDelay: false,
    buffer: { stdout: false },
  });
  let sentAt: number | undefined;
  const reached = new Promise<void>((resolve) => {
    let seen = '';
    child.stderr.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (sentAt === undefined && seen.includes(`"phase":"${phase}"`)) {
        sentAt = performance.now();
        child.kill(signal);
        resolve();
      }
    });
  });
  await Promise.race([reached, child]);
  const result = await child;
  return { result, sentAt, latencyMs: sentAt === undefined ? Infinity : performance.now() - sentAt };
}

/** A large pasted text (100 hosts' `ethtool -S` of 1,500 counters each, 6 MB, short lines): its analysis takes seconds. */
export function largePastedText(): string {
  const counters = Array.from({ length: 1500 }, (_, index) => `     rx_queue_${index}_packets: ${index * 1000}`).join('\n');
  const hosts = Array.from({ length: 100 }, (_, index) => `[root@web${index} ~]# ethtool -S eth0\nNIC statistics:\n${counters}\n`);
  return hosts.join('\n');
}
