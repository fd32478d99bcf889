import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../../lab/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from './helpers.js';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * A command waiting on something that never comes (here: a FIFO output with no reader, which
 * issue 13 found blocking forever, deaf to signals) stops within a second of SIGTERM or Ctrl-C.
 */
// The two signals are independent runs: concurrent, they cost one wait instead of two.
describe.concurrent('signals stop a waiting command within a second', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    '%s → exit %i',
    async (signal, code) => {
      const dir = await tempDir();
      temps.push(dir);
      const fifo = path.join(dir, 'out.fifo');
      execFileSync('mkfifo', [fifo]);
      const child = execa(
        process.execPath,
        [CLI, '--log-level', 'debug', 'analyze', path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), '-o', fifo],
        { reject: false, timeout: 60_000, forceKillAfterDelay: false },
      );
      // The render phase is logged just before the report is written to the FIFO; a small host
      // renders in milliseconds, so half a second later it is waiting for a reader. (A fixed
      // sleep instead cost 4 s per signal and could still be too short on a loaded machine.)
      await new Promise<void>((resolve) => {
        let seen = '';
        const onData = (chunk: Buffer) => {
          seen = (seen + chunk.toString()).slice(-4096);
          if (seen.includes('"phase":"render"')) {
            child.stderr.off('data', onData);
            resolve();
          }
        };
        child.stderr.on('data', onData);
        void child.then(() => resolve());
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(child.exitCode).toBeNull();
      const sent = performance.now();
      child.kill(signal);
      const result = await child;
      expect(result.exitCode).toBe(code);
      expect(performance.now() - sent).toBeLessThan(1500);
    },
    60_000,
  );
});
