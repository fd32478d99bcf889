import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '../../bench/lab/cli.js';
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
describe('signals stop a waiting command within a second', () => {
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
      const child = execa(process.execPath, [CLI, 'analyze', path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), '-o', fifo], {
        reject: false,
        timeout: 60_000,
        forceKillAfterDelay: false,
      });
      // Give it time to finish the analysis and reach the FIFO.
      await new Promise((resolve) => setTimeout(resolve, 4000));
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
