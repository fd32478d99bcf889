/**
 * The fix state lock (issue 19 item 7): a crash never leaves a lock that blocks the revert,
 * and two processes taking over a stale lock never both win.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockPathFor, lockStateFile, StateLockedError } from '../../src/fix/lock.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-fix-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const stateFile = () => path.join(dir, `s${counter++}`, 'fix-state.json');

/** A pid that no process has: a child that has already exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const ATTEMPTS = 80;

const RACER = `
import { lockStateFile } from './lock.mjs';
let outcome;
try {
  await lockStateFile(process.argv[2]);
  outcome = 'won';
} catch (error) {
  outcome = error.name === 'StateLockedError' ? 'locked' : 'error: ' + error.message;
}
process.stdout.write(outcome + '\\n');
// Holds what it won until the test has both answers.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

/** Two separate processes, as two `fix --apply` are: the lock module bundled, each taking the lock once. */
let racer: string;
beforeAll(async () => {
  const bundleDir = mkdtempSync(path.join(dir, 'racer-'));
  await build({
    entryPoints: [path.resolve(import.meta.dirname, '../../src/fix/lock.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: path.join(bundleDir, 'lock.mjs'),
    logLevel: 'silent',
  });
  racer = path.join(bundleDir, 'racer.mjs');
  writeFileSync(racer, RACER);
}, 30_000);

function race(state: string): { children: ChildProcess[]; outcomes: Promise<string[]>; exited: Promise<unknown> } {
  const children = [0, 1].map(() => spawn(process.execPath, [racer, state], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const exited = Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  const outcomes = Promise.all(
    children.map(
      (child) =>
        new Promise<string>((resolve) => {
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            if (text.includes('\n')) resolve(text.trim());
          });
          child.once('exit', () => resolve(text.trim() || 'exited'));
        }),
    ),
  );
  return { children, outcomes, exited };
}

describe('the fix state file lock', () => {
  it('two processes taking over a stale lock: exactly one wins, 80 times out of 80', async () => {
    const state = stateFile();
    const tally: Record<string, number> = {};
    const gone = await deadPid();
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      // What a crashed apply leaves: the lock file naming a process that is gone.
      if (attempt === 0) {
        const first = await lockStateFile(state);
        await first();
      }
      writeFileSync(lockPathFor(state), `${gone}\n`);
      const { children, outcomes, exited } = race(state);
      const result = (await outcomes).sort();
      for (const child of children) child.stdin?.end();
      await exited;
      tally[result.join('+')] = (tally[result.join('+')] ?? 0) + 1;
    }
    expect(tally).toEqual({ 'locked+won': ATTEMPTS });
  }, 120_000);

  it('a live holder makes a second taker refuse, naming its pid; once the holder is killed -9 the lock is free', async () => {
    const state = stateFile();
    const { children, outcomes, exited } = race(state);
    const [first] = await Promise.race([outcomes, new Promise<string[]>((resolve) => setTimeout(() => resolve([]), 10_000))]);
    expect(first === 'won' || first === 'locked').toBe(true);
    const winner = children[(await outcomes).indexOf('won')]!;
    const refused = lockStateFile(state);
    await expect(refused).rejects.toThrow(StateLockedError);
    await expect(refused).rejects.toThrow(`in use by another nicdoctor fix (pid ${winner.pid})`);
    for (const child of children) if (child !== winner) child.stdin?.end();
    winner.kill('SIGKILL');
    await exited;
    const release = await lockStateFile(state);
    expect(readFileSync(lockPathFor(state), 'utf8').trim()).toBe(String(process.pid));
    await release();
    // Kept, empty: removing it would let a newcomer lock a new file beside a holder of the old one.
    expect(existsSync(lockPathFor(state))).toBe(true);
    expect(readFileSync(lockPathFor(state), 'utf8')).toBe('');
  }, 30_000);

  it('refuses a lock path that is a symbolic link or writable by others', async () => {
    const state = stateFile();
    await (
      await lockStateFile(state)
    )();
    rmSync(lockPathFor(state));
    symlinkSync(path.join(dir, 'elsewhere'), lockPathFor(state));
    await expect(lockStateFile(state)).rejects.toThrow(/is a symbolic link; not used as a lock/);
    expect(existsSync(path.join(dir, 'elsewhere'))).toBe(false);
    rmSync(lockPathFor(state));
    writeFileSync(lockPathFor(state), '');
    chmodSync(lockPathFor(state), 0o666);
    await expect(lockStateFile(state)).rejects.toThrow(/group or others may write it/);
  });
});
