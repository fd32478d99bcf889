import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { HashFileError, labelHashProblems, parseHashes, readHashes, sha256 } from '../../src/eval/hashes.js';
import { LabelError, loadCase, sourceFamily } from '../../src/eval/labels.js';
import { alarmsOf, runAnalyze, scoreAnalysis, scoreCase, type Alarm } from '../../src/eval/score.js';
import { EVAL_SETS, KNOWN_WRONG_FILE, type EvalSet } from '../../src/eval/sets.js';
import { MAX_CAUSE } from '../../src/domain/causes.js';
import { analyzeInProcess, evaluateCaseInProcess } from '../helpers/analyze-in-process.js';

/**
 * The labelled real-world evaluation sets (fixtures/eval/, tuned; fixtures/holdout/, held out):
 * every case must be RIGHT — all its expected diagnoses present, no forbidden or unaccounted
 * alarm — or listed in its set's KNOWN-WRONG.yaml. Same labels and matching code as
 * `npm run eval`, which prints the per-case table of both sets.
 *
 * The cases are analysed in this process (test/helpers/analyze-in-process.ts: the CLI's own
 * `main`, as its analysis worker runs it), not one `node dist/src/cli.js` each: the start-up was
 * most of the suite's time. "the spawned CLI" below runs the built CLI on a tree case and a
 * pasted-ticket case and requires the same alarms and result as the in-process path.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'src', 'cli.js');
const execFileAsync = promisify(execFile);

interface SetUnderTest {
  set: EvalSet;
  dir: string;
  caseNames: string[];
  /** Cases still wrong, with the reason (<set>/KNOWN-WRONG.yaml): they must stay wrong until fixed, then leave the list. */
  knownWrong: Record<string, string>;
}

/** A set's cases; the held-out directory may not exist yet (another branch adds its cases). */
function setUnderTest(set: EvalSet): SetUnderTest {
  const dir = path.join(root, set.dir);
  const caseNames = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'label.yaml')))
        .map((entry) => entry.name)
        .sort()
    : [];
  const knownWrongFile = path.join(dir, KNOWN_WRONG_FILE);
  const knownWrong: Record<string, string> = existsSync(knownWrongFile) ? (parseYaml(readFileSync(knownWrongFile, 'utf8')) ?? {}) : {};
  return { set, dir, caseNames, knownWrong };
}

const sets = EVAL_SETS.map(setUnderTest);
const tuned = sets.find((entry) => entry.set.name === 'tuned') as SetUnderTest;

for (const { set, dir, caseNames, knownWrong } of sets) {
  describe(`evaluation set ${set.name} (${set.dir})`, () => {
    it('lists as known-wrong only cases that exist, each with its reason', () => {
      for (const [name, reason] of Object.entries(knownWrong)) {
        expect(caseNames, name).toContain(name);
        expect(reason.length, name).toBeGreaterThan(20);
      }
    });

    it('gives every case its provenance and one input: a sosreport-style tree or a pasted ticket', async () => {
      for (const name of caseNames) {
        const evalCase = await loadCase(path.join(dir, name));
        expect(existsSync(path.join(dir, name, 'SOURCE.md')), `${name}/SOURCE.md`).toBe(true);
        if (evalCase.inputKind === 'tree')
          expect(existsSync(path.join(evalCase.input, 'sos_commands')), `${name}/input/sos_commands`).toBe(true);
      }
    });

    for (const name of caseNames.filter((candidate) => knownWrong[candidate] !== undefined)) {
      it(`${name} is still known to be wrong (remove it from ${set.dir}/${KNOWN_WRONG_FILE} once right)`, async () => {
        const result = await evaluateCaseInProcess(await loadCase(path.join(dir, name)));
        expect(result.error).toBeUndefined();
        expect(result.right, `${name} is now right: take it out of ${set.dir}/${KNOWN_WRONG_FILE}`).toBe(false);
      }, 90_000);
    }

    for (const name of caseNames.filter((candidate) => knownWrong[candidate] === undefined)) {
      it(`${name} is diagnosed right`, async () => {
        const evalCase = await loadCase(path.join(dir, name));
        const result = await evaluateCaseInProcess(evalCase);
        const detail = {
          error: result.error,
          missed: result.missed.map((item) => `cause ${item.cause}${item.subject ? ` on ${item.subject}` : ''}: ${item.why}`),
          falseAlarms: result.falseAlarms.map((alarm) => `${alarm.ruleId} (cause ${alarm.cause}) on ${alarm.subject}`),
        };
        expect(detail).toEqual({ error: undefined, missed: [], falseAlarms: [] });
        expect(result.right).toBe(true);
      }, 90_000);
    }
  });
}

describe('the spawned CLI (dist/src/cli.js) on the tuned set', () => {
  // The first case of each input kind: a sosreport-style tree and a pasted ticket.
  for (const kind of ['tree', 'ticket'] as const) {
    it(`gives the same alarms and result as the in-process analysis on the first ${kind} case`, async () => {
      const cases = await Promise.all(tuned.caseNames.map((name) => loadCase(path.join(tuned.dir, name))));
      const evalCase = cases.find((candidate) => candidate.inputKind === kind);
      expect(evalCase, `a ${kind} case in ${tuned.set.dir}`).toBeDefined();
      if (!evalCase) return;
      const spawned = await runAnalyze(cli, evalCase.input);
      const inProcess = await analyzeInProcess(evalCase.input);
      expect(spawned.error).toBeUndefined();
      expect(inProcess.error).toBeUndefined();
      expect(alarmsOf(inProcess.report)).toEqual(alarmsOf(spawned.report));
      expect(scoreAnalysis(evalCase, inProcess)).toEqual(scoreAnalysis(evalCase, spawned));
    }, 90_000); // above runAnalyze's own 60 s kill, so a hung analyze is reported as such
  }
});

describe('the corpus as a whole', () => {
  it('holds at least 22 tuned cases, 6 of them healthy', async () => {
    expect(tuned.caseNames.length).toBeGreaterThanOrEqual(22);
    const labels = await Promise.all(tuned.caseNames.map((name) => loadCase(path.join(tuned.dir, name))));
    expect(labels.filter((evalCase) => evalCase.label.verdict === 'healthy').length).toBeGreaterThanOrEqual(6);
  });

  it('keeps the held-out set source-disjoint from the tuned one', async () => {
    const familiesOf = async (entry: SetUnderTest): Promise<Map<string, string>> => {
      const families = new Map<string, string>();
      for (const name of entry.caseNames) families.set(sourceFamily((await loadCase(path.join(entry.dir, name))).label.source), name);
      return families;
    };
    const [tunedFamilies, ...others] = await Promise.all(sets.map(familiesOf));
    const shared = others.flatMap((families) =>
      [...families]
        .filter(([family]) => tunedFamilies?.has(family))
        .map(([family, name]) => `${family}: ${name} and ${tunedFamilies?.get(family)}`),
    );
    expect(shared).toEqual([]);
  });

  it('has the recorded hash of every label of both sets (a changed label changes fixtures/LABEL-HASHES in the same commit)', async () => {
    const labelPaths = sets.flatMap((entry) => entry.caseNames.map((name) => path.join(entry.set.dir, name, 'label.yaml')));
    expect(await labelHashProblems(root, labelPaths, await readHashes(root))).toEqual([]);
  });
});

describe('label validation and matching', () => {
  const temp: string[] = [];
  afterAll(async () => {
    for (const dir of temp) await rm(dir, { recursive: true, force: true });
  });

  async function caseWith(label: string, input: 'tree' | 'ticket' | 'both' | 'none' = 'tree'): Promise<string> {
    const base = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-eval-'));
    temp.push(base);
    const dir = path.join(base, 'c1');
    await mkdir(dir);
    if (input === 'tree' || input === 'both') await mkdir(path.join(dir, 'input', 'sos_commands'), { recursive: true });
    if (input === 'ticket' || input === 'both') await writeFile(path.join(dir, 'ticket.txt'), '# ethtool eth0\n');
    await writeFile(path.join(dir, 'label.yaml'), label);
    return dir;
  }
  const head = 'case: c1\nsource: list:netdev\nenvironment: vm\nreasoning: r\n';

  it('rejects unknown keys, causes outside the catalogue (src/domain/causes.ts) and expectations without why', async () => {
    await expect(
      loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: 7\n    why: x\n    severity: high\n`)),
    ).rejects.toThrow(LabelError);
    await expect(loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: ${MAX_CAUSE + 1}\n    why: x\n`))).rejects.toThrow(
      /cause/,
    );
    await expect(loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: 0\n    why: x\n`))).rejects.toThrow(/cause/);
    await expect(loadCase(await caseWith(`${head}verdict: fault\nexpect:\n  - cause: 7\n`))).rejects.toThrow(/why/);
    await expect(loadCase(await caseWith(`${head}verdict: healthy\nexpects: []\n`))).rejects.toThrow(LabelError);
    await expect(loadCase(await caseWith(`${head}verdict: healthy\nexpect:\n  - cause: 7\n    why: x\n`))).rejects.toThrow(/healthy/);
    await expect(
      loadCase(await caseWith(`case: other\nsource: list:netdev\nenvironment: vm\nverdict: healthy\nreasoning: r\n`)),
    ).rejects.toThrow(/directory/);
  });

  it('requires a source family id', async () => {
    await expect(loadCase(await caseWith(`case: c1\nenvironment: vm\nverdict: healthy\nreasoning: r\n`))).rejects.toThrow(/source/);
    for (const bad of ['netdev', 'mail:netdev', 'https://lore.kernel.org/netdev/', 'repo:a/b/c', 'list:'])
      await expect(loadCase(await caseWith(head.replace('list:netdev', bad) + 'verdict: healthy\n')), bad).rejects.toThrow(/source/);
    const evalCase = await loadCase(await caseWith(head.replace('list:netdev', 'github:NVIDIA/l2fwd-nv') + 'verdict: healthy\n'));
    expect(evalCase.label.source).toBe('github:NVIDIA/l2fwd-nv');
  });

  it("counts a repository's test data and its issue threads as one source family", () => {
    expect(sourceFamily('repo:isc-projects/ethq')).toBe(sourceFamily('github:ISC-Projects/ethq'));
    expect(sourceFamily('list:netdev')).not.toBe(sourceFamily('list:intel-wired-lan'));
    expect(sourceFamily('forum:serverfault')).toBe('forum:serverfault');
  });

  it('takes input/ or ticket.txt, exactly one of them', async () => {
    const ticket = await loadCase(await caseWith(`${head}verdict: healthy\n`, 'ticket'));
    expect([ticket.inputKind, path.basename(ticket.input)]).toEqual(['ticket', 'ticket.txt']);
    const tree = await loadCase(await caseWith(`${head}verdict: healthy\n`, 'tree'));
    expect([tree.inputKind, path.basename(tree.input)]).toEqual(['tree', 'input']);
    await expect(loadCase(await caseWith(`${head}verdict: healthy\n`, 'both'))).rejects.toThrow(/exactly one/);
    await expect(loadCase(await caseWith(`${head}verdict: healthy\n`, 'none'))).rejects.toThrow(/exactly one/);
  });

  it('reads sha256sum lines and names labels without a line or with another hash', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-hashes-'));
    temp.push(base);
    await mkdir(path.join(base, 'fixtures', 'eval', 'a'), { recursive: true });
    await mkdir(path.join(base, 'fixtures', 'eval', 'b'), { recursive: true });
    await writeFile(path.join(base, 'fixtures', 'eval', 'a', 'label.yaml'), 'case: a\n');
    await writeFile(path.join(base, 'fixtures', 'eval', 'b', 'label.yaml'), 'case: b\n');
    const labelA = path.join('fixtures', 'eval', 'a', 'label.yaml');
    const labelB = path.join('fixtures', 'eval', 'b', 'label.yaml');
    await writeFile(path.join(base, 'fixtures', 'LABEL-HASHES'), `${sha256('case: a\n')}  ${labelA}\n`);
    // The held-out part may come in its own file; both are read.
    await mkdir(path.join(base, 'fixtures', 'holdout'));
    await writeFile(path.join(base, 'fixtures', 'holdout', 'LABEL-HASHES.part'), `${sha256('case: B\n')} *${labelB}\n`);
    const problems = await labelHashProblems(base, [labelA, labelB, 'fixtures/eval/c/label.yaml'], await readHashes(base));
    expect(problems).toEqual([
      expect.stringMatching(/b\/label.yaml: sha256 [0-9a-f]{64} but/),
      expect.stringMatching(/c\/label.yaml: no line/),
    ]);
    expect(() => parseHashes('abc  x\n', 'F')).toThrow(HashFileError);
    expect(() => parseHashes(`${sha256('1')}  x\n${sha256('2')}  x\n`, 'F')).toThrow(/two hashes/);
  });

  it('scores expected, allowed, forbidden and unaccounted alarms', async () => {
    const evalCase = await loadCase(
      await caseWith(
        `${head}verdict: fault\nexpect:\n  - cause: 7\n    subject: eth0\n    rules: [nic-drops]\n    why: drops\nallow:\n  - cause: 14\n    why: fc\nforbid:\n  - cause: 7\n    subject: br0\n    why: bridge\n`,
      ),
    );
    const alarm = (ruleId: string, cause: number, subject: string, severity = 'warning'): Alarm => ({
      ruleId,
      cause,
      subject,
      severity,
      mode: 'static',
    });
    const right = scoreCase(evalCase, [alarm('nic-drops', 7, 'eth0'), alarm('flow-control-off', 14, 'eth0')]);
    expect([right.right, right.expectedFound, right.expectedFoundAtWarning]).toEqual([true, 1, 1]);
    // Found, but only from info findings: right, yet not "at warning or above".
    const quiet = scoreCase(evalCase, [alarm('nic-drops', 7, 'eth0', 'info')]);
    expect([quiet.right, quiet.expectedFound, quiet.expectedFoundAtWarning]).toEqual([true, 1, 0]);
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

  it('takes the alarms of every report when a text gave one per host', () => {
    const one = { diagnoses: [{ ruleId: 'nic-drops', cause: 7, subject: 'eth0', confidence: 'high', mode: 'static' }] };
    const two = { diagnoses: [{ ruleId: 'rss-single-queue', cause: 6, subject: 'eth1', confidence: 'high', mode: 'static' }] };
    expect(alarmsOf([one, two]).map((alarm) => alarm.ruleId)).toEqual(['nic-drops', 'rss-single-queue']);
  });
});

describe('scripts/eval.mjs', () => {
  const script = path.join(root, 'scripts', 'eval.mjs');
  const temp: string[] = [];
  afterAll(async () => {
    for (const dir of temp) await rm(dir, { recursive: true, force: true });
  });

  it('exits 2 naming the argument on a bad option or an unknown case', () => {
    const unknownOption = spawnSync(process.execPath, [script, '--frobnicate'], { encoding: 'utf8' });
    expect([unknownOption.status, unknownOption.stderr]).toEqual([2, expect.stringContaining('--frobnicate')]);
    const missingDir = spawnSync(process.execPath, [script, '--cases'], { encoding: 'utf8' });
    expect([missingDir.status, missingDir.stderr]).toEqual([2, expect.stringContaining('--cases needs a directory')]);
    const unknownCase = spawnSync(process.execPath, [script, 'no-such-case'], { encoding: 'utf8' });
    expect([unknownCase.status, unknownCase.stderr]).toEqual([2, expect.stringContaining('no-such-case')]);
  });

  it('scores a --cases directory holding a pasted-ticket case and prints its totals line', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-evalscript-'));
    temp.push(base);
    const dir = path.join(base, 'set', 'vm-ticket');
    await mkdir(dir, { recursive: true });
    // A real healthy output (the local VM's ethtool -i) pasted under its prompt, as a ticket would hold it.
    const output = readFileSync(
      path.join(root, 'fixtures', 'eval', 'local-vm-debian12-kvm-virtio-veth', 'input', 'sos_commands', 'networking', 'ethtool_-i_eth0'),
      'utf8',
    );
    await writeFile(path.join(dir, 'ticket.txt'), `$ ethtool -i eth0\n${output}`);
    await writeFile(
      path.join(dir, 'label.yaml'),
      'case: vm-ticket\nsource: local:shared-capture-vm\nenvironment: vm\nverdict: healthy\nreasoning: r\n',
    );
    // The JSON and the text run are independent: side by side they cost one run's wait.
    const [{ stdout: out }, { stdout: text }] = await Promise.all([
      execFileAsync(process.execPath, [script, '--cases', path.join(base, 'set'), '--json'], { encoding: 'utf8', timeout: 80_000 }),
      execFileAsync(process.execPath, [script, '--cases', path.join(base, 'set')], { encoding: 'utf8', timeout: 80_000 }),
    ]);
    const parsed = JSON.parse(out) as { sets: { name: string; totals: { cases: number; errors: number } }[] };
    expect(parsed.sets.map((set) => [set.name, set.totals.cases, set.totals.errors])).toEqual([['set', 1, 0]]);
    expect(text).toMatch(
      /^set: cases right \d\/1; recall 0\/0 \(n\/a\); at warning or above 0\/0 \(n\/a\); false alarms \d+; analyze errors 0$/m,
    );
  }, 90_000);
});
