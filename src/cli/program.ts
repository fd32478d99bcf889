/**
 * The command line: every command and option (commander), and the one error → exit-code path.
 * Loaded by cli.ts, on the main thread or in the analysis worker (analysis-thread.ts), so that
 * the main thread of a delegated `analyze` does not load all of it too.
 */
import { Command, Option } from 'commander';
import { EXIT, FAIL_ON } from './exit-codes.js';
import { reportError, UsageError } from './errors.js';
import { analyzeCommand, checksCommand, collectCommand, scanCommand, type ReportOptions } from './commands.js';
import {
  collectList,
  host,
  ifaceOption,
  interfaceName,
  LOG_LEVELS,
  linkSpeedOption,
  port,
  portList,
  rate,
  seconds,
  wholeNumber,
} from './options.js';
// The bench code (and execa) loads only for the commands that use it: start-up time matters for scan.
import type { BenchCliOptions, ServeCliOptions } from './bench-commands.js';
import { PROFILES } from '../report/schema.js';
import { FORMATS } from '../reporters/index.js';
import { setToolPath } from '../hostio/tool-path.js';
import { createLogger } from '../util/log.js';
import { VERSION } from '../util/version.js';

function reportOptions(command: Command): Command {
  return command
    .addOption(ifaceOption('interface to examine (repeatable, or comma-separated); default: all but loopback and down ones'))
    .option('--all', 'also examine interfaces that are down (software devices and ports set down are skipped otherwise)')
    .addOption(new Option('-f, --format <format>', 'report format').choices(FORMATS).default('terminal'))
    .option('--short', 'terminal report: the verdict and the diagnoses only (--verbose: every check)')
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('--only <ids>', 'run only these checks (comma-separated)', collectList)
    .option('--skip <ids>', 'skip these checks (comma-separated)', collectList)
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity').choices(FAIL_ON).default('critical'),
    )
    .addOption(
      new Option('--profile <profile>', 'what the host is for; verdicts that depend on it follow it')
        .choices(PROFILES)
        .default('throughput'),
    )
    .option('--policy <file.yaml>', 'judge the host against a pre-deployment checklist (policies/*.yaml); the exit code follows it');
}

function bundleOptions(command: Command): Command {
  return command
    .option('--bundle <file.tar.gz>', 'also write an evidence bundle: the report and every raw output read, with a manifest')
    .option('--redact', 'with --bundle: replace host names, IP and MAC addresses and serial numbers by consistent tokens');
}

function benchOptions(command: Command, peerRequired: boolean): Command {
  return bundleOptions(command)
    .addOption(
      new Option(
        '--peer <host>',
        peerRequired ? 'far end running `nicdoctor serve`' : 'also run the bench against this far end (`nicdoctor serve` there)',
      ).argParser(host),
    )
    .option('--loopback', "bench against iperf3 servers on 127.0.0.1: this host's memory-to-memory ceiling")
    .addOption(
      new Option('--ports <ports>', 'iperf3 server ports, one per process').argParser(portList).default(DEFAULT_PORTS, '5101-5108'),
    )
    .addOption(new Option('--control-port <port>', "port of the peer's nicdoctor serve info endpoint").argParser(port).default(5100))
    .addOption(
      new Option('--duration <seconds>', 'length of the measurement run at the best step (1-3600)').argParser(seconds(1, 3600)).default(10),
    )
    .addOption(new Option('--step-duration <seconds>', 'length of each ramp step (1-600)').argParser(seconds(1, 600)).default(3))
    .addOption(
      new Option('--omit <seconds>', 'seconds of slow start to leave out of each run (iperf3 -O; 0-600)')
        .argParser(seconds(0, 600))
        .default(1),
    )
    .addOption(new Option('--max-procs <n>', 'at most this many iperf3 processes (1-256)').argParser(wholeNumber(1, 256)))
    .option('--reverse', 'the peer sends (iperf3 -R)')
    .option('--bidir', 'both directions at once (iperf3 --bidir)')
    .option('--udp', 'UDP at --rate instead of TCP')
    .addOption(new Option('--rate <rate>', 'UDP target rate per process, e.g. 5G').argParser(rate))
    .addOption(linkSpeedOption('link speed for the goodput ceiling when the interface does not report it (10000, 25g)'));
}

const INPUT_HELP =
  'snapshot directory (nicdoctor collect), evidence bundle or collect-script archive (.tar.gz), extracted sosreport, or a text file / - (stdin) of pasted command outputs';

const DEFAULT_PORTS = [5101, 5102, 5103, 5104, 5105, 5106, 5107, 5108];

export async function main(argv: string[]): Promise<number> {
  const program = new Command('nicdoctor')
    .description('Find why a 10/40/100GbE server does not reach line rate')
    .version(VERSION)
    .option(
      '-v, --verbose',
      'every command: log progress to stderr, show more where there is more (the long report, stack traces of broken checks)',
    )
    .addOption(new Option('--log-level <level>', 'log level on stderr').choices(LOG_LEVELS).env('NICDOCTOR_LOG_LEVEL'))
    .option(
      '--tool-path <dirs>',
      'run tools (ethtool, iperf3, ...) from these absolute directories (colon-separated) before /usr/sbin:/usr/bin:/sbin:/bin; PATH is never used',
    )
    // Checked before any command runs: a directory another user can change is refused (exit 2).
    .hook('preAction', async (command) => {
      const toolPath = command.opts<{ toolPath?: string }>().toolPath;
      if (toolPath !== undefined) await setToolPath(toolPath);
    })
    .exitOverride()
    // Commander's own errors read like the others: "nicdoctor: option '--duration <seconds>' argument 'x' is invalid. ..."
    .configureOutput({
      writeErr: (text) => process.stderr.write(text),
      outputError: (text, write) => write(text.replace(/^error: /, 'nicdoctor: ')),
    })
    .showSuggestionAfterError();

  let exitCode: number = EXIT.ok;
  const logger = () => {
    const globals = program.opts<{ verbose?: boolean; logLevel?: string }>();
    return createLogger(globals.logLevel ?? (globals.verbose ? 'info' : undefined));
  };
  const verbose = () => Boolean(program.opts<{ verbose?: boolean }>().verbose);

  benchOptions(
    reportOptions(
      program.command('scan').description("inspect this host's NICs and print a report; with --peer or --loopback also run the bench"),
    ),
    false,
  ).action(async (options: ReportOptions & BenchCliOptions) => {
    const withVerbose = { ...options, verbose: verbose() };
    exitCode =
      options.peer || options.loopback
        ? await (await import('./bench-commands.js')).benchReportCommand(withVerbose, logger(), 'scan')
        : await scanCommand(withVerbose, logger());
  });
  benchOptions(
    reportOptions(
      program.command('bench').description('calibrated multi-process iperf3 test: ramp processes until throughput stops rising'),
    ),
    true,
  ).action(async (options: ReportOptions & BenchCliOptions) => {
    exitCode = await (await import('./bench-commands.js')).benchReportCommand({ ...options, verbose: verbose() }, logger(), 'bench');
  });
  program
    .command('serve')
    .description('far end of the bench: one iperf3 server per port, pinned to NIC-local cores, and a read-only info endpoint')
    .addOption(new Option('--bind <addr>', 'address to listen on (0.0.0.0 for all); required unless --iface').argParser(host))
    .addOption(new Option('--iface <name>', 'listen on the address of this interface (the one under test)').argParser(interfaceName))
    .addOption(new Option('--ports <ports>', 'iperf3 server ports').argParser(portList).default(DEFAULT_PORTS, '5101-5108'))
    .addOption(new Option('--control-port <port>', 'port of the read-only info endpoint').argParser(port).default(5100))
    .addOption(
      new Option(
        '--idle-timeout <seconds>',
        'stop after this long with no test running and no bench client (up to 7 days; before the first client, at least 60 s)',
      ).argParser(seconds(1, 7 * 24 * 3600)),
    )
    .addOption(
      new Option('--max-test-duration <seconds>', 'end any test that runs longer than this (up to a day)')
        .argParser(seconds(1, 24 * 3600))
        .default(3600),
    )
    .option('--rsa-private-key <file>', 'iperf3 authentication: RSA private key (PEM), with --authorized-users')
    .option('--authorized-users <file>', 'iperf3 authentication: user,sha256 lines (iperf3 --authorized-users-path)')
    .option('--token-file <file>', 'the info endpoint requires this token (first line of the file); bench sends NICDOCTOR_SERVE_TOKEN')
    .action(async (options: ServeCliOptions) => {
      exitCode = await (await import('./bench-commands.js')).serveCommand(options, logger());
    });
  reportOptions(
    program
      .command('analyze')
      .argument('<input>', INPUT_HELP)
      .description('run the checks on a recorded snapshot, a bundle, a sosreport or pasted text, offline'),
  )
    .addOption(linkSpeedOption('the speed to judge interfaces by when they (or the text) show no negotiated speed (10G, 40G, 25000)'))
    .action(async (dir: string, options: ReportOptions) => {
      const text = await import('./analyze-text.js');
      if (await text.isTextInput(dir)) exitCode = await text.analyzeTextCommand(dir, { ...options, verbose: verbose() }, logger());
      else exitCode = await analyzeCommand(dir, { ...options, verbose: verbose() }, logger());
    });
  program
    .command('collect')
    .description(
      'record everything the checks read into a snapshot directory; --script prints a POSIX sh script that does the same on hosts where nothing may be installed',
    )
    .option('-o, --output <dir>', 'new (or empty) directory for the snapshot')
    .addOption(ifaceOption('interface to record (repeatable, or comma-separated); default: all'))
    .option('--script', 'print the collection script (sh collect.sh [OUTPUT.tar.gz]) instead of collecting')
    .option('--os <os>', 'with --script: the host the script is for, linux (default) or freebsd (TrueNAS CORE, OPNsense, pfSense, OneFS)')
    .action(async (options: { output?: string; iface?: string[]; script?: boolean; os?: string }) => {
      if (options.os !== undefined && !options.script) throw new UsageError('--os: only with --script (collect records this host)');
      if (options.os !== undefined && !['linux', 'freebsd'].includes(options.os))
        throw new UsageError(`--os: linux or freebsd, not ${JSON.stringify(options.os)}`);
      if (options.script) {
        if (options.output || options.iface)
          throw new UsageError(
            '--script: prints the script to stdout; it takes no --output or --iface (the script takes its output file as argument)',
          );
        process.stdout.write(
          options.os === 'freebsd'
            ? (await import('../collect-script/generate-freebsd.js')).collectScriptFreebsd()
            : (await import('../collect-script/generate.js')).collectScript(),
        );
        return;
      }
      if (!options.output) throw new UsageError('--output: required (or --script)');
      exitCode = await collectCommand({ ...options, output: options.output, verbose: verbose() }, logger());
    });
  program
    .command('rules')
    .description('list the diagnosis rules (rules/*.yaml)')
    .addOption(new Option('-f, --format <format>', 'list format').choices(['terminal', 'json']).default('terminal'))
    .action(async (options: { format: 'terminal' | 'json' }) => {
      exitCode = await (await import('./rules-command.js')).rulesCommand(options.format, verbose());
    });
  program
    .command('explain')
    .description('print the reference page of a check, rule, symptom, cause or known issue (as in docs/)')
    .argument('<name...>', 'a check (rx-rings), a symptom (rx-rings/rx-ring-below-max), a rule, a known issue, or "cause 7"')
    .addOption(new Option('-f, --format <format>', 'page format').choices(['terminal', 'markdown']).default('terminal'))
    .action(async (words: string[], options: { format: 'terminal' | 'markdown' }) => {
      exitCode = (await import('./explain-command.js')).explainCommand(words, options.format);
    });
  program
    .command('fix')
    .description('print the fixes of the current diagnoses as a shell script (changes nothing); --apply / --revert change this host')
    .argument('[input]', `diagnose this instead of the host, as analyze does: ${INPUT_HELP}`)
    .addOption(ifaceOption('interface to examine (repeatable, or comma-separated); default: all but loopback'))
    .option('--only <ids>', 'run only these checks (comma-separated)', collectList)
    .option('--skip <ids>', 'skip these checks (comma-separated)', collectList)
    .addOption(
      new Option('--profile <profile>', 'what the host is for; verdicts that depend on it follow it')
        .choices(PROFILES)
        .default('throughput'),
    )
    .option('--all', 'also examine interfaces that are down')
    .addOption(linkSpeedOption('the speed to judge interfaces by when they report no negotiated speed (10000, 25g)'))
    .option('--from <input>', 'the same as the input argument')
    .option('-o, --output <file>', 'write the script to a file instead of stdout')
    .option('--apply', 'apply the non-disruptive ethtool/sysctl changes now, after saving the current values')
    .option('--revert', 'restore the values saved by --apply')
    .option('--forget', 'drop saved changes whose interfaces are gone (or saved on another host), after showing them; changes nothing')
    .option('-y, --yes', 'confirm --apply, --revert or --forget without asking (needed without a terminal)')
    .option('--state <file>', 'where --apply saves the previous values (default /var/lib/nicdoctor/fix-state.json)')
    .option('--verify', 'with --apply: bench before and after each fix, keep only what measured better than the noise')
    .addOption(new Option('--peer <host>', 'with --verify: bench against this far end (`nicdoctor serve` there)').argParser(host))
    .option('--loopback', 'with --verify: bench against iperf3 servers on 127.0.0.1 (measures sysctl changes only)')
    .option('--keep-all', 'with --verify: keep every fix whatever it measured (default: only those that measured better)')
    .option('--allow-disruptive', 'with --verify: also apply disruptive fixes (link resets), each announced first')
    .addOption(
      new Option('--runs <n>', 'with --verify: bench runs per measurement at least (2-20; up to twice as many while the spread settles)')
        .argParser(wholeNumber(2, 20))
        .default(3),
    )
    .addOption(new Option('--ports <ports>', 'with --verify: iperf3 server ports').argParser(portList).default(DEFAULT_PORTS, '5101-5108'))
    .addOption(
      new Option('--control-port <port>', "with --verify: port of the peer's nicdoctor serve info endpoint").argParser(port).default(5100),
    )
    .addOption(
      new Option('--duration <seconds>', 'with --verify: length of each bench run (1-3600)').argParser(seconds(1, 3600)).default(5),
    )
    .addOption(
      new Option('--step-duration <seconds>', 'with --verify: length of each calibration ramp step (1-600)')
        .argParser(seconds(1, 600))
        .default(2),
    )
    .addOption(
      new Option('--omit <seconds>', 'with --verify: seconds of slow start left out of each run (0-600)')
        .argParser(seconds(0, 600))
        .default(1),
    )
    .addOption(new Option('--max-procs <n>', 'with --verify: at most this many iperf3 processes (1-256)').argParser(wholeNumber(1, 256)))
    .addOption(new Option('-f, --format <format>', 'with --verify: format of the report with the verification').choices(FORMATS))
    .action(async (input: string | undefined, options: import('./fix-command.js').FixOptions) => {
      if (input !== undefined && options.from !== undefined)
        throw new UsageError(`give the input once: ${input} or --from ${options.from}`);
      const from = input ?? options.from;
      exitCode = await (
        await import('./fix-command.js')
      ).fixCommand({ ...options, ...(from !== undefined ? { from } : {}), verbose: verbose() }, logger());
    });
  program
    .command('fleet')
    .description(
      'one table for many hosts: policy verdict, top diagnosis, bench Gb/s, and the hosts whose settings differ from the majority',
    )
    .argument(
      '<input...>',
      'JSON reports, evidence bundles (.tar.gz), snapshots, or directories holding them; files named <host>.* are one host',
    )
    .addOption(
      new Option('-f, --format <format>', 'output format').choices(['terminal', 'markdown', 'html', 'json', 'junit']).default('terminal'),
    )
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .addOption(
      new Option('--fail-on <severity>', 'a host without a policy fails on a finding at or above this severity')
        .choices(FAIL_ON)
        .default('critical'),
    )
    .action(async (inputs: string[], options: import('./fleet-command.js').FleetOptions) => {
      exitCode = await (await import('./fleet-command.js')).fleetCommand(inputs, options);
    });
  program
    .command('diff')
    .description(
      'compare two hosts (reports, snapshots or bundles): the facts that differ, by check, marked ! where a check or a rule reacts',
    )
    .argument('<a>', 'report (.json), evidence bundle (.tar.gz) or snapshot directory')
    .argument('<b>', 'the same for the other host')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['terminal', 'markdown', 'json']).default('terminal'))
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .action(async (a: string, b: string, options: import('./diff-command.js').DiffOptions) => {
      exitCode = await (await import('./diff-command.js')).diffCommand(a, b, options);
    });
  program
    .command('checks')
    .description('list the checks')
    .addOption(new Option('-f, --format <format>', 'list format').choices(['terminal', 'json']).default('terminal'))
    .action((options: { format: 'terminal' | 'json' }) => {
      exitCode = checksCommand(options.format, verbose());
    });

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // Every command's failure, and commander's, is mapped to its exit code in one place.
    return reportError(error, verbose());
  }
}
