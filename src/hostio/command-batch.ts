import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { shutdownSignal } from '../util/shutdown.js';
import { HostIOError, type ExecResult } from './types.js';

/**
 * Runs many short read-only commands through a few `/bin/sh` processes instead of one child
 * process each.
 *
 * Why: Node starts a child by forking its own (100 MB) process on the main thread; profiled in a
 * 64-interface scan on a loaded 2-core host, `ChildProcess.spawn` took 3.7 s of a 7.3 s run for
 * about 240 commands. A small shell forks far more cheaply. Each shell runs its commands one
 * after another, and after each one prints an end marker with the exit status on stdout and
 * another on stderr; the output is split here. The marker carries a random nonce drawn for each
 * shell, so no command output can forge one. Every word is single-quoted, so an interface name
 * (hostile input) is never read by the shell as syntax.
 *
 * Each command keeps its own timeout: when a command has not finished in time its shell's
 * whole process group is killed, that command fails with 'timeout' and the commands after it
 * are queued again. Ctrl-C (the shared shutdown signal) and the exit of nicdoctor kill every
 * running shell with what it runs.
 */

export interface BatchRequest {
  /** The command as the caller named it (recorded under this name). */
  argv: string[];
  /** The same with argv[0] replaced by the tool's absolute path. */
  resolved: string[];
  timeoutMs: number;
  env: Record<string, string>;
}

interface Pending extends BatchRequest {
  resolve: (result: ExecResult) => void;
  reject: (error: HostIOError) => void;
}

/** Commands per shell: enough to amortise its start, few enough to keep every shell busy. */
const MAX_PER_SHELL = 96;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** One word for the shell, taken literally whatever it holds. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The script one shell runs: each command, then its markers on stderr and stdout. */
export function batchScript(commands: readonly string[][], nonce: string): string {
  const lines = commands.map((argv, index) => {
    const command = argv.map(shellQuote).join(' ');
    // Standard input is the script itself: a command must never read it.
    return `${command} </dev/null; r=$?; printf '\\n%s %d\\n' ${nonce} ${index} >&2; printf '\\n%s %d %d\\n' ${nonce} ${index} "$r"`;
  });
  return `${lines.join('\n')}\n`;
}

/** Splits a stream into what came before each `\n<nonce> <index>[ <status>]\n` marker. */
class MarkedStream {
  private text = '';
  private from = 0;
  readonly parts: Array<{ output: string; status: number | null }> = [];
  bytes = 0;

  constructor(
    private readonly nonce: string,
    private readonly withStatus: boolean,
  ) {}

  /** Adds a chunk; returns how many parts are complete now. */
  push(chunk: string): number {
    this.bytes += chunk.length;
    this.text += chunk;
    for (;;) {
      const index = this.parts.length;
      const marker = `\n${this.nonce} ${index}${this.withStatus ? ' ' : '\n'}`;
      const at = this.text.indexOf(marker, this.from);
      if (at < 0) break;
      let next = at + marker.length;
      let status: number | null = null;
      if (this.withStatus) {
        const end = this.text.indexOf('\n', next);
        if (end < 0) break;
        status = Number(this.text.slice(next, end));
        next = end + 1;
      }
      this.parts.push({ output: this.text.slice(this.from, at), status });
      this.from = next;
    }
    // Drop what is already split, so a long output is not searched again and again.
    if (this.from > 1 << 20) {
      this.text = this.text.slice(this.from);
      this.from = 0;
    }
    return this.parts.length;
  }
}

export class CommandBatcher {
  private readonly queue: Pending[] = [];
  private readonly running = new Set<ChildProcess>();
  private flushScheduled = false;
  private readonly shells: number;
  private exitHookInstalled = false;

  constructor(shells = os.availableParallelism()) {
    this.shells = Math.max(1, Math.min(8, shells));
    shutdownSignal.addEventListener('abort', () => this.stopAll(), { once: true });
  }

  run(request: BatchRequest): Promise<ExecResult> {
    if (shutdownSignal.aborted) return Promise.reject(cancelled(request.argv));
    return new Promise<ExecResult>((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      this.schedule();
    });
  }

  /** Waits one turn of the event loop, so the commands asked for together share shells. */
  private schedule(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length && this.running.size < this.shells) {
      const idle = this.shells - this.running.size;
      const size = Math.min(MAX_PER_SHELL, Math.ceil(this.queue.length / idle));
      // Commands with the same environment share a shell (there is one in practice).
      const first = this.queue[0]!;
      const batch: Pending[] = [];
      for (let index = 0; index < this.queue.length && batch.length < size;) {
        const candidate = this.queue[index]!;
        if (sameEnv(candidate.env, first.env)) {
          batch.push(candidate);
          this.queue.splice(index, 1);
        } else index += 1;
      }
      this.start(batch);
    }
  }

  private start(batch: Pending[]): void {
    this.installExitHook();
    const nonce = `ndb${randomBytes(12).toString('hex')}`;
    const child = spawn('/bin/sh', [], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: batch[0]!.env,
      // Its own process group, so a timeout kills the command it runs, not only the shell.
      detached: true,
    });
    this.running.add(child);
    const out = new MarkedStream(nonce, true);
    const err = new MarkedStream(nonce, false);
    let settled = 0;
    let timedOut = -1;
    let failure: string | null = null;
    let started = performance.now();
    let timer: NodeJS.Timeout | undefined;

    const kill = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const arm = () => {
      clearTimeout(timer);
      const next = batch[settled];
      if (!next) return;
      started = performance.now();
      timer = setTimeout(() => {
        timedOut = settled;
        kill();
      }, next.timeoutMs);
    };
    const settle = () => {
      // A command is done when both of its markers arrived.
      while (settled < Math.min(out.parts.length, err.parts.length)) {
        const request = batch[settled]!;
        const { output, status } = out.parts[settled]!;
        const result = { argv: request.argv, stdout: output, stderr: err.parts[settled]!.output, durationMs: performance.now() - started };
        settled += 1;
        arm();
        if (status === 126) request.reject(new HostIOError('permission-denied', `${request.argv[0]}: permission denied`));
        else if (status !== null && status > 128 && status < 160)
          request.reject(new HostIOError('io', `${request.argv.join(' ')}: killed by signal ${status - 128}`));
        else request.resolve({ ...result, exitCode: status ?? -1 });
      }
      if (out.bytes + err.bytes > MAX_OUTPUT_BYTES && failure === null) {
        failure = 'output larger than 64 MiB';
        kill();
      }
    };

    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out.push(chunk);
      settle();
    });
    child.stderr.on('data', (chunk: string) => {
      err.push(chunk);
      settle();
    });
    child.stdin.on('error', () => undefined); // a shell killed before reading all of its script
    child.on('error', (error) => {
      failure = error.message;
    });
    child.on('close', () => {
      clearTimeout(timer);
      this.running.delete(child);
      settle();
      const rest = batch.slice(settled);
      if (shutdownSignal.aborted) {
        for (const request of rest) request.reject(cancelled(request.argv));
      } else if (timedOut >= 0 && timedOut === settled && rest.length) {
        const [late, ...after] = rest;
        late!.reject(new HostIOError('timeout', `${late!.argv.join(' ')}: timed out after ${late!.timeoutMs} ms`));
        // The commands after it never ran: they go to a new shell.
        this.queue.unshift(...after);
      } else if (timedOut >= 0) {
        // The late command finished as it was killed: what follows it never ran.
        this.queue.unshift(...rest);
      } else {
        const why = failure ?? 'the shell running it ended early';
        for (const request of rest) request.reject(new HostIOError('io', `${request.argv.join(' ')}: ${why}`));
      }
      this.dispatch();
    });
    arm();
    child.stdin.end(
      batchScript(
        batch.map((request) => request.resolved),
        nonce,
      ),
    );
  }

  private stopAll(): void {
    for (const child of this.running) {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    for (const request of this.queue.splice(0)) request.reject(cancelled(request.argv));
  }

  /** A shell in its own process group does not get the terminal's Ctrl-C: kill it when we exit. */
  private installExitHook(): void {
    if (this.exitHookInstalled) return;
    this.exitHookInstalled = true;
    process.once('exit', () => this.stopAll());
  }
}

let shared: CommandBatcher | undefined;

/** The one batcher of this process: its shells are shared by every live host access. */
export function commandBatcher(): CommandBatcher {
  shared ??= new CommandBatcher();
  return shared;
}

function cancelled(argv: readonly string[]): HostIOError {
  return new HostIOError('io', `${argv.join(' ')}: cancelled (nicdoctor is stopping)`);
}

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}
