import { execa, type ResultPromise } from 'execa';
import type { Logger } from 'pino';
import { RunError } from '../util/errors.js';
import { onShutdown, shutdownSignal } from '../util/shutdown.js';
import { toolSearchPath } from '../hostio/tool-path.js';

export interface ServerSpec {
  port: number;
  cpu: number | null;
}

interface RunningServer {
  spec: ServerSpec;
  process: ResultPromise;
  restarts: number;
  /** When the test it is serving started (a client connected), or null while it waits. */
  busySince: number | null;
}

export interface PoolOptions {
  /** A test running longer than this is ended (its server is restarted). */
  maxTestSeconds?: number;
  /** iperf3's own authentication: an RSA private key and an authorized-users file. */
  auth?: { rsaPrivateKey: string; authorizedUsers: string };
}

/**
 * `setpriv --pdeathsig KILL` makes the kernel kill each iperf3 when serve dies, even by kill -9
 * (PR_SET_PDEATHSIG survives the exec of taskset and iperf3): no orphans keep the ports.
 */
const PDEATHSIG = ['setpriv', '--pdeathsig', 'KILL', '--'];

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

  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly bind: string | null,
    private readonly log: Logger,
    private readonly options: PoolOptions = {},
  ) {}

  argv(spec: ServerSpec): string[] {
    const iperf = ['iperf3', '-s', '-p', String(spec.port), '--forceflush'];
    if (this.bind) iperf.push('-B', this.bind);
    if (this.options.auth)
      iperf.push('--rsa-private-key-path', this.options.auth.rsaPrivateKey, '--authorized-users-path', this.options.auth.authorizedUsers);
    return [...PDEATHSIG, ...(spec.cpu === null ? iperf : ['taskset', '-c', String(spec.cpu), ...iperf])];
  }

  /** True while any server is serving a test: serve is not idle then. */
  get busy(): boolean {
    return [...this.servers.values()].some((server) => server.busySince !== null);
  }

  async start(specs: readonly ServerSpec[]): Promise<void> {
    this.unregister = onShutdown(() => this.stop());
    if (this.options.maxTestSeconds) {
      const limitMs = this.options.maxTestSeconds * 1000;
      this.watchdog = setInterval(() => {
        for (const server of this.servers.values()) {
          if (server.busySince !== null && Date.now() - server.busySince > limitMs) {
            this.log.warn(
              { port: server.spec.port, seconds: this.options.maxTestSeconds },
              'test ran longer than --max-test-duration; ending it',
            );
            server.busySince = null;
            server.process.kill('SIGKILL');
          }
        }
      }, 1000);
      this.watchdog.unref();
    }
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
    const child = execa(argv[0]!, argv.slice(1), {
      reject: false,
      cancelSignal: shutdownSignal,
      forceKillAfterDelay: 500,
      stdin: 'ignore',
      // Never the caller's PATH: iperf3 comes from the system directories (tool-path.ts).
      env: { PATH: toolSearchPath(), LC_ALL: 'C' },
      buffer: false,
    });
    const server: RunningServer = { spec, process: child, restarts, busySince: null };
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
        // "Accepted connection" opens a test; "Server listening" again means it ended.
        if (/Accepted connection/.test(text)) server.busySince ??= Date.now();
        if (/Server listening/.test(text)) server.busySince = null;
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
        this.lastActivity = Date.now();
        this.log.warn({ port: spec.port, why }, 'iperf3 server died; restarting it');
        this.launch(spec, restarts + 1).catch((error: unknown) => this.log.error({ port: spec.port, err: error }, 'restart failed'));
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unregister?.();
    clearInterval(this.watchdog);
    const running = [...this.servers.values()];
    this.servers.clear();
    for (const server of running) server.process.kill('SIGTERM');
    await Promise.allSettled(running.map((server) => server.process));
  }
}
