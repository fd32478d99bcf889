/**
 * `npm run bench:scan`: `nicdoctor scan` against the hand-written serial script a support
 * engineer would run (benchmarks/serial-collect.sh, with its provenance), on hosts of 64, 256 and
 * 1,024 interfaces. Each host is one network namespace made here (veth pairs,
 * lab/many-links.ts) and removed afterwards. Both commands run inside it through
 * `ip netns exec`, in turn (A B A B, who goes first alternating), after one warm-up each; the
 * figure is the ratio of the medians, with the median of the run-by-run ratios next to it, and
 * the load average, since the machine may be shared. With strace installed, one traced run of
 * each side counts its execve calls (processes started, and failed PATH lookups).
 *
 * Exits non-zero only when something fails, not when a ratio misses its target.
 *
 *   sudo npm run bench:scan [-- --sizes 64,256,1024] [--runs N] [--no-strace]
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { CLI, parseReport, toolPath } from '../lab/cli.js';
import { findTool } from '../lab/lab.js';
import { createManyLinks, removeStaleManyLinks, type ManyLinks } from '../lab/many-links.js';
import { REPO_ROOT } from '../lab/repo-root.js';

const PREFIX = 'ndsb';
const SCRIPT = path.join(REPO_ROOT, 'benchmarks', 'serial-collect.sh');
const TARGETS: Record<number, number> = { 64: 0.5, 1024: 0.35 };
const RUN_TIMEOUT_MS = 600_000;

interface Settings {
  sizes: number[];
  runs: number | undefined;
  strace: boolean;
}

function settings(): Settings {
  const value = (flag: string) => {
    const at = process.argv.indexOf(flag);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const sizes = (value('--sizes') ?? '64,256,1024').split(',').map(Number);
  const runsText = value('--runs') ?? process.env.BENCH_RUNS;
  const runs = runsText === undefined ? undefined : Number(runsText);
  if (sizes.some((size) => !Number.isInteger(size) || size < 4 || size > 4096 || size % 2 !== 0)) {
    throw new Error(`--sizes: even numbers from 4 to 4096, got "${value('--sizes')}"`);
  }
  if (runs !== undefined && (!Number.isInteger(runs) || runs < 1 || runs > 100))
    throw new Error(`--runs must be 1..100, got "${runsText}"`);
  return { sizes, runs, strace: !process.argv.includes('--no-strace') };
}

/** Fewer counted runs on big hosts: the script takes minutes there. */
function runsFor(size: number, asked: number | undefined): number {
  return asked ?? (size <= 64 ? 7 : size <= 256 ? 5 : 3);
}

async function inNamespace(ns: string, argv: string[], accept: readonly number[] | 'any'): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const result = await execa(findTool('ip') ?? 'ip', ['netns', 'exec', ns, ...argv], {
    reject: false,
    timeout: RUN_TIMEOUT_MS,
    stdin: 'ignore',
    stderr: 'pipe',
    extendEnv: false,
    env: { PATH: toolPath(), LANG: 'C', NO_COLOR: '1' },
  });
  const ms = performance.now() - started;
  if (result.timedOut || (accept !== 'any' && !accept.includes(result.exitCode ?? -1))) {
    throw new Error(
      `\`${argv.join(' ')}\` ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`}: ${String(result.stderr).trim().slice(-400)}`,
    );
  }
  return { ms, stdout: String(result.stdout) };
}

/** execve calls of one run, and how many failed, from `strace -f -c -e trace=execve`. */
async function execveCount(ns: string, argv: string[]): Promise<string> {
  const strace = findTool('strace');
  if (!strace) return 'strace not installed';
  const out = path.join(os.tmpdir(), `ndsb-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  try {
    await inNamespace(ns, [strace, '-f', '-c', '-e', 'trace=execve', '-o', out, ...argv], 'any');
    const total = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d*)\s*execve$/m.exec(readFileSync(out, 'utf8'));
    return total ? `${total[1]} execve (${total[2] || 0} failed)` : 'no execve line';
  } finally {
    await execa('rm', ['-f', out], { reject: false });
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function benchOne(size: number, wanted: Settings): Promise<string[]> {
  const host: ManyLinks = createManyLinks(size, PREFIX);
  try {
    const scanArgv = [process.execPath, CLI, 'scan', '--format', 'json'];
    const scriptArgv = [findTool('bash') ?? '/bin/bash', SCRIPT];
    const warm = await inNamespace(host.ns, scanArgv, [0, 1]);
    const seen = parseReport(warm.stdout).interfaces.length;
    if (seen !== size) throw new Error(`the scan saw ${seen} interfaces, expected ${size}`);
    await inNamespace(host.ns, scriptArgv, 'any');
    const runs = runsFor(size, wanted.runs);
    const times = { scan: [] as number[], script: [] as number[] };
    const loadBefore = load();
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? (['scan', 'script'] as const) : (['script', 'scan'] as const);
      for (const side of order) times[side].push((await inNamespace(host.ns, side === 'scan' ? scanArgv : scriptArgv, 'any')).ms);
    }
    const pairwise = times.scan.map((ms, index) => ms / times.script[index]!);
    const ratio = median(times.scan) / median(times.script);
    const target = TARGETS[size];
    const lines = [
      `${size} interfaces (${size / 2} veth pairs), ${runs} runs each, alternating; load average ${loadBefore} → ${load()}`,
      `  nicdoctor scan  median ${seconds(median(times.scan))}  (min ${seconds(Math.min(...times.scan))}, max ${seconds(Math.max(...times.scan))})`,
      `  hand script     median ${seconds(median(times.script))}  (min ${seconds(Math.min(...times.script))}, max ${seconds(Math.max(...times.script))})`,
      `  ratio of medians ${ratio.toFixed(2)}, median of run ratios ${median(pairwise).toFixed(2)}${target ? `  (target ≤ ${target.toFixed(2)})` : ''}`,
    ];
    if (wanted.strace) {
      lines.push(
        `  processes, one traced run: scan ${await execveCount(host.ns, scanArgv)}, script ${await execveCount(host.ns, scriptArgv)}`,
      );
    }
    return lines;
  } finally {
    host.destroy();
  }
}

async function main(): Promise<number> {
  const wanted = settings();
  if ((process.getuid?.() ?? -1) !== 0) {
    process.stderr.write('bench:scan must run as root: it creates network namespaces with many interfaces (sudo npm run bench:scan)\n');
    return 2;
  }
  for (const tool of ['ip', 'ethtool', 'bash']) {
    if (!findTool(tool)) {
      process.stderr.write(`bench:scan needs ${tool}\n`);
      return 2;
    }
  }
  const stale = removeStaleManyLinks(PREFIX);
  if (stale.length) process.stderr.write(`removed namespaces left by earlier runs: ${stale.join(', ')}\n`);
  process.stdout.write(`scan bench: nicdoctor scan vs benchmarks/serial-collect.sh, ${os.availableParallelism()} CPUs\n`);
  for (const size of wanted.sizes) process.stdout.write((await benchOne(size, wanted)).join('\n') + '\n');
  return 0;
}

const stop = (signal: NodeJS.Signals) => {
  process.stderr.write(`\nbench:scan: ${signal}, cleaning up\n`);
  process.exit(130); // the many-links exit hook removes the namespace
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:scan failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
