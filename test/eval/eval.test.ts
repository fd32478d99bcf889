import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LabelError, loadCase } from '../../src/eval/labels.js';
import { alarmsOf, evaluateCase, scoreCase, type Alarm } from '../../src/eval/score.js';

/**
 * The labelled real-world evaluation set (fixtures/eval/): every case must be RIGHT — all its
 * expected diagnoses present, no forbidden or unaccounted alarm. Same labels and matching code
 * as `npm run eval`, which prints the per-case table.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'src', 'cli.js');
const casesRoot = path.join(root, 'fixtures', 'eval');
const caseNames = readdirSync(casesRoot, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(path.join(casesRoot, entry.name, 'label.yaml')))
  .map((entry) => entry.name)
  .sort();

/** Cases still wrong, with the reason (fixtures/eval/KNOWN-WRONG.yaml): they must stay wrong until fixed, then leave the list. */
const knownWrong: Record<string, string> = parseYaml(readFileSync(path.join(casesRoot, 'KNOWN-WRONG.yaml'), 'utf8')) ?? {};

describe('evaluation set', () => {
  it('lists as known-wrong only cases that exist, each with its reason', () => {
    for (const [name, reason] of Object.entries(knownWrong)) {
      expect(caseNames, name).toContain(name);
      expect(reason.length, name).toBeGreaterThan(20);
    }
  });

  it('holds at least 22 cases, 6 of them healthy', async () => {
    expect(caseNames.length).toBeGreaterThanOrEqual(22);
    const labels = await Promise.all(caseNames.map((name) => loadCase(path.join(casesRoot, name))));
    expect(labels.filter((evalCase) => evalCase.label.verdict === 'healthy').length).toBeGreaterThanOrEqual(6);
    // Provenance and the sosreport shape are part of a case, not optional.
    for (const name of caseNames) {
      expect(existsSync(path.join(casesRoot, name, 'SOURCE.md')), `${name}/SOURCE.md`).toBe(true);
      expect(existsSync(path.join(casesRoot, name, 'input', 'sos_commands')), `${name}/input/sos_commands`).toBe(true);
    }
  });

  for (const name of caseNames.filter((candidate) => knownWrong[candidate] !== undefined)) {
    it(`${name} is still known to be wrong (remove it from KNOWN-WRONG.yaml once right)`, async () => {
      const result = await evaluateCase(cli, await loadCase(path.join(casesRoot, name)));
      expect(result.error).toBeUndefined();
      expect(result.right, `${name} is now right: take it out of fixtures/eval/KNOWN-WRONG.yaml`).toBe(false);
    }, 90_000);
  }

  for (const name of caseNames.filter((candidate) => knownWrong[candidate] === undefined)) {
    it(`${name} is diagnosed right`, async () => {
      const evalCase = await loadCase(path.join(casesRoot, name));
      const result = await evaluateCase(cli, evalCase);
      const detail = {
        error: result.error,
        missed: result.missed.map((item) => `cause ${item.cause}${item.subject ? ` on ${item.subject}` : ''}: ${item.why}`),
        falseAlarms: result.falseAlarms.map((alarm) => `${alarm.ruleId} (cause ${alarm.cause}) on ${alarm.subject}`),
      };
      expect(detail).toEqual({ error: undefined, missed: [], falseAlarms: [] });
      expect(result.right).toBe(true);
    }, 90_000); // above runAnalyze's own 60 s kill, so a hung analyze is reported as such
  }
});

describe('label validation and matching', () => {
  const temp: string[] = [];
  afterAll(async () => {
    for (const dir of temp) await rm(dir, { recursive: true, force: true });
  });

  async function caseWith(label: string): Promise<string> {
    const base = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-eval-'));
    temp.push(base);
    const dir = path.join(base, 'c1');
    await mkdir(path.join(dir, 'input', 'sos_commands'), { recursive: true });
    await writeFile(path.join(dir, 'label.yaml'), label);
    return dir;
  }
  const head = 'case: c1\nenvironment: vm\nreasoning: r\n';

  it('rejects unknown keys, causes outside 1-20 and expectations without why', async () => {
    await expect(
      loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: 7\n    why: x\n    severity: high\n`)),
    ).rejects.toThrow(LabelError);
    await expect(loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: 21\n    why: x\n`))).rejects.toThrow(/cause/);
    await expect(loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: 7\n`))).rejects.toThrow(/why/);
    await expect(loadCase(await caseWith(`${head}verdict: healthy\nexpects: []\n`))).rejects.toThrow(LabelError);
    await expect(loadCase(await caseWith(`${head}verdict: healthy\nexpect:\n  - cause: 7\n    why: x\n`))).rejects.toThrow(/healthy/);
    await expect(loadCase(await caseWith(`case: other\nenvironment: vm\nverdict: healthy\nreasoning: r\n`))).rejects.toThrow(/directory/);
  });

  it('scores expected, allowed, forbidden and unaccounted alarms', async () => {
    const evalCase = await loadCase(
      await caseWith(
        `${head}verdict: fault\nexpect:\n  - cause: 7\n    subject: eth0\n    rules: [nic-drops]\n    why: drops\nallow:\n  - cause: 14\n    why: fc\nforbid:\n  - cause: 7\n    subject: br0\n    why: bridge\n`,
      ),
    );
    const alarm = (ruleId: string, cause: number, subject: string): Alarm => ({ ruleId, cause, subject, mode: 'static' });
    expect(scoreCase(evalCase, [alarm('nic-drops', 7, 'eth0'), alarm('flow-control-off', 14, 'eth0')]).right).toBe(true);
    // The right cause through a rule the label does not accept is a miss and an unaccounted alarm.
    const wrongRule = scoreCase(evalCase, [alarm('rings-below-max', 7, 'eth0')]);
    expect([wrongRule.right, wrongRule.expectedFound, wrongRule.falseAlarms.length]).toEqual([false, 0, 1]);
    const forbidden = scoreCase(evalCase, [alarm('nic-drops', 7, 'eth0'), alarm('nic-drops', 7, 'br0'), alarm('mtu-mismatch', 11, 'host')]);
    expect(forbidden.falseAlarms.map((item) => item.subject)).toEqual(['br0', 'host']);
    expect(forbidden.right).toBe(false);
  });

  it('takes every diagnosis the measurement did not refute as an alarm, and nothing else', () => {
    const report = {
      diagnoses: [
        { ruleId: 'nic-drops', cause: 7, subject: 'eth0', confidence: 'high', mode: 'static' },
        { ruleId: 'rss-single-queue', cause: 6, subject: 'eth0', confidence: 'high', mode: 'refuted' },
      ],
      notes: [{ ruleId: 'smt-active', cause: 13, subject: 'host', mode: 'static' }],
    };
    expect(alarmsOf(report).map((alarm) => alarm.ruleId)).toEqual(['nic-drops']);
    expect(() => alarmsOf({ checks: [] })).toThrow(/diagnoses/);
  });
});
