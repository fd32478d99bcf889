/**
 * `nicdoctor fix --apply --verify` with real iperf3 between two lab namespaces (issue 25): side a
 * has TSO/GSO off and one channel, and each iperf3 runs on a quarter of a core. Turning the
 * offloads back on lets each process move several times more data per CPU second: the loop
 * must measure that, keep it, and leave it in the state for --revert. A second channel does
 * nothing for TCP over a veth: the loop must measure it and put it back. Ctrl-C and kill -9
 * mid-loop leave the original values, or a state --revert restores. The verdicts come from
 * the measured spread of repeated runs, so they hold on a loaded machine; only the direction
 * of the outcome is asserted, never a Gb/s figure.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readState } from '../../src/fix/state.js';
import { CLI, hasStackTrace, parseReport, runCli, toolPath } from '../../lab/cli.js';
import { cpuQuotaAvailable, createCpuQuota, type CpuQuota } from '../../lab/cpu-quota.js';
import { cleanupStale, createLab, labAvailable, type Lab } from '../../lab/lab.js';

const PREFIX = 'ndvf';
const skip = labAvailable() ?? cpuQuotaAvailable();
if (skip) console.warn(`fix --verify lab tests skipped: ${skip}`);

/** Short runs, few repetitions: CI time matters, and the verdict uses the spread it measured. */
const BENCH_ARGS = ['--ports', '5101-5102', '--max-procs', '2', '--duration', '2', '--step-duration', '1', '--runs', '2'];

/** In a box: an async function returning the process itself would wait for it to exit. */
async function startServe(lab: Lab, quota: CpuQuota): Promise<{ process: ResultPromise }> {
  const serve = lab.spawn('b', [process.execPath, CLI, ...quota.toolArgs, 'serve', '--bind', lab.b.address, '--ports', '5101-5102'], {
    env: { PATH: toolPath() },
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    const timer = setTimeout(() => reject(new Error(`nicdoctor serve did not start: ${said}`)), 30_000);
    serve.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (chunk.toString().includes('iperf3 servers on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void serve.then((result) => reject(new Error(`nicdoctor serve exited: ${String(result.stderr)}`)), reject);
  });
  return { process: serve };
}

describe.skipIf(skip)('nicdoctor fix --apply --verify in the lab', () => {
  let lab: Lab;
  let quota: CpuQuota;
  let serve: { process: ResultPromise } | undefined;
  let dir: string;

  const verifyArgs = (state: string) => [
    ...quota.toolArgs,
    'fix',
    '--apply',
    '--verify',
    '--yes',
    '--peer',
    lab.b.address,
    ...BENCH_ARGS,
    '--iface',
    lab.a.iface,
    '--link-speed',
    '10000',
    '--state',
    state,
    '--format',
    'json',
  ];

  const observe = async () => {
    const features = (await lab.exec('a', ['ethtool', '-k', lab.a.iface])).stdout;
    const channels = (await lab.exec('a', ['ethtool', '-l', lab.a.iface])).stdout;
    const current = channels.slice(channels.indexOf('Current hardware settings'));
    return {
      tso: /^tcp-segmentation-offload: (on|off)/m.exec(features)?.[1],
      gso: /^generic-segmentation-offload: (on|off)/m.exec(features)?.[1],
      rx: /^RX:\s+(\S+)/m.exec(current)?.[1],
    };
  };
  const ORIGINAL = { tso: 'off', gso: 'off', rx: '1' };

  /** After an interrupted loop: the original values, or a valid state whose --revert gives them back. */
  async function expectRestorable(state: string, when: string): Promise<void> {
    if (existsSync(state)) {
      expect(await readState(state), when).not.toBeNull();
      const reverted = await runCli(['fix', '--revert', '--yes', '--state', state], { lab, ns: 'a' });
      expect(reverted.exitCode, `${when}: ${reverted.stdout}${reverted.stderr}`).toBe(0);
    }
    expect(await observe(), when).toEqual(ORIGINAL);
    expect(existsSync(state), when).toBe(false);
  }

  /** Starts the loop and resolves once stderr shows `marker` (or the loop ends). */
  function spawnUntil(state: string, marker: RegExp): { loop: ResultPromise; reached: Promise<boolean> } {
    const loop = lab.spawn('a', [process.execPath, CLI, ...verifyArgs(state)], { env: { PATH: toolPath() } });
    const reached = new Promise<boolean>((resolve) => {
      let seen = '';
      loop.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (marker.test(seen)) resolve(true);
      });
      void loop.catch(() => undefined).finally(() => resolve(false));
    });
    return { loop, reached };
  }

  beforeAll(async () => {
    cleanupStale(PREFIX);
    dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-lab-verify-'));
    lab = await createLab({ prefix: PREFIX });
    quota = createCpuQuota(0.25, lab.tag);
    lab.defer(() => quota.destroy());
    await lab.offloads('a', { tso: false, gso: false });
    await lab.channels('a', 1);
    serve = await startServe(lab, quota);
  });
  afterAll(async () => {
    serve?.process.kill('SIGTERM');
    await serve?.process.catch(() => undefined);
    await lab?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the offload fix it measured better, reverts the channels that did not help, and --revert undoes what it kept', async () => {
    expect(await observe()).toEqual(ORIGINAL);
    const state = path.join(dir, 'loop', 'fix-state.json');
    const run = await runCli(verifyArgs(state), { lab, ns: 'a', timeoutMs: 240_000 });
    expect(hasStackTrace(run.stderr), run.stderr).toBe(false);
    expect(run.exitCode, run.stderr).toBe(0);
    const verification = parseReport(run.stdout).verification!;
    console.info(
      verification.steps
        .map(
          (step) =>
            `${step.operations.join('; ')}: ${((step.before?.bitsPerSecond ?? 0) / 1e9).toFixed(2)} -> ${((step.after?.bitsPerSecond ?? 0) / 1e9).toFixed(2)} Gb/s (margin ${((step.marginBitsPerSecond ?? 0) / 1e9).toFixed(2)}), ${step.verdict}`,
        )
        .join('\n'),
    );
    expect(verification.complete).toBe(true);
    const offloads = verification.steps.find((step) => step.operations.some((text) => text.includes('tso on')));
    const channels = verification.steps.find((step) => step.operations.some((text) => text.startsWith(`ethtool -L ${lab.a.iface}`)));
    expect(offloads?.verdict, JSON.stringify(offloads)).toBe('kept');
    expect(offloads!.differenceBitsPerSecond!).toBeGreaterThan(offloads!.marginBitsPerSecond!);
    expect(offloads!.before!.runs).toBeGreaterThanOrEqual(2);
    expect(channels?.verdict, JSON.stringify(channels)).toBe('reverted');
    expect(channels!.after).not.toBeNull();
    expect(channels!.reason).toMatch(/no gain beyond the noise|regression/);
    // The persistent form carries only the kept change.
    const persistent = verification.persistent.map((file) => file.content).join('\n');
    expect(persistent).toContain('TCPSegmentationOffload=yes');
    expect(persistent).not.toMatch(/RxChannels/);

    expect(await observe()).toEqual({ tso: 'on', gso: 'on', rx: '1' });
    const saved = await readState(state);
    expect(saved!.entries.map((entry) => entry.apply.join(' '))).toEqual([`ethtool -K ${lab.a.iface} tso on gso on`]);
    const reverted = await runCli(['fix', '--revert', '--yes', '--state', state], { lab, ns: 'a' });
    expect(reverted.exitCode, reverted.stdout + reverted.stderr).toBe(0);
    expect(await observe()).toEqual(ORIGINAL);
  });

  it('Ctrl-C while a step is measured puts that step back and exits 130', async () => {
    const state = path.join(dir, 'sigint', 'fix-state.json');
    const { loop, reached } = spawnUntil(state, /applying ethtool -L/);
    expect(await reached).toBe(true);
    // Inside the step's measurement: the change is on the host and not yet judged.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await observe()).rx).toBe('2');
    loop.kill('SIGINT');
    const result = await loop.catch((error: unknown) => error as Awaited<typeof loop>);
    expect(result.exitCode, String(result.stderr)).toBe(130);
    expect(await observe()).toEqual(ORIGINAL);
    await expectRestorable(state, 'after Ctrl-C');
  });

  it('kill -9 at moments across the loop: the state is valid and --revert restores the original values', async () => {
    // As the first change is saved and made, while it is measured, and as the second starts.
    const moments: [RegExp, number][] = [
      [/applying ethtool -L/, 0],
      [/applying ethtool -L/, 30],
      [/applying ethtool -L/, 1200],
      [/applying ethtool -K/, 0],
    ];
    for (const [index, [marker, delay]] of moments.entries()) {
      const state = path.join(dir, `kill-${index}`, 'fix-state.json');
      const { loop, reached } = spawnUntil(state, marker);
      const inTime = await reached;
      await new Promise((resolve) => setTimeout(resolve, delay));
      loop.kill('SIGKILL');
      await loop.catch(() => undefined);
      await expectRestorable(state, `kill -9 ${delay} ms after ${String(marker)} (${inTime ? 'reached' : 'loop ended first'})`);
    }
  });
});
