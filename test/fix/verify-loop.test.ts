/**
 * The closed loop on the scripted host: the bench is a function of the host's settings plus
 * noise, so each case decides what a change does and the loop must find it from the runs.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readState } from '../../src/fix/state.js';
import { runVerifyLoop, type LoopOptions, type Sample } from '../../src/fix/verify-loop.js';
import { revertChanges } from '../../src/fix/revert.js';
import { FakeHost, changes } from './fake-fix-host.js';

const HOST_ID = 'test-host';
const offloads = changes({ kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'], off: [] })[0]!.change;
const channels = changes({ kind: 'ethtool-channels', iface: 'eth0', rx: '2', tx: '2' })[0]!.change;
const rmem = changes({ kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 131072 16777216' })[0]!.change;

/** Throughput in Gb/s from the host's settings, with a repeating wobble of ±2 %. */
function bench(host: FakeHost, effect: (host: FakeHost) => number): (label: string) => Promise<Sample> {
  let count = 0;
  const wobble = [1, 0.98, 1.02, 0.99, 1.01];
  return async () => ({
    bitsPerSecond: effect(host) * 1e9 * wobble[count++ % wobble.length]!,
    retransmits: 10,
    cpuPercent: 50,
  });
}

describe('runVerifyLoop', () => {
  let dir: string;
  let host: FakeHost;
  let stateFile: string;
  const options = (overrides: Partial<LoopOptions>): LoopOptions => ({
    io: host,
    stateFile,
    host: 'h',
    hostId: HOST_ID,
    steps: [],
    run: async () => ({ bitsPerSecond: 1e9, retransmits: 0, cpuPercent: null }),
    minRuns: 3,
    maxRuns: 6,
    targetRelativeError: 0.02,
    keepAll: false,
    ceilingBitsPerSecond: null,
    ceilingFraction: 0.97,
    nominalSpeedFraction: 1.05,
    interrupted: () => false,
    say: () => undefined,
    ...overrides,
  });

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-verify-loop-'));
    stateFile = path.join(dir, 'state.json');
    host = new FakeHost();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the change that measured better, reverts the one that did nothing, and the state holds only the kept one', async () => {
    const record = await runVerifyLoop(
      options({
        steps: [
          { ruleId: 'rss-single-queue', changes: [channels], disruptive: false },
          { ruleId: 'offloads-off', changes: [offloads], disruptive: false },
        ],
        run: bench(host, (h) => (h.features['tcp-segmentation-offload'] ? 6 : 3)),
      }),
    );
    expect(record.steps.map((step) => [step.ruleId, step.verdict])).toEqual([
      ['rss-single-queue', 'reverted'],
      ['offloads-off', 'kept'],
    ]);
    expect(record.steps[0]!.reason).toMatch(/no gain beyond the noise/);
    expect(record.steps[1]!.differenceBitsPerSecond!).toBeGreaterThan(record.steps[1]!.marginBitsPerSecond!);
    expect(record.complete).toBe(true);
    expect(host.channels).toEqual({ rx: 1, tx: 1 });
    expect(host.features['tcp-segmentation-offload']).toBe(true);
    const state = await readState(stateFile);
    expect(state!.entries.map((entry) => entry.ruleId)).toEqual(['offloads-off']);
    // --revert undoes what the loop kept.
    await revertChanges(host, state!, stateFile, HOST_ID);
    expect(host.features['tcp-segmentation-offload']).toBe(false);
    expect(existsSync(stateFile)).toBe(false);
  });

  it('stops at the first regression and puts it back; --keep-all keeps it and goes on', async () => {
    const steps = [
      { ruleId: 'channels', changes: [channels], disruptive: false },
      { ruleId: 'rmem', changes: [rmem], disruptive: false },
    ];
    const effect = (h: FakeHost) => (h.channels.rx === 2 ? 2 : 4);
    const stopped = await runVerifyLoop(options({ steps, run: bench(host, effect) }));
    expect(stopped.steps.map((step) => step.verdict)).toEqual(['reverted']);
    expect(stopped.steps[0]!.outcome).toBe('worse');
    expect(stopped.stopReason).toMatch(/first regression/);
    expect(host.channels.rx).toBe(1);
    expect(existsSync(stateFile)).toBe(false);

    const all = await runVerifyLoop(options({ steps, run: bench(host, effect), keepAll: true }));
    expect(all.steps.map((step) => step.verdict)).toEqual(['kept', 'kept']);
    expect(all.steps[0]!.reason).toMatch(/--keep-all/);
    expect((await readState(stateFile))!.entries).toHaveLength(2);
  });

  it('stops once the link ceiling is reached, and makes no change when the baseline is already there', async () => {
    const steps = [
      { ruleId: 'offloads-off', changes: [offloads], disruptive: false },
      { ruleId: 'rmem', changes: [rmem], disruptive: false },
    ];
    const run = bench(host, (h) => (h.features['tcp-segmentation-offload'] ? 9.4 : 5));
    const record = await runVerifyLoop(options({ steps, run, ceilingBitsPerSecond: 9.41e9 }));
    expect(record.steps).toHaveLength(1);
    expect(record.stopReason).toMatch(/ceiling is reached/);

    host = new FakeHost();
    const at = await runVerifyLoop(options({ steps, run: bench(host, () => 9.4), ceilingBitsPerSecond: 9.41e9 }));
    expect(at.steps).toEqual([]);
    expect(at.stopReason).toMatch(/already reaches/);
    expect(host.ran.filter((argv) => argv[1] === '-K')).toEqual([]);
  });

  it('a rate far above the ceiling means the link speed is nominal (a veth): the ceiling is ignored', async () => {
    const steps = [{ ruleId: 'offloads-off', changes: [offloads], disruptive: false }];
    const record = await runVerifyLoop(
      options({ steps, run: bench(host, (h) => (h.features['tcp-segmentation-offload'] ? 30 : 20)), ceilingBitsPerSecond: 9.41e9 }),
    );
    expect(record.steps.map((step) => step.verdict)).toEqual(['kept']);
  });

  it('repeats runs until the spread is known: more than the minimum while the mean is uncertain', async () => {
    let count = 0;
    const noisy = [1, 3, 1.5, 2.5, 1, 3, 1.5, 2.5];
    const record = await runVerifyLoop(
      options({ run: async () => ({ bitsPerSecond: noisy[count++ % noisy.length]! * 1e9, retransmits: 0, cpuPercent: null }) }),
    );
    expect(record.final!.runs).toBe(6);
    const steady = await runVerifyLoop(options({ run: async () => ({ bitsPerSecond: 5e9, retransmits: 0, cpuPercent: null }) }));
    expect(steady.final!.runs).toBe(3);
  });

  it('interrupted while a step is measured: that step is put back and the state left valid', async () => {
    let stop = false;
    let runs = 0;
    const record = await runVerifyLoop(
      options({
        steps: [{ ruleId: 'offloads-off', changes: [offloads], disruptive: false }],
        run: async () => {
          runs += 1;
          if (runs === 4) stop = true; // the first run after the change
          return { bitsPerSecond: 5e9, retransmits: 0, cpuPercent: null };
        },
        interrupted: () => stop,
      }),
    );
    expect(record.steps.map((step) => step.verdict)).toEqual(['interrupted']);
    expect(record.complete).toBe(false);
    expect(host.features['tcp-segmentation-offload']).toBe(false);
    expect(existsSync(stateFile)).toBe(false);
  });

  it('a change that cannot be read back is not made; one that fails is put back', async () => {
    const elsewhere = changes({ kind: 'ethtool-features', iface: 'eth9', on: ['tso'], off: [] })[0]!.change;
    const readOnly = changes({ kind: 'sysctl', key: 'net.core.rmem_max', value: '67108864' })[0]!.change;
    const record = await runVerifyLoop(
      options({
        steps: [
          { ruleId: 'unreadable', changes: [elsewhere], disruptive: false },
          { ruleId: 'read-only', changes: [channels, readOnly], disruptive: false },
        ],
        run: async () => ({ bitsPerSecond: 5e9, retransmits: 0, cpuPercent: null }),
      }),
    );
    expect(record.steps.map((step) => step.verdict)).toEqual(['failed', 'failed']);
    expect(record.steps[0]!.reason).toMatch(/^not made/);
    expect(record.steps[1]!.reason).toMatch(/put back/);
    expect(host.channels).toEqual({ rx: 1, tx: 1 });
    expect(existsSync(stateFile)).toBe(false);
  });
});
