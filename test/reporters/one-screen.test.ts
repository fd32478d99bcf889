/**
 * The terminal report fits on one screen: over the repository's real pasted-text captures
 * (fixtures/text, through `nicdoctor analyze` as a user runs it), the median report is at most
 * 40 lines, and no command is asked for twice. `--short` stops after the diagnoses.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { commandParts, hintCommands, missingOutputs } from '../../src/reporters/missing-outputs.js';
import { cliArgv, cliPath } from '../../lab/executable.js';
import { median } from '../../src/util/stats.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { scanScenario } from '../helpers/scenario-reports.js';

const ROOT = path.resolve(FIXTURES, '..');
const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');
const TEXTS = path.join(FIXTURES, 'text');
const MAX_MEDIAN_LINES = 40;

async function analyze(file: string, extra: string[] = []): Promise<string> {
  const [bin, ...rest] = cliArgv(CLI, ['analyze', file, ...extra]);
  try {
    const { stdout } = await promisify(execFile)(bin!, rest, {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
      env: { ...process.env, PATH: cliPath(process.env.PATH ?? ''), NO_COLOR: '1' },
    });
    return stdout;
  } catch (error) {
    // Exit 1 is a finding at --fail-on; the report is on stdout all the same.
    return (error as { stdout: string }).stdout;
  }
}

const captures = readdirSync(TEXTS)
  .filter((name) => name.endsWith('.txt'))
  .sort();

/** The commands a report prints for the user to run: its "$ ..." lines, split into their parts. */
function askedCommands(report: string): string[] {
  return report
    .split('\n')
    .filter((line) => /^ {2}\$ /.test(line))
    .flatMap((line) => commandParts(line.slice(4).replace(/ {2,}\S.*$/, '')));
}

describe('one screen by default', () => {
  it('covers the real text captures', () => {
    expect(captures.length).toBeGreaterThanOrEqual(20);
  });

  it(`the median terminal report over the real text captures is at most ${MAX_MEDIAN_LINES} lines, and no command is asked for twice`, async () => {
    const counts: number[] = [];
    for (const name of captures) {
      const output = await analyze(path.join(TEXTS, name));
      expect(output, name).toMatch(/^nicdoctor /);
      // A capture of several hosts or runs is one report each, one after the other.
      for (const report of output.split(/\n(?=nicdoctor )/)) {
        counts.push(report.trimEnd().split('\n').length);
        const asked = askedCommands(report);
        const repeated = asked.filter((command, index) => asked.indexOf(command) !== index);
        expect(repeated, `${name} asks twice for`).toEqual([]);
      }
    }
    expect(median(counts)).toBeLessThanOrEqual(MAX_MEDIAN_LINES);
  }, 600_000);

  it('--short is the verdict and the diagnoses; --verbose keeps every check', async () => {
    const file = path.join(TEXTS, 'seed-002-10g-stuck-3.5-pcie-x1.txt');
    const short = await analyze(file, ['--short']);
    expect(short).toMatch(/Most likely bottleneck: /);
    expect(short).toMatch(/Diagnoses, most likely first:/);
    expect(short).not.toMatch(/Not examined|Interfaces:|Findings:/);
    const full = await analyze(file);
    // The PCIe fix is printed once, under its diagnosis; the finding points at it.
    expect(full.match(/Move the card to an electrically/g)).toHaveLength(1);
    expect(full).toMatch(/\(fix: see diagnosis 1\)/);
    expect(full).toMatch(/^ {2}interface +kind +speed +PCIe$/m);
    expect(full).toMatch(/^ {2}unnamed-nic +physical +10G \(prose\) +Gen2 x1$/m);
    const verbose = await analyze(file, ['--verbose']);
    expect(verbose.split('\n').length).toBeGreaterThan(full.split('\n').length);
    expect(verbose).toMatch(/^Checks:$/m);
  }, 120_000);
});

describe('missing outputs, grouped by command', () => {
  it('splits compound commands on top-level semicolons only', () => {
    expect(commandParts('ls /sys/class/net/eth0/device/msi_irqs; cat /proc/interrupts')).toEqual([
      'ls /sys/class/net/eth0/device/msi_irqs',
      'cat /proc/interrupts',
    ]);
    expect(commandParts(`grep -E 'a;b' x`)).toEqual([`grep -E 'a;b' x`]);
    expect(commandParts('iperf3 -c <server>   (and the same with -R; the text output is fine)')).toHaveLength(1);
  });

  it("takes a hint's backquoted commands, not nicdoctor itself", () => {
    expect(hintCommands('capture `ethtool -S p3p1` and `ip -s -d link` (sos plugin: networking)')).toEqual([
      'ethtool -S p3p1',
      'ip -s -d link',
    ]);
    expect(hintCommands('run `nicdoctor collect` on the host')).toEqual([]);
    expect(hintCommands('install ethtool: apt-get install ethtool')).toEqual([]);
  });

  it('a real snapshot: one entry per command, each naming every check it decides', async () => {
    const { report } = await scanScenario('mlx5-irq-concentration');
    const missing = missingOutputs(report);
    const commands = missing.filter((entry) => entry.command).map((entry) => entry.what);
    expect(new Set(commands).size).toBe(commands.length);
    const unknown = report.checks.filter((check) => check.status === 'unknown').map((check) => check.id);
    for (const id of unknown)
      expect(
        missing.some((entry) => entry.checks.includes(id)),
        id,
      ).toBe(true);
  });
});
