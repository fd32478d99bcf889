/**
 * `analyze` runs in a worker thread; the main thread only waits, and keeps handling signals.
 *
 * Why: the analysis is long synchronous work (10,000 interfaces' checks and rules, a large
 * pasted text, rendering a big report). On the main thread a signal handler cannot run until it
 * ends, so Ctrl-C and SIGTERM waited for the whole analysis (issue 19: 12.8 s). Here the main
 * thread tells the worker to stop (its shutdown signal aborts, so an async phase winds down and
 * prints what it has), and terminates it when it does not stop within STOP_GRACE_MS: V8
 * interrupts even a running regular expression. A worker inside one long native call is not
 * waited for: the exit a second after the signal (signals.ts) ends it.
 *
 * The worker's temporary files (an extracted bundle or archive) go into a private directory the
 * main thread makes (TMPDIR of the worker, which os.tmpdir() reads) and always removes, so a
 * terminated worker leaves nothing behind.
 *
 * The single executable (Node SEA) has no module file a worker could load: it carries its own
 * bundle as an asset (scripts/package.mjs, WORKER_ASSET), and the worker evaluates that text. An
 * executable built without the asset runs the analysis on the main thread, as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getAsset, isSea } from 'node:sea';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { onShutdown, requestShutdown, shutdownSignal } from '../util/shutdown.js';
import { embeddedAssets } from '../util/embedded.js';

/** The single executable's asset holding its own bundle (scripts/package.mjs adds it). */
export const WORKER_ASSET = 'nicdoctor.cjs';

/** How long a worker that was told to stop may take before it is terminated. */
const STOP_GRACE_MS = 400;

interface WorkerInput {
  argv: string[];
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

type WorkerMessage = { exitCode: number };
type MainMessage = { stop: string };

/** The global options commander reads before the command name (cli.ts), and whether each takes a value. */
const GLOBAL_OPTIONS = new Map([
  ['-v', false],
  ['--verbose', false],
  ['--log-level', true],
]);

/** The command an argv runs (the first word that is not a global option), or undefined. */
export function commandOf(argv: readonly string[]): string | undefined {
  for (let index = 2; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word.startsWith('--log-level=')) continue;
    const takesValue = GLOBAL_OPTIONS.get(word);
    if (takesValue === undefined) return word;
    if (takesValue) index += 1;
  }
  return undefined;
}

/** What a worker runs: the module file, or in the single executable the text of its bundle; undefined when there is none. */
type WorkerCode = { file: URL } | { source: string };

function workerCode(entry: URL): WorkerCode | undefined {
  if (embeddedAssets() === undefined) return { file: entry };
  if (!isSea()) return undefined;
  try {
    return { source: getAsset(WORKER_ASSET, 'utf8') };
  } catch {
    return undefined; // an executable built before the asset existed
  }
}

/** Whether this process should run its command in a worker thread (the analysis commands). */
export function runsInWorker(argv: readonly string[], entry: URL): boolean {
  return isMainThread && commandOf(argv) === 'analyze' && workerCode(entry) !== undefined;
}

/** In the worker: the work given to it, or undefined on the main thread. */
export function workerInput(): WorkerInput | undefined {
  if (isMainThread || !parentPort) return undefined;
  const input = workerData as WorkerInput;
  // A worker's stdout and stderr are pipes to the main thread: say what they end in, so that
  // colours and progress follow the user's terminal as they do on the main thread.
  Object.defineProperty(process.stdout, 'isTTY', { value: input.stdoutIsTTY, configurable: true });
  Object.defineProperty(process.stderr, 'isTTY', { value: input.stderrIsTTY, configurable: true });
  parentPort.on('message', (message: MainMessage) => requestShutdown(message.stop));
  // Listening for "stop" must not keep the worker alive once its command is done.
  parentPort.unref();
  return input;
}

/** In the worker: the command's exit code, back to the main thread. */
export function reportExit(exitCode: number): void {
  parentPort?.postMessage({ exitCode } satisfies WorkerMessage);
}

/**
 * On the main thread: runs the command of `argv` in a worker running `entry` (cli.js) and
 * resolves to its exit code; 1 when it was terminated (the caller maps a signal to its code).
 */
export function runInWorker(entry: URL, argv: string[]): Promise<number> {
  const tempRoot = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-run-'));
  const removeTemp = () => rmSync(tempRoot, { recursive: true, force: true });
  const readsStdin = argv.includes('-');
  const code = workerCode(entry);
  if (code === undefined) throw new Error('runInWorker: no worker code (check runsInWorker first)');
  const worker = new Worker('file' in code ? code.file : code.source, {
    eval: 'source' in code,
    argv: argv.slice(2),
    workerData: {
      argv,
      stdoutIsTTY: Boolean(process.stdout.isTTY),
      stderrIsTTY: Boolean(process.stderr.isTTY),
    } satisfies WorkerInput,
    env: { ...process.env, TMPDIR: tempRoot },
    stdin: readsStdin,
  });
  if (readsStdin && worker.stdin) process.stdin.pipe(worker.stdin);
  let exitCode: number | undefined;
  worker.on('message', (message: WorkerMessage) => (exitCode = message.exitCode));
  const stop = () => {
    worker.postMessage({ stop: String(shutdownSignal.reason ?? 'signal') } satisfies MainMessage);
    setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
  };
  shutdownSignal.addEventListener('abort', stop, { once: true });
  // At exit (signals.ts: a second after the signal at the latest) the worker is not waited for:
  // inside one long native call (JSON.stringify of a large report) it cannot stop before it
  // returns, and the process exit ends it anyway.
  const unregister = onShutdown(() => {
    void worker.terminate();
    removeTemp();
  });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => {
      shutdownSignal.removeEventListener('abort', stop);
      unregister();
      removeTemp();
      if (readsStdin) process.stdin.unpipe();
      resolve(exitCode ?? code);
    });
  });
}
