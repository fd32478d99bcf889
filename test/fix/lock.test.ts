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

/**
 * A racer process: on each "take" line it tries the lock once and answers won, locked or error;
 * on "release" it lets go of what it won and answers released. Two of them serve every attempt,
 * so the 80 races cost two Node start-ups instead of 160.
 */
const RACER = `
import { createInterface } from 'node:readline';
import { lockStateFile } from './lock.mjs';
let release;
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'release') {
    await release?.();
    release = undefined;
    process.stdout.write('released\\n');
    continue;
  }
  let outcome;
  try {
    release = await lockStateFile(process.argv[2]);
    outcome = 'won';
  } catch (error) {
    outcome = error.name === 'StateLockedError' ? 'locked' : 'error: ' + error.message;
  }
  process.stdout.write(outcome + '\\n');
}
process.exit(0);
`;

/** Separate processes, as two `fix --apply` are: the lock module bundled into each racer. */
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

interface Racer {
  child: ChildProcess;
  /** Sends a line; resolves to the racer's answer ("exited" when it ends first). */
  ask(line: string): Promise<string>;
}

function startRacer(state: string): Racer {
  const child = spawn(process.execPath, [racer, state], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  const waiting: ((answer: string) => void)[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      waiting.shift()?.(buffered.slice(0, newline).trim());
      buffered = buffered.slice(newline + 1);
    }
  });
  child.once('exit', () => {
    for (const resolve of waiting.splice(0)) resolve('exited');
  });
  return {
    child,
    ask: (line) =>
      new Promise<string>((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${line}\n`);
      }),
  };
}

/** Two racers asked to take the lock at the same moment. */
function race(state: string): { children: ChildProcess[]; outcomes: Promise<string[]>; exited: Promise<unknown> } {
  const racers = [0, 1].map(() => startRacer(state));
  const children = racers.map((one) => one.child);
  const exited = Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
  const outcomes = Promise.all(racers.map((one) => one.ask('take')));
  return { children, outcomes, exited };
}

describe('the fix state file lock', () => {
  it('two processes taking over a stale lock: exactly one wins, 80 times out of 80', async () => {
    const state = stateFile();
    const tally: Record<string, number> = {};
    const gone = await deadPid();
    const racers = [0, 1].map(() => startRacer(state));
    const exited = Promise.all(racers.map(({ child }) => new Promise((resolve) => child.once('exit', resolve))));
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      // What a crashed apply leaves: the lock file naming a process that is gone.
      if (attempt === 0) {
        const first = await lockStateFile(state);
        await first();
      }
      writeFileSync(lockPathFor(state), `${gone}\n`);
      const result = (await Promise.all(racers.map((one) => one.ask('take')))).sort();
      tally[result.join('+')] = (tally[result.join('+')] ?? 0) + 1;
      // The winner lets go before the next attempt, as a finished apply does.
      expect(await Promise.all(racers.map((one) => one.ask('release')))).toEqual(['released', 'released']);
    }
    for (const { child } of racers) child.stdin?.end();
    await exited;
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
