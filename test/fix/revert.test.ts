/**
 * Issue 18 item 6: a tampered or stale fix state file must not make root's `fix --revert` set
 * anything nicdoctor did not change, the confirmation shows exactly what will be set, refused
 * entries are never listed under "Will run", and the state file is private (0600, its owner's).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyChanges } from '../../src/fix/apply.js';
import { describeRevert, planRevert, revertChanges } from '../../src/fix/revert.js';
import { shellJoin } from '../../src/fix/shell.js';
import { readState, StateFileError, type FixState } from '../../src/fix/state.js';
import { untrustedBecause } from '../../src/hostio/private-file.js';
import { changes, FakeHost } from './fake-fix-host.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-fix-revert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const HOST_ID = 'machine-id 0123456789abcdef0123456789abcdef netns 4026531840';

/** A real apply of tcp_rmem and TSO on the scripted host; returns the host and the saved state file. */
async function applied(): Promise<{ host: FakeHost; file: string }> {
  const host = new FakeHost();
  const file = path.join(dir, `s${counter++}`, 'fix-state.json');
  const results = await applyChanges(
    host,
    changes(
      { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 87380 33554432' },
      { kind: 'ethtool-features', iface: 'eth0', on: ['tso'] },
    ),
    file,
    'db1',
    HOST_ID,
  );
  expect(results.every((result) => result.ok)).toBe(true);
  return { host, file };
}

/** Edits the saved state as a local attacker (or a stale copy) would. */
function tamper(file: string, edit: (state: FixState) => void): FixState {
  const state = JSON.parse(readFileSync(file, 'utf8')) as FixState;
  edit(state);
  writeFileSync(file, JSON.stringify(state));
  return state;
}

describe('fix --revert runs only what nicdoctor itself did', () => {
  it('saves a 0600 state with the typed change, the values after it and this host id', async () => {
    const { file } = await applied();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const state = (await readState(file))!;
    expect(state.hostId).toBe(HOST_ID);
    expect(state.entries[0]).toMatchObject({
      operation: { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '4096 87380 33554432' },
      before: { 'net.ipv4.tcp_rmem': '4096 8192 16384' },
      after: { 'net.ipv4.tcp_rmem': '4096 87380 33554432' },
    });
  });

  it('refuses a restoring operation for another key than the change (any net.* sysctl), and lists it as refused', async () => {
    const { host, file } = await applied();
    host.sysctl['net.ipv4.ip_forward'] = '0';
    const state = tamper(file, (saved) => {
      saved.entries[0]!.revertOperation = { kind: 'sysctl', key: 'net.ipv4.ip_forward', value: '1' };
      saved.entries[0]!.revert = ['sysctl', '-w', 'net.ipv4.ip_forward=1'];
    });
    const lines = describeRevert(await planRevert(host, state, HOST_ID), shellJoin);
    const willRun = lines.slice(lines.indexOf('Will run:'), lines.indexOf('Refused (not run, kept in the state file):'));
    expect(willRun.join('\n')).not.toContain('ip_forward');
    expect(lines.join('\n')).toMatch(
      /Refused[^]*ip_forward=1 +# test: it restores sysctl net\.ipv4\.ip_forward, but the change was to sysctl net\.ipv4\.tcp_rmem/,
    );
    const results = await revertChanges(host, state, file, HOST_ID);
    expect(host.sysctl['net.ipv4.ip_forward']).toBe('0');
    expect(host.ran.some((argv) => argv.join(' ').includes('ip_forward'))).toBe(false);
    expect(results.find((result) => result.refused)?.error).toMatch(/^refused: /);
  });

  it('refuses a restoring value other than the recorded "before", and shows exactly what it would set', async () => {
    const { host, file } = await applied();
    const state = tamper(file, (saved) => {
      saved.entries[0]!.revertOperation = { kind: 'sysctl', key: 'net.ipv4.tcp_rmem', value: '1 1 1' };
    });
    const steps = await planRevert(host, state, HOST_ID);
    expect(steps.map((step) => step.kind)).toEqual(['run', 'refused']);
    const lines = describeRevert(steps, shellJoin);
    expect(lines).toContain('  ethtool -K eth0 tso off    # sets tso=off (test)');
    expect(lines.join('\n')).toContain(
      'it would set net.ipv4.tcp_rmem=1 1 1, not the recorded values before the change (net.ipv4.tcp_rmem=4096 8192 16384)',
    );
    await revertChanges(host, state, file, HOST_ID);
    expect(host.sysctl['net.ipv4.tcp_rmem']).toBe('4096 87380 33554432');
    expect(host.features['tcp-segmentation-offload']).toBe(false);
    expect((await readState(file))!.entries.map((entry) => entry.status)).toEqual(['revert-failed']);
  });

  it('refuses a state saved on another host or network namespace, or one that does not say', async () => {
    const { host, file } = await applied();
    const state = (await readState(file))!;
    const elsewhere = await planRevert(host, state, 'machine-id ffffffffffffffffffffffffffffffff netns 4026531840');
    expect(elsewhere.map((step) => step.kind)).toEqual(['refused', 'refused']);
    expect(elsewhere[0]).toMatchObject({ reason: expect.stringContaining('saved on another host or network namespace') });
    const { hostId: _dropped, ...anonymous } = state;
    expect((await planRevert(host, anonymous, HOST_ID)).every((step) => step.kind === 'refused')).toBe(true);
    await revertChanges(host, state, file, 'machine-id ffffffffffffffffffffffffffffffff netns 1');
    expect(host.sysctl['net.ipv4.tcp_rmem']).toBe('4096 87380 33554432');
  });

  it('leaves alone a value changed since (neither what nicdoctor set nor what it found)', async () => {
    const { host, file } = await applied();
    host.sysctl['net.ipv4.tcp_rmem'] = '8192 65536 1048576';
    const steps = await planRevert(host, (await readState(file))!, HOST_ID);
    expect(steps[1]).toMatchObject({ kind: 'refused', reason: expect.stringContaining('changed since nicdoctor set it') });
    await revertChanges(host, (await readState(file))!, file, HOST_ID);
    expect(host.sysctl['net.ipv4.tcp_rmem']).toBe('8192 65536 1048576');
  });

  it('a change an apply never got to (killed): already at "before", nothing is run for it', async () => {
    const { host, file } = await applied();
    host.features['tcp-segmentation-offload'] = false;
    const steps = await planRevert(host, (await readState(file))!, HOST_ID);
    expect(steps.map((step) => step.kind)).toEqual(['restored', 'run']);
    host.ran = [];
    const results = await revertChanges(host, (await readState(file))!, file, HOST_ID);
    expect(results.every((result) => result.ok)).toBe(true);
    expect(host.ran.filter((argv) => argv[1] === '-K')).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});

describe('the state file is private', () => {
  it('refuses a state file others may write, a symbolic link to one, and a FIFO, without blocking', async () => {
    const { file } = await applied();
    chmodSync(file, 0o666);
    await expect(readState(file)).rejects.toThrow(/mode 0666: group or others may write it/);
    chmodSync(file, 0o600);
    const link = path.join(path.dirname(file), 'link.json');
    symlinkSync(file, link);
    await expect(readState(link)).rejects.toThrow(/symbolic link/);
    const fifo = path.join(path.dirname(file), 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    await expect(readState(fifo)).rejects.toThrow(StateFileError);
    await expect(readState(fifo)).rejects.toThrow(/not a regular file/);
  });

  it('refuses a state file another user owns (as root: a real chown; otherwise the same check on its stat)', async () => {
    const me = process.getuid?.() ?? 0;
    const other = me === 65534 ? 65533 : 65534;
    expect(untrustedBecause({ uid: other, mode: 0o100600, isFile: () => true }, {})).toBe(
      `owned by uid ${other}, not by uid ${me} or root`,
    );
    if (me !== 0) return;
    const file = path.join(dir, `s${counter++}`, 'fix-state.json');
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{}', { mode: 0o600 });
    execFileSync('chown', [String(other), file]);
    await expect(readState(file)).rejects.toThrow(`owned by uid ${other}, not by uid 0 or root`);
  });
});
