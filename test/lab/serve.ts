/**
 * `nicdoctor serve` in a lab namespace, for lab tests that run the bench against it.
 * Imports no test framework.
 */
import type { ResultPromise } from 'execa';
import { CLI, toolPath } from '../../lab/cli.js';
import type { Lab, Side } from '../../lab/lab.js';

/**
 * The running server, in a box: a ResultPromise is thenable, so returning it bare from an
 * async function would make the caller wait for the server to exit.
 */
export interface Serve {
  process: ResultPromise;
}

/** Starts `nicdoctor serve` in `side` (default b) on its address; resolves once it listens. */
export async function startServe(
  lab: Lab,
  ports: string,
  env: Record<string, string> = {},
  side: Side = 'b',
  toolArgs: readonly string[] = [],
): Promise<Serve> {
  const bind = lab[side].address;
  const serve = lab.spawn(side, [process.execPath, CLI, ...toolArgs, 'serve', '--bind', bind, '--ports', ports, '--idle-timeout', '600'], {
    env: { PATH: toolPath(), ...env },
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('nicdoctor serve did not start within 15 s')), 15_000);
    serve.stderr?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('iperf3 servers on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void serve.then((result) => {
      clearTimeout(timer);
      reject(new Error(`nicdoctor serve exited: ${String(result.stderr)}`));
    }, reject);
  });
  return { process: serve };
}

/** Stops the server (SIGTERM: it stops its iperf3 servers) and waits for it to exit. */
export async function stopServe(serve: Serve | undefined): Promise<void> {
  if (!serve) return;
  serve.process.kill('SIGTERM');
  await serve.process.catch(() => undefined);
}
