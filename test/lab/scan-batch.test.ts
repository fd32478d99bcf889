/**
 * Batched commands record the same facts: a 64-interface namespace host collected and scanned
 * with every command in a child process of its own (NICDOCTOR_EXEC_BATCH=0, the path before
 * batching) and with the collectors' commands shared through a few shells. The bundle holds
 * the same command outputs under the same names, and every check ends in the same state, live
 * and when the bundle is analysed. One veth pair carries shell syntax in its names.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.js';
import { CLI, parseReport, toolPath } from '../../lab/cli.js';
import { findTool, labAvailable } from '../../lab/lab.js';
import { createManyLinks, removeStaleManyLinks, type ManyLinks } from '../../lab/many-links.js';

const skipReason = labAvailable(['ip', 'ethtool']);
if (skipReason) console.warn(`scan-batch lab tests skipped: ${skipReason}`);

const PREFIX = 'ndps';
/**
 * Shell syntax in interface names (15 bytes, no spaces): a quote that ends a word, a separator,
 * command substitution, and redirections that would create a file where the scan runs.
 */
const HOSTILE = [`h';>ndpsz;'`, 'h"`>ndpsy`$(a)'];

async function cli(ns: string, args: string[], batch: boolean) {
  const result = await execa(findTool('ip')!, ['netns', 'exec', ns, process.execPath, CLI, ...args], {
    reject: false,
    timeout: 240_000,
    stdin: 'ignore',
    extendEnv: false,
    cwd: os.tmpdir(),
    env: { PATH: toolPath(), LANG: 'C', NO_COLOR: '1', ...(batch ? {} : { NICDOCTOR_EXEC_BATCH: '0' }) },
  });
  expect([0, 1], `${args.join(' ')}: exit ${result.exitCode}: ${String(result.stderr)}`).toContain(result.exitCode);
  return String(result.stdout);
}

/** Each check's state and its subjects' states, by check id. */
function states(report: Report): Record<string, string> {
  return Object.fromEntries(
    report.checks.map((check) => [
      check.id,
      [check.status, ...check.subjects.map((subject) => `${subject.subject}=${subject.status}`)].join(' '),
    ]),
  );
}

/** The snapshot's recorded commands: file name → exit code and output shape (counters move between runs). */
function commands(snapshot: string): Record<string, string> {
  const dir = path.join(snapshot, 'cmd');
  const recorded: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const text = readFileSync(path.join(dir, name), 'utf8');
    recorded[name] = name.endsWith('.json') && text.includes('"argv"') ? text.replace(/"durationMs": \d+/, '') : text;
    // Counters change between the two collections, and `ip -s` right-aligns them in columns, so
    // a number with one digit more shifts its row: the shape is the text with numbers and runs of
    // spaces each reduced to one token.
    recorded[name] = recorded[name].replace(/\d+/g, '#').replace(/ +/g, ' ');
  }
  return recorded;
}

describe.skipIf(skipReason)('a scan with batched commands records what the one-process-per-command path records', () => {
  let host: ManyLinks;
  const work = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-lab-batch-'));
  const snapshots = { single: path.join(work, 'single'), batched: path.join(work, 'batched') };

  beforeAll(async () => {
    removeStaleManyLinks(PREFIX);
    host = createManyLinks(62, PREFIX);
    await execa(findTool('ip')!, ['-n', host.ns, 'link', 'add', HOSTILE[0]!, 'type', 'veth', 'peer', 'name', HOSTILE[1]!]);
    for (const name of HOSTILE) await execa(findTool('ip')!, ['-n', host.ns, 'link', 'set', name, 'up']);
    await cli(host.ns, ['collect', '--output', snapshots.single], false);
    await cli(host.ns, ['collect', '--output', snapshots.batched], true);
  }, 600_000);
  afterAll(() => {
    host?.destroy();
    rmSync(work, { recursive: true, force: true });
  });

  it('records the same commands under the same names, with the same exit codes and output shape', () => {
    const single = commands(snapshots.single);
    const batched = commands(snapshots.batched);
    expect(Object.keys(batched)).toEqual(Object.keys(single));
    expect(Object.keys(batched).filter((name) => name.startsWith('ethtool')).length).toBeGreaterThan(64);
    for (const name of Object.keys(single)) expect(batched[name], name).toBe(single[name]);
  });

  it('gives every check the same state live and from the bundle, hostile names included', async () => {
    const live = {
      single: parseReport(await cli(host.ns, ['scan', '--format', 'json'], false)),
      batched: parseReport(await cli(host.ns, ['scan', '--format', 'json'], true)),
    };
    expect(live.batched.interfaces.map((iface) => iface.name).sort()).toEqual(live.single.interfaces.map((iface) => iface.name).sort());
    expect(live.batched.interfaces.map((iface) => iface.name)).toEqual(expect.arrayContaining(HOSTILE));
    expect(live.batched.interfaces).toHaveLength(64);
    expect(states(live.batched)).toEqual(states(live.single));
    const analysed = parseReport(await cli(host.ns, ['analyze', snapshots.batched, '--format', 'json'], true));
    expect(states(analysed)).toEqual(states(live.single));
    // The names reached ethtool as words: nothing ran what they spell.
    expect(readdirSync(os.tmpdir())).not.toEqual(expect.arrayContaining(['ndpsz']));
    expect(readdirSync(os.tmpdir())).not.toEqual(expect.arrayContaining(['ndpsy']));
  }, 600_000);
});
