import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/pipeline/scan.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { codeFence, codeSpan, escapeHtml, visibleControls } from '../../src/reporters/escape.js';
import { render } from '../../src/reporters/index.js';
import { silentLogger } from '../../src/util/log.js';
import { isValidInterfaceName } from '../../src/util/validate.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { copyWithInterfaceRenamed } from './helpers.js';

/** Valid for the kernel (no space, / or :), and an attack on every medium: ESC, a backtick, HTML. */
const NAME = '\u001b[2J`<b>x';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('escaping per medium', () => {
  it('makes controls visible, escapes HTML, keeps code spans and fences closed', () => {
    expect(visibleControls('a\u001b[2Jb\r\u009b\u202e')).toBe('a\\x1b[2Jb\\x0d\\x9b\\u202e');
    expect(visibleControls('two\nlines\ttab')).toBe('two\nlines\ttab');
    expect(escapeHtml(`<img src=x onerror="a">&'`)).toBe('&lt;img src=x onerror=&quot;a&quot;&gt;&amp;&#39;');
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x')).toBe('`` `x ``');
    expect(codeFence(['echo ```'])).toBe('````');
  });

  it('a snapshot whose interface name attacks the terminal, Markdown and HTML is shown inert', async () => {
    expect(isValidInterfaceName(NAME)).toBe(true);
    const root = await copyWithInterfaceRenamed(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'), 'eth0', NAME);
    temps.push(path.dirname(root));
    const { report } = await scan({ io: await SnapshotHostIO.open(root), checks, log: silentLogger() });
    expect(report.interfaces.map((iface) => iface.name)).toEqual([NAME]);
    const terminal = render(report, 'terminal', { color: false });
    expect(terminal).not.toContain('\u001b');
    expect(terminal).toContain('\\x1b[2J`<b>x');
    const markdown = render(report, 'markdown', { color: false });
    expect(markdown).not.toContain('\u001b');
    expect(markdown).toContain('- ``\\x1b[2J`<b>x``');
    const html = render(report, 'html', { color: false });
    expect(html).not.toContain('<b>x');
    expect(html).toContain('&lt;b&gt;x');
  });
});
