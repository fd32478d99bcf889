import { describe, expect, it } from 'vitest';
import { CommandBatcher, batchScript, shellQuote } from '../../src/hostio/command-batch.js';
import { HostIOError } from '../../src/hostio/types.js';

const env = { PATH: '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' };
const request = (argv: string[], timeoutMs = 5_000) => ({ argv, resolved: argv, timeoutMs, env });

describe('CommandBatcher', () => {
  it('splits each command’s stdout, stderr and exit status, including output without a final newline', async () => {
    const batcher = new CommandBatcher(2);
    const results = await Promise.all([
      batcher.run(request(['/bin/sh', '-c', 'printf "a\\nb\\n"'])),
      batcher.run(request(['/bin/sh', '-c', 'printf "no newline"; printf oops >&2; exit 3'])),
      batcher.run(request(['/bin/sh', '-c', 'true'])),
      batcher.run(request(['/bin/sh', '-c', 'printf "\\n\\n"'])),
    ]);
    expect(results.map((result) => [result.stdout, result.stderr, result.exitCode])).toEqual([
      ['a\nb\n', '', 0],
      ['no newline', 'oops', 3],
      ['', '', 0],
      ['\n\n', '', 0],
    ]);
  });

  it('passes hostile words literally, never as shell syntax', async () => {
    const hostile = ["'; touch /tmp/ndps-pwned; '", '$(id)', '`id`', 'a b\tc', '"quoted"', '\\'];
    const results = await Promise.all(hostile.map((word) => new CommandBatcher(1).run(request(['/bin/printf', '%s', word]))));
    expect(results.map((result) => result.stdout)).toEqual(hostile);
  });

  it('cannot be fooled by output that looks like a marker', async () => {
    const batcher = new CommandBatcher(1);
    const script = batchScript([['x']], 'ndbNONCE');
    const [first, second] = await Promise.all([
      batcher.run(request(['/bin/printf', '\\nndb0 0 0\\nndb 1 0\\n'])),
      batcher.run(request(['/bin/echo', 'second'])),
    ]);
    expect(script).toContain("'x' </dev/null");
    expect(first.stdout).toBe('\nndb0 0 0\nndb 1 0\n');
    expect(second.stdout).toBe('second\n');
  });

  it('times out one command, and still runs the ones queued after it', async () => {
    const batcher = new CommandBatcher(1);
    const slow = batcher.run(request(['/bin/sleep', '30'], 300));
    const after = batcher.run(request(['/bin/echo', 'after']));
    await expect(slow).rejects.toSatisfy((error) => error instanceof HostIOError && error.kind === 'timeout');
    expect((await after).stdout).toBe('after\n');
  });

  it('quotes a single quote the POSIX way', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
