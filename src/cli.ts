#!/usr/bin/env node
// First: signals are handled from the start (src/cli/signals.ts).
import { SIGNAL_EXIT, interruptedBy } from './cli/signals.js';
import { Command, CommanderError, Option } from 'commander';
import { EXIT, FAIL_ON } from './cli/exit-codes.js';
import { analyzeCommand, checksCommand, collectCommand, scanCommand, type ReportOptions } from './cli/commands.js';
// The bench code (and execa) loads only for the commands that use it: start-up time matters for scan.
import type { BenchCliOptions, ServeCliOptions } from './cli/bench-commands.js';
import { RunError, UsageError } from './util/errors.js';
import { PROFILES } from './report/schema.js';
import { FORMATS } from './reporters/index.js';
import { createLogger } from './util/log.js';
import { runCleanups } from './util/shutdown.js';
import { VERSION } from './util/version.js';

const collectList = (value: string, previous: string[] = []) => [...previous, value];

function reportOptions(command: Command): Command {
  return command
    .option('-i, --iface <name>', 'interface to examine (repeatable, or comma-separated); default: all but loopback and down ones', collectList)
    .option('--all', 'also examine interfaces that are down (software devices and ports set down are skipped otherwise)')
    .addOption(new Option('-f, --format <format>', 'report format').choices(FORMATS).default('terminal'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('--only <ids>', 'run only these checks (comma-separated)', collectList)
    .option('--skip <ids>', 'skip these checks (comma-separated)', collectList)
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity').choices(FAIL_ON).default('critical'))
    .addOption(new Option('--profile <profile>', 'what the host is for; verdicts that depend on it follow it').choices(PROFILES).default('throughput'))
    .option('--policy <file.yaml>', 'judge the host against a pre-deployment checklist (policies/*.yaml); the exit code follows it');
}

function bundleOptions(command: Command): Command {
  return command
    .option('--bundle <file.tar.gz>', 'also write an evidence bundle: the report and every raw output read, with a manifest')
    .option('--redact', 'with --bundle: replace host names, IP and MAC addresses and serial numbers by consistent tokens');
}

function benchOptions(command: Command, peerRequired: boolean): Command {
  return bundleOptions(command)
    .option('--peer <host>', peerRequired ? 'far end running `nicdoctor serve`' : 'also run the bench against this far end (`nicdoctor serve` there)')
    .option('--loopback', 'bench against iperf3 servers on 127.0.0.1: this host\'s memory-to-memory ceiling')
    .option('--ports <ports>', 'iperf3 server ports, one per process', '5101-5108')
    .option('--control-port <port>', 'port of the peer\'s nicdoctor serve info endpoint', '5100')
    .option('--duration <seconds>', 'length of the measurement run at the best step', '10')
    .option('--step-duration <seconds>', 'length of each ramp step', '3')
    .option('--omit <seconds>', 'seconds of slow start to leave out of each run (iperf3 -O)', '1')
    .option('--max-procs <n>', 'at most this many iperf3 processes')
    .option('--reverse', 'the peer sends (iperf3 -R)')
    .option('--bidir', 'both directions at once (iperf3 --bidir)')
    .option('--udp', 'UDP at --rate instead of TCP')
    .option('--rate <rate>', 'UDP target rate per process, e.g. 5G')
    .option('--link-speed <speed>', 'link speed for the goodput ceiling when the interface does not report it (10000, 25g)');
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('nicdoctor')
    .description('Find why a 10/40/100GbE server does not reach line rate')
    .version(VERSION)
    .option('-v, --verbose', 'log progress to stderr and show stack traces of broken checks')
    .addOption(new Option('--log-level <level>', 'log level on stderr').choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']))
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showSuggestionAfterError();

  let exitCode: number = EXIT.ok;
  const logger = () => {
    const globals = program.opts<{ verbose?: boolean; logLevel?: string }>();
    return createLogger(globals.logLevel ?? (globals.verbose ? 'info' : undefined));
  };
  const verbose = () => Boolean(program.opts<{ verbose?: boolean }>().verbose);

  benchOptions(reportOptions(program.command('scan').description('inspect this host\'s NICs and print a report; with --peer or --loopback also run the bench')), false).action(
    async (options: ReportOptions & BenchCliOptions) => {
      const withVerbose = { ...options, verbose: verbose() };
      exitCode = options.peer || options.loopback ? await (await import('./cli/bench-commands.js')).benchReportCommand(withVerbose, logger(), 'scan') : await scanCommand(withVerbose, logger());
    },
  );
  benchOptions(reportOptions(program.command('bench').description('calibrated multi-process iperf3 test: ramp processes until throughput stops rising')), true).action(
    async (options: ReportOptions & BenchCliOptions) => {
      exitCode = await (await import('./cli/bench-commands.js')).benchReportCommand({ ...options, verbose: verbose() }, logger(), 'bench');
    },
  );
  program
    .command('serve')
    .description('far end of the bench: one iperf3 server per port, pinned to NIC-local cores, and a read-only info endpoint')
    .option('--bind <addr>', 'address to listen on (0.0.0.0 for all); required unless --iface')
    .option('--iface <name>', 'listen on the address of this interface (the one under test)')
    .option('--ports <ports>', 'iperf3 server ports', '5101-5108')
    .option('--control-port <port>', 'port of the read-only info endpoint', '5100')
    .option('--idle-timeout <seconds>', 'stop after this long with no test running and no bench client')
    .option('--max-test-duration <seconds>', 'end any test that runs longer than this', '3600')
    .option('--rsa-private-key <file>', 'iperf3 authentication: RSA private key (PEM), with --authorized-users')
    .option('--authorized-users <file>', 'iperf3 authentication: user,sha256 lines (iperf3 --authorized-users-path)')
    .option('--token-file <file>', 'the info endpoint requires this token (first line of the file); bench sends NICDOCTOR_SERVE_TOKEN')
    .action(async (options: ServeCliOptions) => {
      exitCode = await (await import('./cli/bench-commands.js')).serveCommand(options, logger());
    });
  reportOptions(program.command('analyze').argument('<input>', 'snapshot directory (nicdoctor collect), evidence bundle or collect-script archive (.tar.gz), extracted sosreport, or a text file / - (stdin) of pasted command outputs').description('run the checks on a recorded snapshot, a bundle, a sosreport or pasted text, offline'))
    .option('--link-speed <speed>', 'text input: the link speed when the text does not show it (10G, 40G, 25000)')
    .action(
    async (dir: string, options: ReportOptions & { linkSpeed?: string }) => {
      const text = await import('./cli/analyze-text.js');
      if (await text.isTextInput(dir)) exitCode = await text.analyzeTextCommand(dir, { ...options, verbose: verbose() }, logger());
      else exitCode = await analyzeCommand(dir, { ...options, verbose: verbose() }, logger());
    },
  );
  program
    .command('collect')
    .description('record everything the checks read into a snapshot directory; --script prints a POSIX sh script that does the same on hosts where nothing may be installed')
    .option('-o, --output <dir>', 'new (or empty) directory for the snapshot')
    .option('-i, --iface <name>', 'interface to record (repeatable); default: all', collectList)
    .option('--script', 'print the collection script (sh collect.sh [OUTPUT.tar.gz]) instead of collecting')
    .action(async (options: { output?: string; iface?: string[]; script?: boolean }) => {
      if (options.script) {
        if (options.output || options.iface) throw new UsageError('--script: prints the script to stdout; it takes no --output or --iface (the script takes its output file as argument)');
        process.stdout.write((await import('./collect-script/generate.js')).collectScript());
        return;
      }
      if (!options.output) throw new UsageError("--output: required (or --script)");
      exitCode = await collectCommand({ ...options, output: options.output }, logger());
    });
  program
    .command('rules')
    .description('list the diagnosis rules (rules/*.yaml)')
    .addOption(new Option('-f, --format <format>', 'list format').choices(['terminal', 'json']).default('terminal'))
    .action(async (options: { format: 'terminal' | 'json' }) => {
      exitCode = await (await import('./cli/rules-command.js')).rulesCommand(options.format);
    });
  program
    .command('fix')
    .description('print the fixes of the current diagnoses as a shell script (changes nothing); --apply / --revert change this host')
    .option('-i, --iface <name>', 'interface to examine (repeatable, or comma-separated); default: all but loopback', collectList)
    .option('--only <ids>', 'run only these checks (comma-separated)', collectList)
    .option('--skip <ids>', 'skip these checks (comma-separated)', collectList)
    .addOption(new Option('--profile <profile>', 'what the host is for; verdicts that depend on it follow it').choices(PROFILES).default('throughput'))
    .option('--all', 'also examine interfaces that are down')
    .option('--link-speed <speed>', 'the speed to judge interfaces by when they report no negotiated speed (10000, 25g)')
    .option('--from <input>', 'diagnose a snapshot directory, evidence bundle or sosreport instead of this host')
    .option('-o, --output <file>', 'write the script to a file instead of stdout')
    .option('--apply', 'apply the non-disruptive ethtool/sysctl changes now, after saving the current values')
    .option('--revert', 'restore the values saved by --apply')
    .option('-y, --yes', 'confirm --apply or --revert without asking (needed without a terminal)')
    .option('--state <file>', 'where --apply saves the previous values (default /var/lib/nicdoctor/fix-state.json)')
    .action(async (options: import('./cli/fix-command.js').FixOptions) => {
      exitCode = await (await import('./cli/fix-command.js')).fixCommand({ ...options, verbose: verbose() }, logger());
    });
  program
    .command('fleet')
    .description('one table for many hosts: policy verdict, top diagnosis, bench Gb/s, and the hosts whose settings differ from the majority')
    .argument('<input...>', 'JSON reports, evidence bundles (.tar.gz), snapshots, or directories holding them; files named <host>.* are one host')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['terminal', 'markdown', 'html', 'json', 'junit']).default('terminal'))
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .addOption(new Option('--fail-on <severity>', 'a host without a policy fails on a finding at or above this severity').choices(FAIL_ON).default('critical'))
    .action(async (inputs: string[], options: import('./cli/fleet-command.js').FleetOptions) => {
      exitCode = await (await import('./cli/fleet-command.js')).fleetCommand(inputs, options);
    });
  program
    .command('diff')
    .description('compare two hosts (reports, snapshots or bundles): the facts that differ, by check, marked ! where a check or a rule reacts')
    .argument('<a>', 'report (.json), evidence bundle (.tar.gz) or snapshot directory')
    .argument('<b>', 'the same for the other host')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['terminal', 'markdown', 'json']).default('terminal'))
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action(async (a: string, b: string, options: import('./cli/diff-command.js').DiffOptions) => {
      exitCode = await (await import('./cli/diff-command.js')).diffCommand(a, b, options);
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

main(process.argv).then(
  async (code) => {
    await runCleanups();
    const interrupted = interruptedBy();
    process.exitCode = interrupted ? SIGNAL_EXIT[interrupted] : code;
  },
  (error: unknown) => {
    process.stderr.write(`nicdoctor: ${String(error)}\n`);
    process.exitCode = EXIT.couldNotRun;
  },
);
