import { execa, type ResultPromise } from 'execa';
import type { Logger } from 'pino';
import { RunError } from '../engine/errors.js';
import { onShutdown, shutdownSignal } from '../util/shutdown.js';

export interface ServerSpec {
  port: number;
  cpu: number | null;
}

interface RunningServer {
  spec: ServerSpec;
  process: ResultPromise;
  restarts: number;
}

const MAX_RESTARTS = 5;
const START_TIMEOUT_MS = 5000;

/**
 * One `iperf3 -s` per port (a server runs one test at a time, CAUSES.md), each pinned with
 * taskset; a server that dies is restarted; stop() (and Ctrl-C) kills them all.
 */
export class Iperf3ServerPool {
  private readonly servers = new Map<number, RunningServer>();
  private stopping = false;
  private unregister: (() => void) | undefined;
  lastActivity = Date.now();

  constructor(
    private readonly bind: string | null,
    private readonly log: Logger,
  ) {}

  argv(spec: ServerSpec): string[] {
    const iperf = ['iperf3', '-s', '-p', String(spec.port), '--forceflush'];
    if (this.bind) iperf.push('-B', this.bind);
    return spec.cpu === null ? iperf : ['taskset', '-c', String(spec.cpu), ...iperf];
  }

  async start(specs: readonly ServerSpec[]): Promise<void> {
    this.unregister = onShutdown(() => this.stop());
    try {
      await Promise.all(specs.map((spec) => this.launch(spec, 0)));
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  get ports(): number[] {
    return [...this.servers.keys()].sort((a, b) => a - b);
  }

  pids(): number[] {
    return [...this.servers.values()].map((server) => server.process.pid).filter((pid): pid is number => pid !== undefined);
  }

  private launch(spec: ServerSpec, restarts: number): Promise<void> {
    const argv = this.argv(spec);
    const child = execa(argv[0]!, argv.slice(1), { reject: false, cancelSignal: shutdownSignal, forceKillAfterDelay: 2000, stdin: 'ignore', env: { LC_ALL: 'C' }, buffer: false });
    const server: RunningServer = { spec, process: child, restarts };
    this.servers.set(spec.port, server);
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      let errorText = '';
      const timer = setTimeout(() => {
        if (!ready) reject(new RunError(`iperf3 server on port ${spec.port} did not start within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      const onOutput = (chunk: Buffer) => {
        const text = chunk.toString();
        if (/Server listening on/.test(text) && !ready) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
        if (/Accepted connection|Server listening/.test(text)) this.lastActivity = Date.now();
        if (/error/i.test(text)) errorText += text;
      };
      child.stdout?.on('data', onOutput);
      child.stderr?.on('data', onOutput);
      void child.then((result) => {
        clearTimeout(timer);
        if (this.stopping || shutdownSignal.aborted) return;
        const why = (errorText.trim().split('\n')[0] ?? '') || `exit code ${result.exitCode ?? result.signal}`;
        if (!ready) {
          if (result.code === 'ENOENT') reject(new RunError(`${argv[0]}: command not found (install iperf3)`));
          else if (/in use/i.test(why)) reject(new RunError(`port ${spec.port} is already in use: ${why}`));
          else reject(new RunError(`iperf3 server on port ${spec.port} failed to start: ${why}`));
          return;
        }
        if (restarts >= MAX_RESTARTS) {
          this.log.error({ port: spec.port, why }, 'iperf3 server keeps dying; not restarting it again');
          this.servers.delete(spec.port);
          return;
        }
        this.log.warn({ port: spec.port, why }, 'iperf3 server died; restarting it');
        this.launch(spec, restarts + 1).catch((error: unknown) => this.log.error({ port: spec.port, err: error }, 'restart failed'));
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unregister?.();
    const running = [...this.servers.values()];
    this.servers.clear();
    for (const server of running) server.process.kill('SIGTERM');
    await Promise.allSettled(running.map((server) => server.process));
  }
}
