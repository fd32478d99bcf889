#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander';
import { EXIT, FAIL_ON } from './cli/exit-codes.js';
import { analyzeCommand, checksCommand, collectCommand, scanCommand, type ReportOptions } from './cli/commands.js';
import { RunError, UsageError } from './engine/errors.js';
import { PROFILES } from './report/schema.js';
import { FORMATS } from './reporters/index.js';
import { createLogger } from './util/log.js';
import { requestShutdown, runCleanups } from './util/shutdown.js';
import { VERSION } from './version.js';

const collectList = (value: string, previous: string[] = []) => [...previous, value];

function reportOptions(command: Command): Command {
  return command
    .option('-i, --iface <name>', 'interface to examine (repeatable, or comma-separated); default: all but loopback', collectList)
    .addOption(new Option('-f, --format <format>', 'report format').choices(FORMATS).default('terminal'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('--only <ids>', 'run only these checks (comma-separated)', collectList)
    .option('--skip <ids>', 'skip these checks (comma-separated)', collectList)
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity').choices(FAIL_ON).default('critical'))
    .addOption(new Option('--profile <profile>', 'what the host is for; verdicts that depend on it follow it').choices(PROFILES).default('throughput'));
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('nicdoctor')
    .description('Find why a 10/40/100GbE server does not reach line rate')
    .version(VERSION)
    .option('-v, --verbose', 'log progress to stderr and show stack traces of broken checks')
    .option('--log-level <level>', 'log level on stderr (trace, debug, info, warn, error, silent)')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showSuggestionAfterError();

  let exitCode: number = EXIT.ok;
  const logger = () => {
    const globals = program.opts<{ verbose?: boolean; logLevel?: string }>();
    return createLogger(globals.logLevel ?? (globals.verbose ? 'info' : undefined));
  };
  const verbose = () => Boolean(program.opts<{ verbose?: boolean }>().verbose);

  reportOptions(program.command('scan').description('inspect this host\'s NICs and print a report')).action(async (options: ReportOptions) => {
    exitCode = await scanCommand({ ...options, verbose: verbose() }, logger());
  });
  reportOptions(program.command('analyze').argument('<dir>', 'snapshot directory written by `nicdoctor collect`').description('run the checks on a recorded snapshot, offline')).action(
    async (dir: string, options: ReportOptions) => {
      exitCode = await analyzeCommand(dir, { ...options, verbose: verbose() }, logger());
    },
  );
  program
    .command('collect')
    .description('record everything the checks read into a snapshot directory')
    .requiredOption('-o, --output <dir>', 'new (or empty) directory for the snapshot')
    .option('-i, --iface <name>', 'interface to record (repeatable); default: all', collectList)
    .action(async (options: { output: string; iface?: string[] }) => {
      exitCode = await collectCommand(options, logger());
    });
  program
    .command('checks')
    .description('list the checks')
    .addOption(new Option('-f, --format <format>', 'list format').choices(['terminal', 'json']).default('terminal'))
    .action((options: { format: 'terminal' | 'json' }) => {
      exitCode = checksCommand(options.format);
    });

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not errors; everything else commander rejects is bad usage.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`nicdoctor: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof RunError) {
      process.stderr.write(`nicdoctor: ${error.message}\n`);
      return EXIT.couldNotRun;
    }
    process.stderr.write(`nicdoctor: could not run: ${error instanceof Error ? (verbose() ? error.stack : error.message) : String(error)}\n`);
    return EXIT.couldNotRun;
  }
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    // Children get the abort through the shared signal; then our own cleanups run.
    requestShutdown(signal);
    void runCleanups().finally(() => process.exit(EXIT.interrupted));
  });
}

main(process.argv).then(
  async (code) => {
    await runCleanups();
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`nicdoctor: ${String(error)}\n`);
    process.exitCode = EXIT.couldNotRun;
  },
);
