import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readToolAtOneCore } from '../../src/parsers/process-cpu.js';
import { FIXTURES } from '../helpers/fixtures.js';

const ticket = (name: string) => readFileSync(path.join(FIXTURES, 'eval', name, 'ticket.txt'), 'utf8');

describe('readToolAtOneCore: a test or capture tool at one core in a pasted pidstat or top table', () => {
  it('reads pidstat: xdpdump at 101 %CPU (a real ticket, fixtures/eval)', () => {
    expect(readToolAtOneCore(ticket('gh-xdptools-xdpdump-10g-24q-one-core-perf-ring-drops'))).toEqual({ tool: 'xdpdump', cpuPercent: 101 });
  });

  it('reads a pidstat table a mailer wrapped at 72 columns (header and row cut)', () => {
    const wrapped = [
      '04:42:48 PM   UID       PID    %usr %system  %guest   %wait    %CPU',
      'CPU  Command',
      '04:42:49 PM     0   2861563    6.00   95.00    0.00    0.00  101.00',
      '3  xdpdump',
    ].join('\n');
    expect(readToolAtOneCore(wrapped)).toEqual({ tool: 'xdpdump', cpuPercent: 101 });
  });

  it('reads top, with the command path and arguments', () => {
    const top = [
      '  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND',
      ' 4242 root      20   0   12345   2345   1234 R  99.7   0.0   1:02.03 /usr/bin/iperf3 -s -p 5201',
      '    9 root      20   0       0      0      0 S   3.0   0.0   0:01.00 ksoftirqd/0',
    ].join('\n');
    expect(readToolAtOneCore(top)).toEqual({ tool: 'iperf3', cpuPercent: 99.7 });
  });

  it.each([
    // A real top screen (fixtures/eval): ksoftirqd at 93 %, curl at 32 %: no tool at one core.
    ['a kernel thread busy, the tool not', ticket('gh-rpios64-pi4-ksoftirqd0-93pct-curl')],
    ['a tool below one core', '  PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND\n 1 root 20 0 1 1 1 R 60.0 0.0 0:01.00 iperf3'],
    // Several threads' worth is not a single thread's ceiling.
    ['a tool over one core', '  PID USER PR NI VIRT RES SHR S %CPU %MEM TIME+ COMMAND\n 1 root 20 0 1 1 1 R 390.0 0.0 0:01.00 iperf3'],
    ['no table', 'iperf3 uses 100% of a core, I think'],
  ])('null for %s', (_, text) => {
    expect(readToolAtOneCore(text)).toBeNull();
  });
});
