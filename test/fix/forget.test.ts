/**
 * Issue 19 item 7: a state whose interface is gone blocked every later --apply, with no way out
 * but deleting root's state file by hand. `fix --forget` drops what can no longer be restored,
 * after showing it, and keeps what still can.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fixCommand } from '../../src/cli/fix-command.js';
import { planForget } from '../../src/fix/forget.js';
import { currentHostId } from '../../src/fix/host-id.js';
import { readState, writeState, type FixState, type StateEntry } from '../../src/fix/state.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-fix-forget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const GONE = 'ndforget0';

function tsoEntry(iface: string): StateEntry {
  return {
    ruleId: 'offloads-off',
    apply: ['ethtool', '-K', iface, 'tso', 'on'],
    revert: ['ethtool', '-K', iface, 'tso', 'off'],
    operation: { kind: 'ethtool-features', iface, on: ['tso'] },
    revertOperation: { kind: 'ethtool-features', iface, off: ['tso'] },
    before: { tso: 'off' },
    after: { tso: 'on' },
    status: 'applied',
  };
}
const rmemEntry: StateEntry = {
  ruleId: 'socket-buffers-small',
  apply: ['sysctl', '-w', 'net.ipv4.tcp_rmem=4096 87380 33554432'],
  revert: ['sysctl', '-w', 'net.ipv4.tcp_rmem=4096 8192 16384'],
  operation: { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 87380 33554432' },
  revertOperation: { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 8192 16384' },
  before: { 'net.ipv4.tcp_rmem': '4096 8192 16384' },
  after: { 'net.ipv4.tcp_rmem': '4096 87380 33554432' },
  status: 'applied',
};
const state = (entries: StateEntry[], hostId = currentHostId()): FixState => ({
  format: 'nicdoctor-fix-state/1',
  createdAt: '2026-12-01T00:00:00.000Z',
  host: 'db1',
  hostId,
  entries,
});

describe('fix --forget', () => {
  it('plans to drop the entries of gone interfaces and keeps sysctls and present interfaces', () => {
    const plan = planForget(state([tsoEntry(GONE), tsoEntry('lo'), rmemEntry]), currentHostId(), (iface) => iface === 'lo');
    expect(plan.drop.map(({ entry, reason }) => [entry.apply.join(' '), reason])).toEqual([
      [`ethtool -K ${GONE} tso on`, `${GONE} is gone`],
    ]);
    expect(plan.keep.map((entry) => entry.apply[2])).toEqual(['lo', 'net.ipv4.tcp_rmem=4096 87380 33554432']);
    expect(planForget(state([rmemEntry], 'machine-id 0 netns 1')).drop).toHaveLength(1);
  });

  it('shows what it drops, drops it, and removes the state file that blocked every --apply', async () => {
    const file = path.join(dir, 'one', 'fix-state.json');
    await writeState(file, state([tsoEntry(GONE)]));
    const printed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((text) => (printed.push(String(text)), true));
    try {
      expect(await fixCommand({ forget: true, yes: true, state: file, profile: 'throughput' }, pino({ level: 'silent' }))).toBe(0);
    } finally {
      write.mockRestore();
    }
    const text = printed.join('');
    expect(text).toContain('Will drop from the state (nothing is changed on the host):');
    expect(text).toContain(`  ethtool -K ${GONE} tso on    # offloads-off: ${GONE} is gone`);
    expect(text).toContain(`Dropped all; ${file} removed.`);
    expect(existsSync(file)).toBe(false);
  });

  it('keeps what can still be restored in the state', async () => {
    const file = path.join(dir, 'two', 'fix-state.json');
    await writeState(file, state([tsoEntry(GONE), rmemEntry]));
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await fixCommand({ forget: true, yes: true, state: file, profile: 'throughput' }, pino({ level: 'silent' }));
    } finally {
      write.mockRestore();
    }
    expect((await readState(file))!.entries.map((entry) => entry.ruleId)).toEqual(['socket-buffers-small']);
  });

  it('goes alone: with --apply or --revert it is bad usage', async () => {
    await expect(fixCommand({ forget: true, revert: true, profile: 'throughput' }, pino({ level: 'silent' }))).rejects.toThrow(
      '--revert and --forget exclude each other',
    );
  });
});
