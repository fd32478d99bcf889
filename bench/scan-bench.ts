/**
 * `npm run bench:scan`: how long `nicdoctor scan` takes on a host with many interfaces, against
 * a plain serial shell script that gathers the same facts. Both run in ONE lab network namespace
 * with 32 veth pairs (64 interfaces), through `ip netns exec`, alternating order.
 *
 * The serial script is generated from a recording of what a scan really reads (bench/record-scan.ts),
 * so it follows the collectors as they change. Exits non-zero only when something fails, not when
 * the ratio misses its target: the figure is the result.
 *
 *   npm run bench:scan [-- --runs 9]     (or BENCH_RUNS=9)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { CLI, parseReport, toolPath } from './lab/cli.js';
import { cleanupStale, createLab, findTool, labAvailable, type Lab } from './lab/lab.js';
import { buildSerialGather } from './serial-gather.js';

const PAIRS = 32;
const TARGET_RATIO = 0.5;
const RUN_TIMEOUT_MS = 120_000;
const RECORDER = path.join(import.meta.dirname, 'record-scan.js');

function runsWanted(): number {
  const flag = process.argv.indexOf('--runs');
  const text = flag >= 0 ? process.argv[flag + 1] : process.env.BENCH_RUNS;
  if (text === undefined) return 7;
  const runs = Number(text);
  if (!Number.isInteger(runs) || runs < 1 || runs > 100) {
    process.stderr.write(`bench:scan: --runs must be an integer 1..100, got "${text}"\n`);
    process.exit(2);
  }
  return runs;
}

interface Timed {
  ms: number;
}

async function timed(lab: Lab, argv: string[], what: string): Promise<Timed> {
  const started = performance.now();
  const result = await execa(findTool('ip') ?? 'ip', ['netns', 'exec', lab.ns.a, ...argv], {
    reject: false,
    timeout: RUN_TIMEOUT_MS,
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
    extendEnv: false,
    env: { PATH: toolPath(), LANG: 'C', NO_COLOR: '1' },
  });
  const ms = performance.now() - started;
  // 1 = findings at or above --fail-on: a normal outcome of a scan.
  const acceptable = what === 'nicdoctor' ? [0, 1] : [0];
  if (result.timedOut || !acceptable.includes(result.exitCode ?? -1)) {
    throw new Error(
      `${what}: \`${argv.join(' ')}\` ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`}: ${String(result.stderr).trim().slice(-500)}`,
    );
  }
  return { ms };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');
}

async function main(): Promise<number> {
  const runs = runsWanted();
  if ((process.getuid?.() ?? -1) !== 0) {
    process.stderr.write('bench:scan must run as root: it creates a network namespace with 32 veth pairs (sudo npm run bench:scan)\n');
    return 2;
  }
  const reason = labAvailable(['ip', 'ethtool']);
  if (reason) {
    process.stderr.write(`bench:scan cannot run: ${reason}\n`);
    return 2;
  }

  const work = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-bench-'));
  let lab: Lab | undefined;
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`\nbench:scan: ${signal}, cleaning up\n`);
    // Kill what runs in the namespace first: a recorder still writing would race the removal.
    lab?.destroySync();
    try {
      rmSync(work, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`bench:scan: could not remove ${work}: ${(error as Error).message}\n`);
    }
    // A lab still being created is removed by the lab's own exit hook.
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const stale = cleanupStale();
    if (stale.length) process.stderr.write(`removed namespaces left by earlier runs: ${stale.join(', ')}\n`);
    lab = await createLab({ pairs: PAIRS, namespaces: 1 });

    // What one scan reads, recorded inside the namespace, becomes the serial script.
    const snapshot = path.join(work, 'snapshot');
    await timed(lab, [process.execPath, RECORDER, snapshot], 'record-scan');
    const serial = await buildSerialGather(snapshot);
    const scriptPath = path.join(work, 'serial-gather.sh');
    await writeFile(scriptPath, serial.script, { mode: 0o755 });

    const scanArgv = [process.execPath, CLI, 'scan', '--format', 'json'];
    const serialArgv = [findTool('bash') ?? '/bin/bash', scriptPath];

    // Warm-up (not counted): page cache for node_modules, and a check that the scan sees all 64.
    const check = await execa(findTool('ip') ?? 'ip', ['netns', 'exec', lab.ns.a, ...scanArgv], {
      reject: false,
      timeout: RUN_TIMEOUT_MS,
      extendEnv: false,
      env: { PATH: toolPath(), LANG: 'C' },
    });
    if (check.exitCode !== 0 && check.exitCode !== 1)
      throw new Error(`nicdoctor scan exited ${check.exitCode}: ${String(check.stderr).trim()}`);
    const report = parseReport(String(check.stdout));
    if (report.interfaces.length !== PAIRS * 2)
      throw new Error(`the scan saw ${report.interfaces.length} interfaces, expected ${PAIRS * 2}`);
    await timed(lab, serialArgv, 'serial');

    const times = { nicdoctor: [] as number[], serial: [] as number[] };
    for (let run = 0; run < runs; run++) {
      // Alternate who goes first, so neither side always runs on a warmer machine.
      const order = run % 2 === 0 ? (['nicdoctor', 'serial'] as const) : (['serial', 'nicdoctor'] as const);
      for (const side of order) times[side].push((await timed(lab, side === 'nicdoctor' ? scanArgv : serialArgv, side)).ms);
    }

    // How much of the scan is fixed cost: node start and module imports, no host access.
    const startup: number[] = [];
    for (let run = 0; run < 3; run++) startup.push((await timed(lab, [process.execPath, CLI, '--version'], 'nicdoctor')).ms);

    const widths = [10, 9, 9, 9];
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    const lines = [
      `scan bench: ${report.interfaces.length} interfaces (${PAIRS} veth pairs) in one network namespace, ${report.checks.length} checks, ${runs} runs each, alternating order, 1 warm-up each`,
      `serial script: ${serial.commands} commands, ${serial.files} files (cat), ${serial.directories} directories (ls), ${serial.links} links (readlink), one after another`,
      '',
      row(['', 'median', 'min', 'max'], widths),
      ...(['nicdoctor', 'serial'] as const).map((side) =>
        row([side, ms(median(times[side])), ms(Math.min(...times[side])), ms(Math.max(...times[side]))], widths),
      ),
      '',
      `nicdoctor start-up alone (\`nicdoctor --version\`, median of 3): ${ms(median(startup))}`,
      `ratio (median nicdoctor / median serial): ${(median(times.nicdoctor) / median(times.serial)).toFixed(2)}  target ≤ ${TARGET_RATIO.toFixed(2)}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  } finally {
    await lab?.destroy();
    rmSync(work, { recursive: true, force: true });
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:scan failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
