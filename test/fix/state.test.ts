import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyChanges } from '../../src/fix/apply.js';
import { revertChanges } from '../../src/fix/revert.js';
import { readState, StateFileError, writeState, type FixState } from '../../src/fix/state.js';
import { operationArgv, type ApplicableOperation } from '../../src/fix/operations.js';
import { changes, FakeHost } from './fake-fix-host.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-fix-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const stateFile = () => path.join(dir, `sub${counter++}`, 'fix-state.json');

const tsoGso = { kind: 'ethtool-features', iface: 'eth0', on: ['tso', 'gso'] };
const tso = (iface = 'eth0') => ({ kind: 'ethtool-features', iface, on: ['tso'] });
const sysctl = (key: string, value: string) => ({ kind: 'sysctl', key, value });

describe('fix state file', () => {
  it('round-trips through an atomic write, creating the directory', async () => {
    const file = stateFile();
    const state: FixState = {
      format: 'nicdoctor-fix-state/1',
      createdAt: '2026-01-01T00:00:00.000Z',
      host: 'db1',
      entries: [
        {
          ruleId: 'offloads-off',
          apply: ['ethtool', '-K', 'eth0', 'tso', 'on'],
          revert: ['ethtool', '-K', 'eth0', 'tso', 'off'],
          before: { tso: 'off' },
          status: 'applied',
        },
      ],
    };
    await writeState(file, state);
    expect(await readState(file)).toEqual(state);
    expect(JSON.parse(readFileSync(file, 'utf8')).format).toBe('nicdoctor-fix-state/1');
  });

  it('returns null without a file and refuses a file that is not a state file', async () => {
    expect(await readState(path.join(dir, 'missing.json'))).toBeNull();
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"format":"other"}');
    await expect(readState(bad)).rejects.toThrow(StateFileError);
    writeFileSync(bad, 'not json');
    await expect(readState(bad)).rejects.toThrow(/not JSON/);
  });
});

describe('apply and revert', () => {
  it('saves the values read before, applies, and the revert restores them and removes the state', async () => {
    const host = new FakeHost();
    const file = stateFile();
    const results = await applyChanges(
      host,
      changes(tsoGso, { kind: 'ethtool-channels', iface: 'eth0', rx: 2, tx: 2 }, sysctl('net.ipv4.tcp_rmem', '4096 87380 33554432')),
      file,
      'db1',
    );
    expect(results.map((result) => result.ok)).toEqual([true, true, true]);
    expect(host.features).toEqual({ 'tcp-segmentation-offload': true, 'generic-segmentation-offload': true });
    expect(host.channels).toEqual({ rx: 2, tx: 2 });
    expect(host.sysctl['net.ipv4.tcp_rmem']).toBe('4096 87380 33554432');
    const state = (await readState(file))!;
    expect(state.entries.map((entry) => entry.revert)).toEqual([
      ['ethtool', '-K', 'eth0', 'tso', 'off', 'gso', 'off'],
      ['ethtool', '-L', 'eth0', 'rx', '1', 'tx', '1'],
      ['sysctl', '-w', 'net.ipv4.tcp_rmem=4096 8192 16384'],
    ]);
    expect(state.entries[2]!.before).toEqual({ 'net.ipv4.tcp_rmem': '4096 8192 16384' });
    // What --revert runs is the typed operation; the argv is its rendering.
    expect(state.entries.map((entry) => operationArgv(entry.revertOperation as ApplicableOperation))).toEqual(
      state.entries.map((entry) => entry.revert),
    );

    const reverted = await revertChanges(host, state, file);
    expect(reverted.every((result) => result.ok)).toBe(true);
    expect(host.features).toEqual({ 'tcp-segmentation-offload': false, 'generic-segmentation-offload': false });
    expect(host.channels).toEqual({ rx: 1, tx: 1 });
    expect(host.sysctl['net.ipv4.tcp_rmem']).toBe('4096 8192 16384');
    expect(existsSync(file)).toBe(false);
  });

  it('writes the state before the first change runs', async () => {
    const host = new FakeHost();
    const file = stateFile();
    const exec = host.exec.bind(host);
    let stateWhenChanged: unknown;
    host.exec = async (argv) => {
      if (argv[1] === '-K') stateWhenChanged = await readState(file);
      return exec(argv);
    };
    await applyChanges(host, changes(tso()), file, 'db1');
    expect(stateWhenChanged).toMatchObject({ entries: [{ status: 'pending', revert: ['ethtool', '-K', 'eth0', 'tso', 'off'] }] });
  });

  it('reports a read-only or absent sysctl as a failed change (sysctl exits 0 but nothing changes), keeping the rest', async () => {
    const host = new FakeHost();
    const file = stateFile();
    const results = await applyChanges(
      host,
      changes(sysctl('net.core.rmem_max', '67108864'), sysctl('net.core.netdev_budget', '600'), tso()),
      file,
      'db1',
    );
    expect(results.map((result) => [result.command.join(' '), result.ok, result.kept])).toEqual([
      ['sysctl -w net.core.netdev_budget=600', false, false],
      ['sysctl -w net.core.rmem_max=67108864', false, false],
      ['ethtool -K eth0 tso on', true, true],
    ]);
    expect(results[1]!.error).toContain('net.core.rmem_max is 212992 afterwards');
    expect(results[0]!.error).toContain('cannot read /proc/sys/net/core/netdev_budget');
    const state = (await readState(file))!;
    expect(state.entries.map((entry) => entry.apply)).toEqual([['ethtool', '-K', 'eth0', 'tso', 'on']]);
  });

  it('leaves no state file when nothing could be applied', async () => {
    const host = new FakeHost();
    const file = stateFile();
    const results = await applyChanges(host, changes(tso('eth9')), file, 'db1');
    expect(results[0]).toMatchObject({ ok: false, kept: false });
    expect(existsSync(file)).toBe(false);
  });

  it('runs only a restoring operation of an applicable kind that its schema accepts, and keeps the others in the state', async () => {
    const host = new FakeHost();
    const file = stateFile();
    const state: FixState = {
      format: 'nicdoctor-fix-state/1',
      createdAt: 'x',
      host: 'db1',
      hostId: 'test-host',
      entries: [
        // No typed operation (an older state file): the argv is never parsed into one.
        { ruleId: 'x', apply: ['ethtool', '-K', 'eth0', 'tso', 'on'], revert: ['sh', '-c', 'reboot'], before: {}, status: 'applied' },
        {
          ruleId: 'm',
          apply: ['x'],
          revert: ['reboot'],
          revertOperation: { kind: 'manual', text: 'reboot' },
          before: {},
          status: 'applied',
        },
        {
          ruleId: 'p',
          apply: ['x'],
          revert: ['x'],
          revertOperation: { kind: 'ethtool-features', iface: 'eth0/../x', on: ['tso'] },
          before: {},
          status: 'applied',
        },
        {
          ruleId: 'y',
          apply: ['ethtool', '-L', 'eth0', 'rx', '2'],
          revert: ['ethtool', '-L', 'eth0', 'rx', '1'],
          revertOperation: { kind: 'ethtool-channels', iface: 'eth0', rx: 1 },
          operation: { kind: 'ethtool-channels', iface: 'eth0', rx: 2 },
          before: { rx: '1' },
          after: { rx: '2' },
          status: 'applied',
        },
      ],
    };
    host.channels.rx = 2;
    const results = await revertChanges(host, state, file, 'test-host');
    expect(results.map((result) => result.ok)).toEqual([true, false, false, false]);
    expect(results.slice(1).map((result) => result.error)).toEqual([
      'refused: iface: "eth0/../x" is not a valid interface name',
      'refused: manual is not an operation nicdoctor applies',
      expect.stringContaining('refused: no typed restoring operation'),
    ]);
    expect(host.ran.some((argv) => argv[0] !== 'ethtool')).toBe(false);
    expect(host.channels.rx).toBe(1);
    expect((await readState(file))!.entries.map((entry) => [entry.ruleId, entry.status])).toEqual([
      ['x', 'revert-failed'],
      ['m', 'revert-failed'],
      ['p', 'revert-failed'],
    ]);
  });
});
