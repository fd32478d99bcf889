#!/usr/bin/env -S -u NODE_OPTIONS -u NODE_PATH -u NODE_V8_COVERAGE -u NODE_REDIRECT_WARNINGS -u OPENSSL_CONF node
// The line above: env removes the Node.js hooks that act before any code runs (a `--require` in
// NODE_OPTIONS would run as root); it stays under the 128 bytes older kernels read. Node's other
// hooks leave the environment first of all, so no child inherits them (src/util/node-env.ts).
import { dropNodeHooks } from './util/node-env.js';
// Then: signals are handled from the start (src/cli/signals.ts).
import { SIGNAL_EXIT, interruptedBy } from './cli/signals.js';
import { EXIT } from './cli/exit-codes.js';
import { runCleanups } from './util/shutdown.js';
import { reportExit, runInWorker, runsInWorker, workerInput } from './cli/analysis-thread.js';

dropNodeHooks();

/** The commands (src/cli/program.ts) load only where they run: in the worker for `analyze`. */
async function main(argv: string[]): Promise<number> {
  return (await import('./cli/program.js')).main(argv);
}

async function reportError(error: unknown): Promise<number> {
  return (await import('./cli/errors.js')).reportError(error, false);
}

/**
 * `nicdoctor --version` (or -V) and nothing else answers before the commands load: printing the
 * version needs none of them, and loading them all made it several times slower than Node's
 * own start-up. The text is the same as commander's.
 */
const asksOnlyVersion = (argv: readonly string[]) => argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V');

async function printVersion(): Promise<number> {
  const { VERSION } = await import('./util/version.js');
  process.stdout.write(`${VERSION}\n`);
  return EXIT.ok;
}

// A reader that stops early (`nicdoctor checks | head`) is not an error: stop quietly, cleanups first.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  void runCleanups().finally(() => process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok));
});

/**
 * `analyze` runs in a worker thread (src/cli/analysis-thread.ts) so that this thread stays free
 * to handle Ctrl-C and SIGTERM during a long synchronous analysis; the other commands run here.
 */
const inWorker = workerInput();
const run = inWorker
  ? main(inWorker.argv)
  : asksOnlyVersion(process.argv)
    ? printVersion()
    : runsInWorker(process.argv, new URL(import.meta.url))
      ? runInWorker(new URL(import.meta.url), process.argv)
      : main(process.argv);

run.then(
  async (code) => {
    await runCleanups();
    if (inWorker) return reportExit(code);
    const interrupted = interruptedBy();
    process.exitCode = interrupted ? SIGNAL_EXIT[interrupted] : code;
  },
  async (error: unknown) => {
    const code = await reportError(error);
    if (inWorker) reportExit(code);
    else process.exitCode = code;
  },
);
