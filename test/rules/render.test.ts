import { describe, expect, it } from 'vitest';
import { placeholders, render } from '../../src/rules/template.js';
import { parseRuleFile } from '../../src/rules/loader.js';
import { IF, finding, run } from './helpers.js';
import * as x from './fixtures.js';

describe('templates', () => {
  it('fills placeholders with real values, numbers rounded for reading', () => {
    expect(render('ethtool -G {subject} rx {rxMax} tx {txMax}', { subject: 'enp65s0f0', rxMax: 8192, txMax: 8192 })).toEqual({
      ok: true,
      text: 'ethtool -G enp65s0f0 rx 8192 tx 8192',
    });
    expect(render('≈ {gbps} Gb/s', { gbps: 3.5599999 })).toEqual({ ok: true, text: '≈ 3.56 Gb/s' });
    expect(placeholders('{a} and {pcie-link/pcie-bandwidth-below-port.ceilingGbps}')).toEqual([
      'a',
      'pcie-link/pcie-bandwidth-below-port.ceilingGbps',
    ]);
  });

  it('refuses to fill half a template', () => {
    expect(render('ethtool -G {subject} rx {rxMax} tx {txMax}', { subject: 'enp65s0f0', rxMax: 4096, txMax: null })).toEqual({
      ok: false,
      missing: ['txMax'],
    });
    expect(render('{a} {a}', {})).toEqual({ ok: false, missing: ['a'] });
  });
});

describe('rendering diagnoses', () => {
  it('renders the rings fix with the real interface and ring maxima, as a command and a .link file', () => {
    const [diagnosis] = run({ findings: [x.rxRingBelow, x.nicDrops] }).filter((item) => item.ruleId === 'rings-small-with-drops');
    expect(diagnosis!.subject).toBe(IF);
    expect(diagnosis!.fixes[0]!.commands).toEqual(['ethtool -G enp65s0f0 rx 8192 tx 8192']);
    expect(diagnosis!.fixes[0]!.persistent).toEqual({
      file: '/etc/systemd/network/10-enp65s0f0-rings.link',
      content: '[Match]\nOriginalName=enp65s0f0\n[Link]\nRxBufferSize=8192\nTxBufferSize=8192\n',
    });
    expect(diagnosis!.fixes[0]!.disruptive).toBe(true);
    expect(diagnosis!.explanation).toContain('The RX ring of enp65s0f0 holds 512 of a possible 8192 descriptors');
    expect(diagnosis!.explanation).toContain('rx_missed_errors = 18234');
    expect(diagnosis!.notes).toEqual([]);
  });

  it('leaves out a setting whose value is unknown; keeps the lines of a drop-in it can fill', () => {
    const noTx = finding('rx-rings/rx-ring-below-max', IF, { ...x.rxRingBelow.data, txCurrent: null, txMax: null });
    const [diagnosis] = run({ findings: [noTx] }).filter((item) => item.ruleId === 'rings-below-max');
    // The driver has no TX ring to raise: the operation sets the RX ring alone.
    expect(diagnosis!.fixes[0]!.commands).toEqual(['ethtool -G enp65s0f0 rx 8192']);
    expect(diagnosis!.fixes[0]!.operations).toEqual([{ kind: 'ethtool-rings', iface: IF, rx: 8192 }]);
    expect(diagnosis!.fixes[0]!.persistent!.content).toBe('[Match]\nOriginalName=enp65s0f0\n[Link]\nRxBufferSize=8192\n');
    expect(diagnosis!.notes.some((note) => note.includes('TxBufferSize={txMax}'))).toBe(true);
    // The sentence about the TX ring has no value: left out, not printed with a hole.
    expect(diagnosis!.explanation).not.toContain('TX ring');
  });

  it('refuses an operation whose filled value does not fit its schema, with a note, and runs nothing of it', () => {
    const [rule] = parseRuleFile(
      `rules:
  - id: demo
    title: Demo rule
    cause: 7
    when: { symptom: rx-rings/rx-ring-below-max }
    explanation: "x"
    fixes:
      - text: "Raise"
        ops:
          - { kind: ethtool-rings, iface: "{subject}", rx: "{profile}" }
        disruptive: true
    confidence: low
    references: [docs/causes.md#cause-1]
`,
      'demo.yaml',
    );
    const [diagnosis] = run({ findings: [x.rxRingBelow], rules: [rule!] });
    expect(diagnosis!.fixes[0]!.commands).toEqual([]);
    expect(diagnosis!.fixes[0]!.operations).toEqual([]);
    expect(diagnosis!.notes).toEqual(['ethtool-rings on enp65s0f0 refused: rx: rx ring size must be a number, not "throughput"']);
  });

  it('leaves out an operation with a placeholder inside a longer value, and says which', () => {
    const [rule] = parseRuleFile(
      `rules:
  - id: demo
    title: Demo rule
    cause: 7
    when: { symptom: rx-rings/rx-ring-below-max }
    explanation: "x"
    fixes:
      - text: "Look"
        ops:
          - { kind: inspect, argv: [cat, "/sys/class/net/{subject}/{nothing}"] }
        disruptive: false
    confidence: low
    references: [docs/causes.md#cause-1]
`,
      'demo.yaml',
    );
    const [diagnosis] = run({ findings: [x.rxRingBelow], rules: [rule!] });
    expect(diagnosis!.fixes[0]!.commands).toEqual([]);
    expect(diagnosis!.notes).toEqual(['inspect left out: no value for nothing']);
  });

  it('writes a sysctl drop-in with only the limits that were found too small', () => {
    const [diagnosis] = run({ findings: [x.tcpRmem] }).filter((item) => item.ruleId === 'socket-buffers-small');
    expect(diagnosis!.subject).toBe('host');
    expect(diagnosis!.fixes[0]!.persistent).toEqual({
      file: '/etc/sysctl.d/90-nicdoctor.conf',
      content: '# ESnet tier for links below 40G\nnet.ipv4.tcp_rmem = 4096 131072 33554432\n',
    });
    expect(diagnosis!.limit).toBe('5.0 Gb/s per stream at 10 ms RTT');
  });

  it('renders only the fixes whose branch matched', () => {
    const [diagnosis] = run({ findings: [x.queuesBelowMax] }).filter((item) => item.ruleId === 'rss-queues-below-max');
    expect(diagnosis!.fixes.map((fix) => fix.commands)).toEqual([['ethtool -L enp65s0f0 combined 8']]);
  });

  it('drops a fix whose prose cannot be filled, with a note', () => {
    const [rule] = parseRuleFile(
      `rules:
  - id: demo
    title: Demo rule
    cause: 7
    when: { symptom: rx-rings/rx-ring-below-max }
    explanation: "The ring is {rxCurrent}."
    fixes:
      - text: "Set {nothing}"
        disruptive: false
      - text: "Raise {subject}"
        ops: [{ kind: ethtool-rings, iface: "{subject}", rx: "{rxTarget}" }]
        disruptive: true
    confidence: low
    references: [docs/causes.md#cause-1]
`,
      'demo.yaml',
    );
    const [diagnosis] = run({ findings: [x.rxRingBelow], rules: [rule!] });
    expect(diagnosis!.fixes).toEqual([
      {
        text: 'Raise enp65s0f0',
        commands: ['ethtool -G enp65s0f0 rx 8192'],
        operations: [{ kind: 'ethtool-rings', iface: IF, rx: 8192 }],
        disruptive: true,
      },
    ]);
    expect(diagnosis!.notes).toEqual(['fix "Set {nothing}" left out: no value for nothing']);
  });

  it('says what was ruled out, with the facts behind it', () => {
    const diagnoses = run({
      findings: [x.singleThreaded],
      statuses: { 'pcie-link': { [IF]: 'pass' } },
      facts: { 'pcie.link': { present: true, link: { speedGts: 8, width: 8 } } },
    });
    const tool = diagnoses.find((item) => item.ruleId === 'tool-single-threaded-version')!;
    expect(tool.subject).toBe('host');
    expect(tool.ruledOut).toEqual(['PCIe 8 GT/s x8 on enp65s0f0 carries its 10 Gb/s port (pcie-link passed): not the limit']);

    const pcie = run({
      findings: [x.pcieBelow],
      facts: { 'iperf3.version': { version: '3.16' } },
      statuses: { 'link-speed': { [IF]: 'pass' } },
    }).find((item) => item.ruleId === 'pcie-bandwidth-below-port')!;
    expect(pcie.ruledOut).toEqual([
      'iperf3 3.16 here runs each stream in its own thread: the tool is not single-threaded',
      'enp65s0f0 negotiated its best link mode (link-speed passed): the Ethernet link is not the limit',
    ]);
  });
});
