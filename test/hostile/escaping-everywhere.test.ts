/**
 * One hostile host name, interface name, file name and evidence string through every command
 * and every output format (issue 18.2): terminal text shows controls instead of obeying them,
 * HTML has no raw ESC/BEL and no markup from the evidence, Markdown has no raw HTML outside
 * code, JUnit is valid XML (parsed with fast-xml-parser), JSON keeps the data exactly.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checks } from '../../checks/index.js';
import { diffInputs, DIFF_FORMATS, renderDiff } from '../../src/diff/diff.js';
import { buildFleet } from '../../src/fleet/fleet.js';
import { loadInput } from '../../src/fleet/inputs.js';
import { FLEET_FORMATS, renderFleet } from '../../src/fleet/render.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { scan } from '../../src/pipeline/scan.js';
import type { Report } from '../../src/report/schema.js';
import { inertMarkdown } from '../../src/reporters/escape.js';
import { FORMATS, render } from '../../src/reporters/index.js';
import { loadRules } from '../../src/rules/loader.js';
import { silentLogger } from '../../src/util/log.js';
import { runCli } from '../../lab/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { copyWithInterfaceRenamed } from './helpers.js';

// Each test runs the built CLI several times: seconds apiece on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

/** OSC title, BEL, clear screen, HTML that runs script, a table pipe, a one-byte CSI. */
const HOSTNAME = '\u001b]0;owned\u0007\u001b[2J<img src=x onerror=alert(1)>|&amp;\u009b';
/** Kernel-valid (15 bytes, no space, / or :): ESC, a backtick, HTML. */
const IFACE = '\u001b[2J`<b>x';
/** A report's file name: fleet and diff name hosts after it. */
const FILE_HOST = '\u001b[2J<img src=x onerror=alert(2)>\u0007';
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let dir: string;
let report: Report;
let reportFile: string;
let otherFile: string;

beforeAll(async () => {
  const root = await copyWithInterfaceRenamed(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), 'eth0', IFACE);
  dir = path.dirname(root);
  const manifestFile = path.join(root, 'snapshot.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { inventory: { hostname: string } };
  manifest.inventory.hostname = HOSTNAME;
  await writeFile(manifestFile, JSON.stringify(manifest));
  ({ report } = await scan({ io: await SnapshotHostIO.open(root), checks, log: silentLogger() }));
  // Evidence text too: a finding's message as a recorded error would carry it.
  const finding = report.checks.flatMap((check) => check.findings)[0]!;
  finding.message = `${finding.message} ${HOSTNAME}`;
  reportFile = path.join(dir, `${FILE_HOST}.json`);
  otherFile = path.join(dir, `other${FILE_HOST}.json`);
  await writeFile(reportFile, JSON.stringify(report));
  await writeFile(otherFile, JSON.stringify({ ...report, host: { ...report.host, hostname: `${HOSTNAME}2` } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Markdown with its code (fenced blocks, single-backtick spans) taken out: what a renderer reads as text or HTML. */
function markdownOutsideCode(markdown: string): string {
  return markdown
    .replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, '')
    .split('\n')
    .map((line) => line.replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, ''))
    .join('\n');
}

function expectInert(format: string, text: string): void {
  if (format === 'json') return;
  expect(text, format).not.toMatch(RAW_CONTROLS);
  // Made visible instead.
  expect(text, format).toContain('\\x1b');
  if (format === 'html') {
    expect(text).not.toMatch(/<img|<b>x/);
    expect(text).toContain('&lt;img src=x onerror=alert(');
  }
  if (format === 'markdown') {
    expect(markdownOutsideCode(text)).not.toMatch(/<img|<b>/);
    expect(text).toContain('&lt;img src=x onerror=alert(');
  }
  if (format === 'junit') {
    expect(XMLValidator.validate(text)).toBe(true);
    expect(JSON.stringify(new XMLParser({ ignoreAttributes: false }).parse(text))).toContain('onerror=alert(');
  }
}

describe('scan and analyze reports, every format', () => {
  it.each(FORMATS.map((format) => [format]))('%s', (format) => {
    const text = render(report, format, { color: false });
    expectInert(format, text);
    if (format === 'json') expect((JSON.parse(text) as Report).host.hostname).toBe(HOSTNAME);
  });

  it('the built CLI writes the same inert markdown and HTML, and an error quoting a file name shows its controls', async () => {
    for (const format of ['markdown', 'html', 'terminal']) {
      const run = await runCli(['analyze', path.join(dir, 'snap'), '--format', format], { timeoutMs: 60_000 });
      expect([0, 1], run.stderr).toContain(run.exitCode);
      expectInert(format, run.stdout);
    }
    const missing = await runCli(['analyze', path.join(dir, `${FILE_HOST}-missing`)], { timeoutMs: 60_000 });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).not.toMatch(RAW_CONTROLS);
    expect(missing.stderr).toContain('\\x1b[2J');
  });
});

describe('fleet, every format', () => {
  it.each(FLEET_FORMATS.map((format) => [format]))('%s', async (format) => {
    const fleet = buildFleet([await loadInput(reportFile), await loadInput(otherFile)], 'critical');
    const text = renderFleet(fleet, format);
    expectInert(format, text);
    if (format === 'junit') {
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(text) as {
        testsuites: { testsuite: Array<{ testcase: Array<{ '@name': string }> | { '@name': string } }> };
      };
      const hosts = [doc.testsuites.testsuite[0]!.testcase].flat().map((testcase) => testcase['@name']);
      expect(hosts).toContain('\\x1b[2J<img src=x onerror=alert(2)>\\x07');
    }
  });
});

describe('diff, every format', () => {
  it.each(DIFF_FORMATS.map((format) => [format]))('%s', async (format) => {
    const text = renderDiff(diffInputs(await loadInput(reportFile), await loadInput(otherFile), checks, loadRules()), format);
    expectInert(format, text);
  });
});

describe('inertMarkdown', () => {
  it('leaves code alone and escapes HTML everywhere a renderer would read it', () => {
    expect(inertMarkdown('# <img src=x> & `<b>` ``a`<i>`b``')).toBe('# &lt;img src=x&gt; &amp; `<b>` ``a`<i>`b``');
    // An escaped backtick opens no code span: what follows is text.
    expect(inertMarkdown('\\`<img src=x onerror=y>`')).toBe('\\`&lt;img src=x onerror=y&gt;`');
    // An unclosed backtick run is text too.
    expect(inertMarkdown('`` <img> `')).toBe('`` &lt;img&gt; `');
    // Fences at the first column hold code; an indented "fence" may not, so it is escaped.
    expect(inertMarkdown('```sh\necho <x> > f\n```\n<p>')).toBe('```sh\necho <x> > f\n```\n&lt;p&gt;');
    expect(inertMarkdown('  ```\n<img>\n  ```')).toBe('  ```\n&lt;img&gt;\n  ```');
    // A backtick fence whose info string has a backtick is no fence.
    expect(inertMarkdown('```a`b\n<img>')).toBe('```a`b\n&lt;img&gt;');
    expect(inertMarkdown('\u001b[2J')).toBe('\\x1b[2J');
  });
});
