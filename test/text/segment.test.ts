import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { parseEthtoolSettings } from '../../src/parsers/ethtool-settings.js';
import { parseEthtoolStats } from '../../src/parsers/ethtool-stats.js';
import { parseProcInterrupts } from '../../src/parsers/proc-interrupts.js';
import { analyzeText } from '../../src/text/analyze.js';
import { segment, type Segment } from '../../src/text/segment.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { wrap } from './variants.js';

/**
 * The segmenter on what real mail and Markdown do to real outputs (issue 17, item 2): each
 * case takes a real text or capture from fixtures/text or fixtures/eval and damages it the way
 * the issue describes.
 */
const read = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8');
const sos = (name: string, file: string) => read(path.join('eval', name, 'input', file));

const ICE = read('text/ice-e810xxv-25g-kvm-root-prompts.txt');
/** Real, and already as a mail client left it: ethtool's tabs stripped (SOURCE.md of the case). */
const IGB = 'igb-i211-amd-x570-aspm-l1-latency';
const IGB_SETTINGS = sos(IGB, 'sos_commands/networking/ethtool_enp3s0');
const IGB_STATS = sos(IGB, 'sos_commands/networking/ethtool_-S_enp3s0');
const INTERRUPTS_32 = sos('netutils-2xe5-2640-i350-82599es-l2-bridge', 'proc/interrupts');

const shape = (segments: readonly Segment[]) => segments.map((part) => `${part.kind}:${part.iface ?? ''}`);
const findings = async (text: string) =>
  (await analyzeText(text, { checks, log: silentLogger() }))
    .flatMap((outcome) =>
      outcome.report.checks.flatMap((check) => check.findings.map((finding) => `${finding.symptom}@${finding.subject}`)),
    )
    .sort();

describe('mail quoting with empty quoted lines', () => {
  it.each([
    ['>', '> ', '>'],
    ['> >', '> > ', '> >'],
    ['>>', '>> ', '>>'],
  ])('a quoted prompt, then an empty `%s` line, then its output: one segment with the output', (_name, prefix, empty) => {
    // Mail clients quote the blank line after a prompt as the quote mark alone.
    const quoted = ICE.split('\n')
      .flatMap((line) => (/^\[root@/.test(line) ? [`${prefix}${line}`, empty] : [line ? `${prefix}${line}` : empty]))
      .join('\n');
    const result = segment(quoted);
    expect(shape(result.segments)).toEqual(shape(segment(ICE).segments));
    expect(result.segments.every((part) => part.text.trim())).toBe(true);
  });

  it('the output is the command’s, not an empty segment shadowing it', async () => {
    const text = `> $ ethtool -S enp3s0\n>\n${IGB_STATS.split('\n')
      .map((line) => (line ? `> ${line}` : '>'))
      .join('\n')}`;
    const [stats] = segment(text).segments;
    expect(stats).toMatchObject({ kind: 'ethtool-stats', iface: 'enp3s0', command: 'ethtool -S enp3s0' });
    expect(parseEthtoolStats(stats!.text).counters.length).toBeGreaterThan(10);
  });
});

describe('ethtool bodies whose indentation a mail client stripped', () => {
  it('the real igb settings (tabs stripped) are one output, to `Link detected`', () => {
    const { segments } = segment(`$ ethtool enp3s0\n${IGB_SETTINGS}`);
    expect(shape(segments)).toEqual(['ethtool-settings:enp3s0']);
    expect(segments[0]!.text).toMatch(/Link detected: yes/);
    expect(parseEthtoolSettings(segments[0]!.text).speedMbps).toBe(1000);
  });

  it('with every line left-trimmed, link-mode continuation lines stay inside', () => {
    const trimmed = IGB_SETTINGS.split('\n')
      .map((line) => line.trimStart())
      .join('\n');
    const { segments } = segment(trimmed);
    expect(shape(segments)).toEqual(['ethtool-settings:enp3s0']);
    expect(segments[0]!.text).toMatch(/^1000baseT\/Full$/m);
    expect(segments[0]!.text).toMatch(/Link detected: yes/);
  });
});

describe('wrapping, CRLF and Unicode spaces', () => {
  it.each([72, 76, 80])('a 32-CPU /proc/interrupts wrapped at %i columns: every row rejoined', (width) => {
    const text = `$ cat /proc/interrupts\n${INTERRUPTS_32}`;
    const wrapped = wrap(text, width);
    expect(wrapped.split('\n').length).toBeGreaterThan(text.split('\n').length * 2);
    const [part] = segment(wrapped).segments;
    expect(part!.kind).toBe('proc-interrupts');
    const original = parseProcInterrupts(segment(text).segments[0]!.text);
    const rejoined = parseProcInterrupts(part!.text);
    expect(rejoined.cpus).toEqual(original.cpus);
    expect(rejoined.rows.map((row) => [row.irq, row.total])).toEqual(original.rows.map((row) => [row.irq, row.total]));
  });

  it.each([
    ['CRLF', (text: string) => text.replace(/\n/g, '\r\n')],
    ['U+00A0', (text: string) => text.replace(/: /g, ':\u00a0')],
    ['U+2007', (text: string) => text.replace(/ {2}/g, '\u2007 ')],
    ['U+202F', (text: string) => text.replace(/ /g, '\u202f')],
    ['U+3000', (text: string) => text.replace(/ {3}/g, '\u3000  ')],
    ['zero-width', (text: string) => text.replace(/\n(?=\S)/g, '\n\u200b').replace(/: /g, ':\u200d ')],
  ])('%s: the same outputs, the same values', (_name, damage) => {
    const text = `$ ethtool enp3s0\n${IGB_SETTINGS}\n$ ethtool -S enp3s0\n${IGB_STATS}`;
    const damaged = segment(damage(text));
    const clean = segment(text);
    expect(shape(damaged.segments)).toEqual(shape(clean.segments));
    expect(damaged.segments.map((part) => part.text)).toEqual(clean.segments.map((part) => part.text));
    expect(damaged.repairs.length).toBeGreaterThan(0);
  });
});

describe('Markdown', () => {
  const fenced = (before: string, open = '```', close = '```') => `${before}\n${open}\n${IGB_STATS.trimEnd()}\n${close}\n`;
  it.each([
    ['inline code with a trailing colon', fenced('`ethtool -S enp3s0`:')],
    ['prose quoting the command as inline code', fenced('Here is the output of `ethtool -S enp3s0`:')],
    ['```text', fenced('`ethtool -S enp3s0`:', '```text')],
    ['```console', fenced('`ethtool -S enp3s0`:', '```console')],
    ['~~~', fenced('`ethtool -S enp3s0`:', '~~~', '~~~')],
    ['a bullet', fenced('- `ethtool -S enp3s0`:')],
    ['a numbered item', fenced('2. ethtool -S enp3s0')],
    ['a bullet before a prompt', fenced('* $ ethtool -S enp3s0')],
    ['bold', fenced('**ethtool -S enp3s0**')],
    ['bold with its colon inside', fenced('**ethtool -S enp3s0:**')],
    ['a heading', fenced('### ethtool -S enp3s0')],
    ['a heading with inline code', fenced('## `ethtool -S enp3s0`')],
    [
      'a fence inside a quote',
      fenced('`ethtool -S enp3s0`:')
        .split('\n')
        .map((line) => (line ? `> ${line}` : '>'))
        .join('\n'),
    ],
  ])('%s: the command names the fenced output', (_name, text) => {
    const { segments } = segment(text);
    expect(segments).toHaveLength(1);
    expect(segments[0]).toMatchObject({ kind: 'ethtool-stats', iface: 'enp3s0', command: 'ethtool -S enp3s0' });
  });

  it('a fence after prose that names no command is read by the output’s shape alone', () => {
    const { segments } = segment(fenced('the counters, see below'));
    expect(shape(segments)).toEqual(['ethtool-stats:']);
  });
});

describe('shell prompts', () => {
  it.each([
    ['$ ', null],
    ['# ', null],
    ['[root@web1 ~]# ', 'web1'],
    ['user@web1:~$ ', 'web1'],
    ['root@web1:/# ', 'web1'],
    ['web1# ', 'web1'],
    ['web1:~ # ', 'web1'],
    ['% ', null],
    ['user@web1 ~ % ', 'web1'],
  ])('`%s`', (prompt, host) => {
    const { segments, hosts } = segment(`${prompt}ethtool -S enp3s0\n${IGB_STATS}`);
    expect(segments).toHaveLength(1);
    expect(segments[0]).toMatchObject({ kind: 'ethtool-stats', iface: 'enp3s0', command: 'ethtool -S enp3s0', host });
    expect(hosts).toEqual(host ? [host] : []);
  });

  it.each(['PS C:\\> ', 'C:\\> '])('`%s` is a Windows prompt', (prompt) => {
    const text = read('text/seed-004-windows-client-P8-40g.txt');
    const command = /iperf3\S* -c.*$/m.exec(text)![0];
    const { segments } = segment(`${prompt}${command}\n${text.slice(text.indexOf(command) + command.length + 1)}`);
    expect(segments[0]).toMatchObject({ kind: 'iperf3-text', windows: true });
  });

  it('`> ` is quoting, not a prompt', () => {
    const { segments } = segment(
      `> ethtool -S enp3s0\n${IGB_STATS.split('\n')
        .map((line) => `> ${line}`)
        .join('\n')}`,
    );
    expect(segments).toHaveLength(1);
    expect(segments[0]).toMatchObject({ kind: 'ethtool-stats', command: 'ethtool -S enp3s0', host: null });
  });

  it('prose that looks like a prompt before an unknown word is not one', () => {
    const { segments, hosts } = segment(`# Results\nweb1# is what we call the box\n${IGB_STATS}`);
    expect(hosts).toEqual([]);
    expect(shape(segments)).toEqual(['ethtool-stats:']);
  });

  it('several hosts in one text, with different prompt styles', () => {
    const text = `[root@web1 ~]# ethtool -S enp3s0\n${IGB_STATS}\nweb2:~ # ethtool enp3s0\n${IGB_SETTINGS}\nadmin@web3:~$ cat /proc/interrupts\n${INTERRUPTS_32}`;
    const { segments, hosts } = segment(text);
    expect(hosts).toEqual(['web1', 'web2', 'web3']);
    expect(segments.map((part) => `${part.host}:${part.kind}`)).toEqual([
      'web1:ethtool-stats',
      'web2:ethtool-settings',
      'web3:proc-interrupts',
    ]);
  });
});

describe('annotations after values', () => {
  it('`<-- ...`, `# ...` and `// ...` after a value are cut before parsing', async () => {
    const annotated = IGB_SETTINGS.replace('Speed: 1000Mb/s', 'Speed: 1000Mb/s   <-- should be 2.5G')
      .replace('Duplex: Full', 'Duplex: Full  # checked twice')
      .replace('Link detected: yes', 'Link detected: yes // after the reboot');
    expect(annotated).not.toBe(IGB_SETTINGS);
    const [part] = segment(`$ ethtool enp3s0\n${annotated}`).segments;
    expect(part!.text).toMatch(/^Speed: 1000Mb\/s$/m);
    expect(part!.text).toMatch(/^Duplex: Full$/m);
    expect(part!.text).toMatch(/^Link detected: yes$/m);
    expect(segment(`$ ethtool enp3s0\n${annotated}`).repairs).toContain('notes after values removed (<--, #, //)');
    expect(await findings(`$ ethtool enp3s0\n${annotated}`)).toEqual(await findings(`$ ethtool enp3s0\n${IGB_SETTINGS}`));
  });

  it('a counter with a note is still a counter', () => {
    const stats = IGB_STATS.replace(/^(\s*rx_missed_errors: \d+)$/m, '$1   <== this one grows');
    const [part] = segment(`$ ethtool -S enp3s0\n${stats}`).segments;
    const missed = (text: string) => parseEthtoolStats(text).counters.find((counter) => counter.name === 'rx_missed_errors')?.value;
    expect(missed(IGB_STATS)).toBeDefined();
    expect(missed(part!.text)).toBe(missed(IGB_STATS));
  });
});

describe("grep'd fragments without their header", () => {
  it('/proc/interrupts rows without the CPU header are read by their row shape', () => {
    const rows = INTERRUPTS_32.split('\n').filter((line) => /eth\d/.test(line));
    expect(rows.length).toBeGreaterThan(4);
    const { segments, repairs } = segment(`the IRQs of the NICs:\n${rows.join('\n')}\n`);
    expect(shape(segments)).toEqual(['proc-interrupts:']);
    const parsed = parseProcInterrupts(segments[0]!.text);
    expect(parsed.cpus).toHaveLength(32);
    expect(parsed.rows).toHaveLength(rows.length);
    expect(repairs.join(' ')).toMatch(/without their CPU header/);
  });

  it('headerless rows a mailer wrapped at 72 columns are found from their first piece and rejoined', () => {
    const row = (irq: number, first: number, name: string) =>
      ` ${irq}:${[first, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0].map((count) => String(count).padStart(11)).join('')}   PCI-MSI ${irq}-edge      ${name}`;
    const wide = [row(40, 812345678, 'wan0-TxRx-0'), row(41, 723456789, 'wan0-TxRx-1')];
    const wrapped = wide.flatMap((line) => {
      const pieces: string[] = [];
      let rest = line;
      while (rest.length > 72) {
        const cut = rest.lastIndexOf(' ', 72);
        pieces.push(rest.slice(0, cut));
        rest = rest.slice(cut + 1);
      }
      return [...pieces, rest];
    });
    expect(wrapped.length).toBeGreaterThan(wide.length * 2);
    const { segments } = segment(`the queues sit on one core:\n${wrapped.join('\n')}\n`);
    expect(shape(segments)).toEqual(['proc-interrupts:']);
    const parsed = parseProcInterrupts(segments[0]!.text);
    expect(parsed.cpus).toHaveLength(12);
    expect(parsed.rows.map((entry) => [entry.irq, entry.counts[0], entry.actions])).toEqual([
      [40, 812345678, ['wan0-TxRx-0']],
      [41, 723456789, ['wan0-TxRx-1']],
    ]);
  });

  it('`cat /proc/interrupts | grep eth` is a filtered output with the header restored', () => {
    const rows = INTERRUPTS_32.split('\n').filter((line) => /eth\d/.test(line));
    const [part] = segment(`$ cat /proc/interrupts | grep eth\n${rows.join('\n')}\n`).segments;
    expect(part).toMatchObject({ kind: 'proc-interrupts', filtered: true });
    expect(parseProcInterrupts(part!.text).rows).toHaveLength(rows.length);
  });

  it('`ethtool <if>` copied from its first link mode on, without `Settings for`, is still its settings', async () => {
    // A real ticket: 2500baseT supported and offered by the partner, not advertised (fixtures/eval, SOURCE.md there).
    const ticket = read(path.join('eval', 'gh-r8125dkms-openwrt-2500-not-advertised-partner-2500', 'ticket.txt'));
    expect(shape(segment(ticket).segments)).toEqual(['ethtool-settings:']);
    // Read as the ticket's one NIC, with the header its parser needs: judged as the whole output is.
    expect(await findings(ticket)).toContain('advertises-below-supported@unnamed-nic');
    const withHeader = ticket.replace('```\nSupported ports', '```\nSettings for eth1:\nSupported ports');
    expect(withHeader).not.toBe(ticket);
    expect(await findings(withHeader)).toContain('advertises-below-supported@eth1');
  });

  it('`ethtool -S | grep` lines without `NIC statistics:` are counters', () => {
    const lines = IGB_STATS.split('\n').filter((line) => /rx_.*(?:errors|missed)/.test(line));
    expect(lines.length).toBeGreaterThan(2);
    const { segments } = segment(`what I see:\n${lines.join('\n')}\n`);
    expect(shape(segments)).toEqual(['ethtool-stats:']);
    expect(parseEthtoolStats(segments[0]!.text).counters).toHaveLength(lines.length);
  });
});

describe("a shell's default prompt names no host", () => {
  it('reads `bash-4.2# ` as a prompt of the host already named, not as a host called bash-4.2', () => {
    const text = [
      'root@arista-Idaville:/home/arista# ethtool -i enp2s0',
      'driver: igc',
      '',
      'bash-4.2# ethtool -i enp2s0',
      'driver: igc',
    ].join('\n');
    const result = segment(text);
    expect(result.hosts).toEqual(['arista-Idaville']);
    expect(result.segments.filter((part) => part.command !== null).map((part) => part.host)).toEqual([
      'arista-Idaville',
      'arista-Idaville',
    ]);
  });
});

describe('a first line a mailer cut, and prose that starts with a command name', () => {
  it('a FreeBSD ifconfig header wrapped before its mtu is rejoined and its body follows it', () => {
    const header = 'ix0: flags=8863<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500';
    const text = `${wrap(header, 72)}\n\toptions=4e53fbb<RXCSUM,TXCSUM>\n\tmedia: Ethernet autoselect\n\tstatus: no carrier\n`;
    expect(text.split('\n')[1]).toBe('1500');
    const ifconfig = segment(text).segments.filter((found) => found.kind === 'freebsd-ifconfig');
    expect(ifconfig).toHaveLength(1);
    expect(ifconfig[0]!.text).toContain(header);
    expect(ifconfig[0]!.text).toContain('status: no carrier');
  });

  it('a sentence beginning with a command name is prose, not a typed command', () => {
    const text =
      'The port stays down after boot.\nifconfig ix0 shows status: no carrier, and sysctl\ndev.ix.0.fc reports 3 on the same port\n';
    expect(segment(text).segments).toEqual([]);
    // A real command line of the same start still is one.
    expect(
      segment('ifconfig -v ix0\nix0: flags=8863<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n\tstatus: active\n').segments,
    ).toHaveLength(1);
  });
});

describe('/proc/net/dev pasted (a real XDP ticket)', () => {
  const ticket = read('eval/xdp-igb-i211-native-xdp-pass-fifo-drops-at-5pps/ticket.txt');

  it.each([
    ['as pasted', ticket],
    ['wrapped at 72', wrap(ticket, 72)],
    ['quoted', ticket.replace(/^/gm, '> ')],
  ])('is one output with its rows, %s, and its counters are judged', async (_, text) => {
    const dev = segment(text).segments.find((part) => part.kind === 'proc-net-dev');
    expect(dev?.command).toBe('cat /proc/net/dev');
    const [outcome] = await analyzeText(text, { checks, log: silentLogger() });
    const drops = outcome!.report.checks.find((check) => check.id === 'nic-drops')!.findings;
    expect(drops).toContainEqual(
      expect.objectContaining({ subject: 'enp4s0', data: expect.objectContaining({ counter: 'rx_fifo_errors', value: 9980 }) }),
    );
    // enp2s0 and enp3s0 moved no packet: not interfaces of the ticket.
    expect(outcome!.report.interfaces.map((entry) => entry.name).sort()).toEqual(['enp1s0', 'enp4s0']);
  });
});
