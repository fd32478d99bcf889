import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockPathFor, lockStateFile, StateLockedError } from '../../src/fix/lock.js';
import { tempDir } from './helpers.js';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the fix state file lock', () => {
  it('a second apply on the same state file refuses while the first runs, and may go once it is released', async () => {
    const dir = await tempDir();
    temps.push(dir);
    const state = path.join(dir, 'fix-state.json');
    // Another live node process holds the lock.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await writeFile(lockPathFor(state), `${holder.pid}\n`);
      await expect(lockStateFile(state)).rejects.toThrow(StateLockedError);
      await expect(lockStateFile(state)).rejects.toThrow(new RegExp(`pid ${holder.pid}`));
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.on('exit', resolve));
    }
    // The holder died without releasing (kill -9): the lock is stale and taken over.
    const release = await lockStateFile(state);
    expect((await readFile(lockPathFor(state), 'utf8')).trim()).toBe(String(process.pid));
    await release();
    await expect(readFile(lockPathFor(state))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
