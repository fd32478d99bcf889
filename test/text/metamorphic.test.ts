import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { SosreportHostIO } from '../../src/hostio/sosreport.js';
import { scan } from '../../src/pipeline/scan.js';
import type { Report } from '../../src/report/schema.js';
import { analyzeText } from '../../src/text/analyze.js';
import { segment } from '../../src/text/segment.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { VARIANTS, sosreportAsText } from './variants.js';

/**
 * Metamorphic tests of the text path (issue 17, item 2): for every real text in fixtures/text
 * and every whole case in fixtures/eval (the directories are listed, so cases added later are
 * covered), each damaged copy a mailer, forum or person makes (variants.ts) must give the same
 * diagnosis: the diagnoses' rule ids and subjects, and the findings at warning or above.
 * Sosreport cases are also pasted as text (each output after its command at a prompt); that
 * text must be diagnosed as the sosreport is when every file of the sosreport went into it.
 * Everything runs in-process. A per-fixture table (variants generated / passed) is printed.
 *
 * analyzeText is a function of what segment() read (the segments, hosts and prose): a variant
 * that segments exactly as a text already analysed has that text's diagnosis, and is not
 * scanned again (`fullRun` below proves the shortcut on every variant of one fixture).
 * Failures that are not the segmenter's (facts the text path does not read yet) are listed,
 * each with its reason, in METAMORPHIC-KNOWN-WRONG.yaml: they must keep failing until fixed.
 */

const log = silentLogger();

/** What must not change: per host, the diagnoses (rule@subject) and the findings at warning+. */
function diagnosis(reports: readonly Report[]): string[] {
  return reports
    .flatMap((report, index) => [
      ...report.diagnoses.filter((item) => item.mode !== 'refuted').map((item) => `${index}: diagnosis ${item.ruleId}@${item.subject}`),
      ...report.checks.flatMap((check) =>
        check.findings
          .filter((finding) => finding.severity !== 'info')
          .map((finding) => `${index}: finding ${finding.check}/${finding.symptom}@${finding.subject}`),
      ),
    ])
    .sort();
}

/** What analyzeText reads of a text: equal inputs, equal diagnosis. */
function analysisInput(text: string): string {
  const { segments, hosts, prose } = segment(text);
  return JSON.stringify({
    hosts,
    prose,
    segments: segments.map(({ kind, host, iface, command, filtered, inline, windows, text: body }) => [
      kind,
      host,
      iface,
      command,
      filtered,
      inline,
      windows,
      body,
    ]),
  });
}
const analysed = new Map<string, string[]>();
let scansSaved = 0;

async function ofText(text: string, fullRun = false): Promise<string[]> {
  const key = analysisInput(text);
  const known = analysed.get(key);
  if (known && !fullRun) {
    scansSaved += 1;
    return known;
  }
  const result = diagnosis((await analyzeText(text, { checks, log })).map((outcome) => outcome.report));
  if (known) expect(result, 'a text that segments as another must be diagnosed as it is').toEqual(known);
  analysed.set(key, result);
  return result;
}

/** `<fixture> / <variant>` → why it still fails (not the segmenter's part). */
const knownWrong: Record<string, string> =
  parseYaml(readFileSync(path.join(import.meta.dirname, 'METAMORPHIC-KNOWN-WRONG.yaml'), 'utf8')) ?? {};

interface Row {
  fixture: string;
  generated: number;
  passed: number;
  skipped: string[];
  failed: string[];
}
const rows: Row[] = [];

/** Runs every variant of `text` against `expected`; returns the failures with what changed. */
async function runVariants(fixture: string, text: string, expected: string[], row: Row, fullRun = false): Promise<string[]> {
  const failures: string[] = [];
  for (const variant of VARIANTS) {
    const made = variant.make(text);
    if ('skip' in made) {
      row.skipped.push(`${variant.name}: ${made.skip}`);
      continue;
    }
    // A variant that changes nothing is not a variant (a text without tabs, with tabs stripped).
    if (made.text === text) continue;
    row.generated += 1;
    const got = await ofText(made.text, fullRun);
    const same = JSON.stringify(got) === JSON.stringify(expected);
    // A listed variant is a defect on record: it must keep failing until fixed, then leave the list.
    const reason = knownWrong[`${fixture} / ${variant.name}`];
    if (reason) {
      row.failed.push(`${variant.name} (known)`);
      expect(same, `${fixture} / ${variant.name}: now right, take it out of METAMORPHIC-KNOWN-WRONG.yaml`).toBe(false);
      continue;
    }
    if (same) row.passed += 1;
    else {
      row.failed.push(variant.name);
      const lost = expected.filter((item) => !got.includes(item));
      const gained = got.filter((item) => !expected.includes(item));
      failures.push(`${fixture} / ${variant.name}: lost [${lost.join(', ')}] gained [${gained.join(', ')}]`);
    }
  }
  return failures;
}

const textDir = path.join(FIXTURES, 'text');
const texts = readdirSync(textDir)
  .filter((name) => /\.(?:txt|json)$/.test(name))
  .sort();
const evalDir = path.join(FIXTURES, 'eval');
const cases = readdirSync(evalDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('metamorphic: damaged copies of real texts keep their diagnosis', () => {
  for (const name of texts) {
    it(
      name,
      async () => {
        const text = readFileSync(path.join(textDir, name), 'utf8');
        const row: Row = { fixture: `text/${name}`, generated: 0, passed: 0, skipped: [], failed: [] };
        rows.push(row);
        expect(await runVariants(name, text, await ofText(text), row, name === texts[0])).toEqual([]);
      },
      60_000,
    );
  }
});

describe('metamorphic: whole cases (sosreport and pasted text) keep their diagnosis', () => {
  for (const name of cases) {
    it(
      name,
      async () => {
        const dir = path.join(evalDir, name);
        const row: Row = { fixture: `eval/${name}`, generated: 0, passed: 0, skipped: [], failed: [] };
        rows.push(row);
        const failures: string[] = [];
        let pasted: string;
        let expected: string[];
        if (existsSync(path.join(dir, 'ticket.txt'))) {
          pasted = readFileSync(path.join(dir, 'ticket.txt'), 'utf8');
          expected = await ofText(pasted);
        } else {
          const io = await SosreportHostIO.open(path.join(dir, 'input'));
          const ofSosreport = diagnosis([(await scan({ io, checks, log })).report]);
          const asText = sosreportAsText(path.join(dir, 'input'));
          pasted = asText.text;
          const ofPasted = await ofText(pasted);
          if (asText.complete) {
            // Every output went into the text: it must read as the sosreport does.
            row.generated += 1;
            const same = JSON.stringify(ofPasted) === JSON.stringify(ofSosreport);
            const reason = knownWrong[`${name} / sosreport → pasted text`];
            if (same) row.passed += 1;
            else row.failed.push(`sosreport → pasted text${reason ? ' (known)' : ''}`);
            if (reason) expect(same, `${name}: now right, take it out of METAMORPHIC-KNOWN-WRONG.yaml`).toBe(false);
            else if (!same)
              failures.push(`${name} / sosreport → pasted text: sosreport [${ofSosreport.join(', ')}] text [${ofPasted.join(', ')}]`);
          } else
            row.skipped.push(
              `sosreport → pasted text: ${asText.leftOut.length} file(s) have no pasted form (${asText.leftOut.slice(0, 2).join(', ')}...): the text's own diagnosis is the baseline of its variants`,
            );
          expected = ofPasted;
        }
        failures.push(...(await runVariants(name, pasted, expected, row)));
        expect(failures).toEqual([]);
      },
      120_000,
    );
  }
});

afterAll(() => {
  const width = Math.max(...rows.map((row) => row.fixture.length));
  const lines = rows.map(
    (row) =>
      `${row.fixture.padEnd(width)}  ${String(row.generated).padStart(3)} generated  ${String(row.passed).padStart(3)} passed${row.failed.length ? `  FAILED: ${row.failed.join(', ')}` : ''}`,
  );
  const generated = rows.reduce((sum, row) => sum + row.generated, 0);
  const passed = rows.reduce((sum, row) => sum + row.passed, 0);
  console.log(
    `metamorphic variants per fixture\n${lines.join('\n')}\ntotal: ${rows.length} fixtures, ${generated} variants generated, ${passed} passed (${scansSaved} segmented as an analysed text and not scanned again)`,
  );
});
