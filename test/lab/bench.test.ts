/**
 * The calibrated bench against real iperf3 between two network namespaces, with the faults of
 * LAB.md injected one at a time. Assertions are ratios measured inside the same test, with wide
 * margins (the machine has 2 noisy cores); absolute Gb/s never appear.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPromise } from 'execa';
import { parseIperf3Json } from '../../src/parsers/iperf3-json.js';
import { median } from '../../src/util/stats.js';
import { CLI, parseReport, runCli, toolPath } from '../../lab/cli.js';
import { cpuQuotaAvailable, createCpuQuota, type CpuQuota } from '../../lab/cpu-quota.js';
import { cleanupStale, createLab, labAvailable, type Lab } from '../../lab/lab.js';

const skip = labAvailable() ?? cpuQuotaAvailable();
if (skip) console.warn(`lab bench tests skipped: ${skip}`);

/** Starts `nicdoctor serve` in namespace b; resolves (with the process in a box: awaiting the process itself would wait for it to exit) once it listens. */
async function startServe(
  lab: Lab,
  ports: string,
  env: Record<string, string> = {},
  toolArgs: readonly string[] = [],
): Promise<{ process: ResultPromise }> {
  const serve = lab.spawn(
    'b',
    [process.execPath, CLI, ...toolArgs, 'serve', '--bind', lab.b.address, '--ports', ports, '--idle-timeout', '600'],
    {
      env: { PATH: toolPath(), ...env },
    },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('nicdoctor serve did not start')), 15_000);
    serve.stderr?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('iperf3 servers on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void serve.then((result) => reject(new Error(`nicdoctor serve exited: ${String(result.stderr)}`)), reject);
  });
  return { process: serve };
}

async function stopServe(serve: { process: ResultPromise } | undefined): Promise<void> {
  if (!serve) return;
  serve.process.kill('SIGTERM');
  await serve.process.catch(() => undefined);
}

async function iperfLeft(lab: Lab): Promise<string[]> {
  const left: string[] = [];
  for (const ns of lab.namespaces) {
    const pids = await lab.exec(ns, ['ip', 'netns', 'pids', ns], { reject: false });
    for (const pid of pids.stdout.split(/\s+/).filter(Boolean)) {
      const comm = await lab.exec(ns, ['cat', `/proc/${pid}/comm`], { reject: false });
      if (comm.stdout.trim() === 'iperf3') left.push(`${ns}:${pid}`);
    }
  }
  return left;
}

describe.skipIf(skip)('nicdoctor bench in the lab', () => {
  let lab: Lab;
  let serve: { process: ResultPromise } | undefined;

  beforeAll(async () => {
    cleanupStale();
    lab = await createLab();
  });
  afterEach(async () => {
    await stopServe(serve);
    serve = undefined;
  });
  afterAll(async () => {
    await lab?.destroy();
  });

  it('on CPU-throttled iperf3 (0.2 core per process) beats one `iperf3 -P 4` by 2.5x and says single-core-bound', async () => {
    const quota: CpuQuota = createCpuQuota(0.2, lab.tag);
    lab.defer(() => quota.destroy());
    const env = { PATH: `${quota.binDir}:${toolPath()}` };
    // nicdoctor runs tools from --tool-path (never PATH); the plain iperf3 baseline uses PATH.
    serve = await startServe(lab, '5101-5108', env, quota.toolArgs);

    // The baseline a newcomer would run: one iperf3 process with four streams. Under the quota its
    // rate varied 3.8–10.4 Gb/s from run to run here (2026-12-02, four runs; the bench's own result
    // stayed within 24–29 Gb/s), so the ratio is taken against the median of three runs, not one.
    const baselineRuns: number[] = [];
    for (let run = 0; run < 3; run += 1) {
      const single = await lab.exec('a', ['iperf3', '-c', lab.b.address, '-p', '5101', '-P', '4', '-t', '5', '-O', '1', '-J'], {
        env,
        timeoutMs: 60_000,
      });
      baselineRuns.push(parseIperf3Json(single.stdout).receiverBitsPerSecond!);
    }
    const singleBps = median(baselineRuns)!;

    const run = await runCli(
      [
        ...quota.toolArgs,
        'bench',
        '--peer',
        lab.b.address,
        '--ports',
        '5101-5108',
        '--duration',
        '5',
        '--step-duration',
        '3',
        '--format',
        'json',
      ],
      { lab, ns: 'a', env, timeoutMs: 150_000 },
    );
    expect(run.stderr).not.toMatch(/^\s+at /m);
    const report = parseReport(run.stdout);
    const bench = report.bench!;
    expect(bench.complete).toBe(true);
    const ratio = bench.result!.bitsPerSecond / singleBps;
    console.info(
      `CPU-throttled lab: single iperf3 -P 4 ${(singleBps / 1e9).toFixed(2)} Gb/s (median of ${baselineRuns.map((bps) => (bps / 1e9).toFixed(2)).join(', ')}), nicdoctor bench ${(bench.result!.bitsPerSecond / 1e9).toFixed(2)} Gb/s with ${bench.result!.processes} processes: ${ratio.toFixed(2)}x`,
    );
    expect(ratio).toBeGreaterThanOrEqual(2.5);
    expect(bench.steps[0]!.perProcess[0]!.cpuQuotaPercent).toBeCloseTo(20, 0);
    expect(bench.findings.map((finding) => finding.symptom)).toContain('single-core-bound');
  });

  it('under a tbf rate cap measures 92-100 % of the cap and calls it the link ceiling', async () => {
    await lab.rateCap('a', '2gbit');
    lab.defer(() => lab.clearQdisc('a'));
    serve = await startServe(lab, '5101-5102');
    const run = await runCli(
      [
        'bench',
        '--peer',
        lab.b.address,
        '--ports',
        '5101-5102',
        '--duration',
        '5',
        '--step-duration',
        '3',
        '--link-speed',
        '2000',
        '--format',
        'json',
      ],
      { lab, ns: 'a', timeoutMs: 120_000 },
    );
    await lab.clearQdisc('a');
    const bench = parseReport(run.stdout).bench!;
    const fractionOfCap = bench.result!.bitsPerSecond / 2e9;
    console.info(`tbf 2gbit: measured ${(100 * fractionOfCap).toFixed(1)} % of the cap`);
    expect(fractionOfCap).toBeGreaterThanOrEqual(0.92);
    expect(fractionOfCap).toBeLessThanOrEqual(1.0);
    expect(bench.findings.map((finding) => finding.symptom)).toContain('at-link-ceiling');
  });

  it('with random drop reports retransmits', async () => {
    serve = await startServe(lab, '5101-5102');
    for (const port of [5101, 5102]) await lab.dropRandom('b', port, 0.005);
    const run = await runCli(
      ['bench', '--peer', lab.b.address, '--ports', '5101-5102', '--duration', '4', '--step-duration', '2', '--format', 'json'],
      { lab, ns: 'a', timeoutMs: 120_000 },
    );
    await lab.exec('b', ['iptables', '-F', 'INPUT']);
    const bench = parseReport(run.stdout).bench!;
    const retransmits = bench.findings.find((finding) => finding.symptom === 'retransmits');
    expect(retransmits, JSON.stringify(bench.result?.retransmits)).toBeDefined();
    expect(Number(retransmits!.data.retransmits)).toBeGreaterThan(0);
  });

  it('on Ctrl-C exits 130, prints the partial report, and leaves no iperf3 in either namespace', async () => {
    serve = await startServe(lab, '5101-5102');
    const bench = lab.spawn(
      'a',
      [
        process.execPath,
        CLI,
        'bench',
        '--peer',
        lab.b.address,
        '--ports',
        '5101-5102',
        '--duration',
        '30',
        '--step-duration',
        '10',
        '--format',
        'json',
      ],
      { env: { PATH: toolPath() } },
    );
    // Interrupt once the bench has started measuring (its first progress line), not at a fixed
    // time: on a loaded machine start-up alone can take seconds.
    await new Promise<void>((resolve) => {
      const deadline = setTimeout(resolve, 30_000);
      bench.stderr?.on('data', (chunk: Buffer) => {
        if (/ramp|step|process/i.test(String(chunk))) {
          clearTimeout(deadline);
          setTimeout(resolve, 2000);
        }
      });
    });
    bench.kill('SIGINT');
    const result = await bench.catch((error: unknown) => error as Awaited<typeof bench>);
    expect(result.exitCode).toBe(130);
    const report = parseReport(String(result.stdout));
    expect(report.bench?.complete).toBe(false);
    expect(report.bench?.error).toBe('interrupted');
    await stopServe(serve);
    serve = undefined;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await iperfLeft(lab)).toEqual([]);
  });

  it('says clearly when the peer is unreachable (exit 3), keeping no iperf3 behind', async () => {
    const run = await runCli(
      ['bench', '--peer', lab.b.address, '--ports', '5190', '--duration', '2', '--step-duration', '1', '--format', 'json'],
      { lab, ns: 'a', timeoutMs: 60_000 },
    );
    expect(run.exitCode).toBe(3);
    const report = parseReport(run.stdout);
    expect(report.bench?.complete).toBe(false);
    expect(report.bench?.error).toMatch(/cannot reach iperf3/);
    // The reason is on stderr too: with -o the report is in a file nobody is looking at yet.
    expect(run.stderr).toMatch(/^nicdoctor: the bench did not finish: .*cannot reach iperf3/m);
    expect(await iperfLeft(lab)).toEqual([]);
  });
});
