/**
 * `nicdoctor --version` answers before the commands load (src/cli.ts): the short path must print
 * what commander prints (execa drops the final newline of both), and only a lone --version / -V takes it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../../lab/cli.js';

const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('--version', () => {
  it.each([['--version'], ['-V']])('%s alone prints the package version and exits 0', async (flag) => {
    const run = await runCli([flag]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe(version);
    expect(run.stderr).toBe('');
  });

  it('with another option, commander answers with the same text', async () => {
    const run = await runCli(['--version', '--log-level', 'error']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe(version);
  });
});
