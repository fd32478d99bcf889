import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { SosreportHostIO } from '../../src/hostio/sosreport.js';
import { scan } from '../../src/pipeline/scan.js';
import type { Report } from '../../src/report/schema.js';
import { analyzeText } from '../../src/text/analyze.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';

/**
 * An invariant over every report nicdoctor makes from the repository's fixtures: a share (of
 * packets, of interrupts, of entries) is never above 100 %. One above is a wrong denominator
 * (issue 17: mlx5 *_phy drops divided by the software packet counter), whatever the case.
 */

/** "12.5 % of 1000 packets", "51 % of the host's MSI interrupts": a share, where the whole is named. */
const SHARE_TEXT =
  /(\d+(?:\.\d+)?) % of (?:its |the |all )?(?:host's )?(?:\d+ )?(?:received |MSI )?(?:packets|interrupts|entries|the packets)/g;

function sharesAbove100(report: Report): string[] {
  const problems: string[] = [];
  const texts: Array<[string, string]> = [];
  for (const check of report.checks) {
    for (const finding of check.findings) {
      texts.push([`${check.id}/${finding.symptom} message`, finding.message]);
      for (const [field, value] of Object.entries(finding.data ?? {})) {
        if (typeof value !== 'number') continue;
        if (/^share$/i.test(field) && value > 1) problems.push(`${check.id}/${finding.symptom} data.${field} = ${value}`);
        if (/share.*percent|percent.*share/i.test(field) && value > 100)
          problems.push(`${check.id}/${finding.symptom} data.${field} = ${value}`);
      }
    }
  }
  for (const diagnosis of [...report.diagnoses, ...(report.notes ?? [])])
    for (const sentence of diagnosis.explanation) texts.push([`${diagnosis.ruleId} explanation`, sentence]);
  for (const [where, text] of texts)
    for (const match of text.matchAll(SHARE_TEXT)) if (Number(match[1]) > 100) problems.push(`${where}: "${match[0]}"`);
  return problems;
}

const dirs = (root: string, marker: string) =>
  existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(path.join(root, name, marker)))
        .sort()
    : [];

const evalRoot = path.join(FIXTURES, 'eval');
const hostsRoot = path.join(FIXTURES, 'hosts');
const textRoot = path.join(FIXTURES, 'text');
const evalCases = dirs(evalRoot, 'input');
const hostCases = dirs(hostsRoot, 'snapshot.json');
const texts = existsSync(textRoot)
  ? readdirSync(textRoot)
      .filter((name) => name.endsWith('.txt'))
      .sort()
  : [];

describe('no share above 100 % in any report from the fixtures', () => {
  it('finds fixtures to check', () => {
    expect(evalCases.length + hostCases.length + texts.length).toBeGreaterThan(40);
  });

  it('SHARE_TEXT sees a share above 100 %', () => {
    expect([...'eth0: rx_discards_phy = 9 since the driver loaded (106.47 % of 845 received packets)'.matchAll(SHARE_TEXT)][0]?.[1]).toBe(
      '106.47',
    );
  });

  it.each(evalCases)('eval case %s', async (name) => {
    const io = await SosreportHostIO.open(path.join(evalRoot, name, 'input'));
    const { report } = await scan({ io, checks, log: silentLogger(), sourcePath: name });
    expect(sharesAbove100(report)).toEqual([]);
  });

  it.each(hostCases)('host scenario %s', async (name) => {
    const io = await SnapshotHostIO.open(path.join(hostsRoot, name));
    const { report } = await scan({ io, checks, log: silentLogger(), sourcePath: name });
    expect(sharesAbove100(report)).toEqual([]);
  });

  it.each(texts)('text %s', async (name) => {
    const outcomes = await analyzeText(readFileSync(path.join(textRoot, name), 'utf8'), { checks, log: silentLogger() });
    for (const { report } of outcomes) expect(sharesAbove100(report)).toEqual([]);
  });
});
