/**
 * `npm run bench:throughput`: on the CPU-throttled lab (every iperf3 process capped at 0.2 core,
 * LAB.md), measured side by side in one run:
 *   1. one `iperf3 -P 4` process: what a newcomer would run;
 *   2. the hand-written multi-process script the guides show (N servers on ports 5201.., N
 *      clients, results summed), for several N, keeping the best: N chosen knowing the answer;
 *   3. `nicdoctor bench`, which has to find N itself.
 * Prints bits/s, the ratios (targets: nicdoctor >= 3x the single process and >= 0.95x the best
 * script) and nicdoctor's own CPU time against the iperf3 processes' (target < 2 %). Medians
 * over rounds; exits non-zero only on errors.
 *
 *   npm run bench:throughput [-- --rounds 3 --duration 5]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { parseIperf3Json } from '../src/parsers/iperf3-json.js';
import { CLI, parseReport, toolPath } from '../lab/cli.js';
import { cpuQuotaAvailable, createCpuQuota } from '../lab/cpu-quota.js';
import { cleanupStale, createLab, labAvailable, type Lab } from '../lab/lab.js';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1 || value > 600) {
    process.stderr.write(`bench:throughput: --${name} must be a whole number from 1 to 600\n`);
    process.exit(2);
  }
  return value;
}

const ROUNDS = option('rounds', 3);
const DURATION = option('duration', 5);
const SCRIPT_COUNTS = [1, 2, 4, 6, 8];
const QUOTA = 0.2;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const gbps = (bps: number) => `${(bps / 1e9).toFixed(2)} Gb/s`;

async function waitForOutput(child: ResultPromise, text: string, what: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start`)), 15_000);
    const onData = (chunk: Buffer) => {
      if (chunk.toString().includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void child.then(() => reject(new Error(`${what} exited early`)), reject);
  });
}

/** The guides' script: N servers were started on 5201.., N clients in the background, then summed. */
async function handWrittenScript(lab: Lab, env: Record<string, string>, count: number, dir: string): Promise<number> {
  const script = `for i in $(seq 1 ${count}); do iperf3 -c ${lab.b.address} -p $((5200 + i)) -t ${DURATION} -O 1 -J > ${dir}/out.$i & done; wait`;
  await lab.exec('a', ['bash', '-c', script], { env, timeoutMs: (DURATION + 30) * 1000 });
  let sum = 0;
  for (let i = 1; i <= count; i += 1) sum += parseIperf3Json(readFileSync(path.join(dir, `out.${i}`), 'utf8')).receiverBitsPerSecond ?? 0;
  return sum;
}

async function main(): Promise<void> {
  const unavailable = labAvailable() ?? cpuQuotaAvailable();
  if (unavailable) {
    process.stderr.write(`bench:throughput: ${unavailable}\n`);
    process.exit(2);
  }
  cleanupStale();
  const lab = await createLab();
  const quota = createCpuQuota(QUOTA, lab.tag);
  lab.defer(() => quota.destroy());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nd-tput-'));
  lab.defer(() => rmSync(dir, { recursive: true, force: true }));
  process.once('SIGINT', () => void lab.destroy().finally(() => process.exit(130)));
  const env = { PATH: `${quota.binDir}:${toolPath()}` };
  try {
    // Servers for the single process and the scripts (5201..5208), and nicdoctor serve (5101..5108).
    for (let port = 5201; port <= 5208; port += 1) {
      const server = lab.spawn('b', ['iperf3', '-s', '-p', String(port), '--forceflush'], { env });
      await waitForOutput(server, 'Server listening', `iperf3 -s -p ${port}`);
    }
    const serve = lab.spawn('b', [process.execPath, CLI, ...quota.toolArgs, 'serve', '--bind', lab.b.address, '--ports', '5101-5108'], {
      env,
    });
    await waitForOutput(serve, 'iperf3 servers on', 'nicdoctor serve');

    const single: number[] = [];
    const best: Array<{ count: number; bps: number }> = [];
    const nicdoctor: Array<{ bps: number; processes: number; cpuShare: number }> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      process.stderr.write(`round ${round}/${ROUNDS}: single iperf3 -P 4\n`);
      const one = await lab.exec('a', ['iperf3', '-c', lab.b.address, '-p', '5201', '-P', '4', '-t', String(DURATION), '-O', '1', '-J'], {
        env,
        timeoutMs: (DURATION + 30) * 1000,
      });
      single.push(parseIperf3Json(one.stdout).receiverBitsPerSecond ?? 0);

      let roundBest = { count: 0, bps: 0 };
      for (const count of SCRIPT_COUNTS) {
        process.stderr.write(`round ${round}/${ROUNDS}: hand-written script, ${count} processes\n`);
        const bps = await handWrittenScript(lab, env, count, dir);
        if (bps > roundBest.bps) roundBest = { count, bps };
      }
      best.push(roundBest);

      process.stderr.write(`round ${round}/${ROUNDS}: nicdoctor bench\n`);
      const run = await lab.exec(
        'a',
        [
          process.execPath,
          CLI,
          ...quota.toolArgs,
          'bench',
          '--peer',
          lab.b.address,
          '--ports',
          '5101-5108',
          '--duration',
          String(DURATION),
          '--step-duration',
          '3',
          '--format',
          'json',
        ],
        { env, timeoutMs: 300_000, reject: false },
      );
      const bench = parseReport(run.stdout).bench;
      if (!bench?.result) throw new Error(`nicdoctor bench did not finish: ${bench?.error ?? run.stderr}`);
      nicdoctor.push({
        bps: bench.result.bitsPerSecond,
        processes: bench.result.processes,
        cpuShare: bench.cpuSeconds.nicdoctor / Math.max(1e-9, bench.cpuSeconds.iperf3),
      });
    }

    const singleBps = median(single);
    const scriptBps = median(best.map((b) => b.bps));
    const ndBps = median(nicdoctor.map((n) => n.bps));
    const cpuShare = median(nicdoctor.map((n) => n.cpuShare));
    const rows: Array<[string, string, string]> = [
      ['single iperf3 -P 4 (one process)', gbps(singleBps), single.map((v) => (v / 1e9).toFixed(2)).join(' ')],
      [
        `best hand-written script (N = ${best.map((b) => b.count).join('/')})`,
        gbps(scriptBps),
        best.map((b) => (b.bps / 1e9).toFixed(2)).join(' '),
      ],
      [
        `nicdoctor bench (${nicdoctor.map((n) => n.processes).join('/')} processes)`,
        gbps(ndBps),
        nicdoctor.map((n) => (n.bps / 1e9).toFixed(2)).join(' '),
      ],
    ];
    process.stdout.write(
      `throughput bench: CPU-throttled lab (each iperf3 at ${QUOTA} core), ${DURATION} s runs, ${ROUNDS} rounds, medians\n\n`,
    );
    process.stdout.write(`${'method'.padEnd(52)}${'median'.padEnd(14)}per round (Gb/s)\n`);
    for (const [name, value, perRound] of rows) process.stdout.write(`${name.padEnd(52)}${value.padEnd(14)}${perRound}\n`);
    process.stdout.write(`\nratio nicdoctor / single process:        ${(ndBps / singleBps).toFixed(2)}x   target >= 3\n`);
    process.stdout.write(`ratio nicdoctor / best hand-written:     ${(ndBps / scriptBps).toFixed(2)}x   target >= 0.95\n`);
    process.stdout.write(`nicdoctor CPU time / iperf3 CPU time:    ${(cpuShare * 100).toFixed(2)} %   target < 2 %\n`);
  } finally {
    await lab.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:throughput: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
