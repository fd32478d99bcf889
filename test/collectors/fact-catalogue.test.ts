/**
 * The fact catalogue's conformance: each collector declares what it reads (`reads`), and these
 * tests hold every declaration to what the collector does on real inputs — this host, the
 * captured hosts in fixtures/hosts, a real sosreport and the real pasted tickets of fixtures/text:
 *   - every command and file a fact was read from matches one of its declared reads;
 *   - a fact declared never held by pasted text is never collected from any ticket, and a fact
 *     a report asks a customer to paste is read back from at least one real ticket;
 *   - a fact declared never held by a sosreport is not captured from the real one;
 *   - the asks a pasted-text report makes are exactly the catalogue's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { factCatalogue, pastedTextAsks, readPattern } from '../../src/collectors/catalogue.js';
import { collectors } from '../../src/collectors/index.js';
import type { FactStore } from '../../src/contracts/collector.js';
import { LiveHostIO } from '../../src/hostio/live.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { SosreportHostIO } from '../../src/hostio/sosreport.js';
import type { HostIO } from '../../src/hostio/types.js';
import { hostFactStore } from '../../src/pipeline/host-facts.js';
import type { Source } from '../../src/report/schema.js';
import { analyzeText } from '../../src/text/analyze.js';
import { askFor } from '../../src/text/ask-for.js';
import { silentLogger } from '../../src/util/log.js';

const root = path.resolve(import.meta.dirname, '../..');
const fixture = (...parts: string[]) => path.join(root, 'fixtures', ...parts);

type InputKind = 'live' | 'snapshot' | 'sosreport' | 'text';
interface Read {
  input: string;
  kind: InputKind;
  fact: string;
  subject: string;
  ok: boolean;
  sources: Source[];
}

const sourceText = (source: Source) => (source.kind === 'command' ? source.argv.join(' ') : source.kind === 'file' ? source.path : '');

/** Every fact of every subject the store's host has, read through the store. */
async function readAll(input: string, kind: InputKind, store: FactStore, reads: Read[]): Promise<void> {
  const interfaces = await store.get('interfaces');
  const names = interfaces.ok ? interfaces.value.map((entry) => entry.name) : [];
  for (const collector of collectors) {
    for (const subject of collector.scope === 'host' ? [''] : names) {
      const result = await store.get(collector.id, subject || undefined);
      reads.push({ input, kind, fact: collector.id, subject, ok: result.ok, sources: result.sources });
    }
  }
}

/**
 * Facts no real ticket in fixtures/text happens to paste: a ticket made of a real output of the
 * fact's ask command (fixtures/real, with provenance there) after a line naming the OS or the interface.
 */
const PASTED_REAL_OUTPUTS: Record<string, string> = {
  'cpu.topology': 'lscpu/lscpu-hardware.txt',
  'bond.status': 'bonding/active-backup-healthy-25g-1.txt',
  'tc.qdisc.all': 'tc/vm-eth0-default.txt',
  'tc.qdisc': 'tc/vm-eth0-default.txt',
  'net.conntrack': 'sysctl/centos77-sysctl-a-jc.txt',
  'net.mbufs': 'freebsd/netstat-m-mbufs-denied.txt',
  'proc.net.dev': 'procnet/dev-procfs-1.txt',
};

/** What the paste starts with: a line that names the host's OS and, on Linux, its interface. */
const PASTE_PREFIX: Record<string, string> = {
  'net.mbufs': '$ freebsd-version\n13.2-RELEASE\n\n',
};
const LINUX_PREFIX = '$ ethtool -i eth0\ndriver: ixgbe\nbus-info: 0000:01:00.0\n\n';

function pastedRealOutput(fact: string): string {
  const collector = collectors.find((candidate) => candidate.id === fact)!;
  const ask = collector.reads.ask!.replaceAll('<if>', 'eth0').replace('/proc/net/bonding/*', '/proc/net/bonding/bond0');
  const output = readFileSync(fixture('real', PASTED_REAL_OUTPUTS[fact]!), 'utf8');
  return `${PASTE_PREFIX[fact] ?? LINUX_PREFIX}$ ${ask}\n${output}\n`;
}

const textFiles = readdirSync(fixture('text'))
  .filter((name) => name.endsWith('.txt'))
  .sort();

describe('the fact catalogue', () => {
  const reads: Read[] = [];

  beforeAll(async () => {
    const log = silentLogger();
    const stores: [string, InputKind, HostIO][] = [['this host', 'live', new LiveHostIO()]];
    for (const name of readdirSync(fixture('hosts')).sort())
      stores.push([`fixtures/hosts/${name}`, 'snapshot', await SnapshotHostIO.open(fixture('hosts', name))]);
    for (const name of readdirSync(fixture('sosreport')).sort())
      stores.push([`fixtures/sosreport/${name}`, 'sosreport', await SosreportHostIO.open(fixture('sosreport', name))]);
    for (const [input, kind, io] of stores) await readAll(input, kind, hostFactStore(io, log), reads);
    for (const name of textFiles) {
      const outcomes = await analyzeText(readFileSync(fixture('text', name), 'utf8'), { checks, log });
      for (const outcome of outcomes) await readAll(`fixtures/text/${name}`, 'text', outcome.store, reads);
    }
    for (const fact of Object.keys(PASTED_REAL_OUTPUTS)) {
      const outcomes = await analyzeText(pastedRealOutput(fact), { checks, log });
      for (const outcome of outcomes) await readAll(`a paste of fixtures/real/${PASTED_REAL_OUTPUTS[fact]}`, 'text', outcome.store, reads);
    }
  }, 120_000);

  it('has an entry for every collector, with asks that fit its scope', () => {
    const catalogue = factCatalogue();
    expect(catalogue.map((entry) => entry.id).sort()).toEqual(collectors.map((collector) => collector.id).sort());
    for (const collector of collectors) {
      const { ask, commands = [], files = [] } = collector.reads;
      if (collector.scope === 'host') expect(ask ?? '', collector.id).not.toContain('<if>');
      // A fact with nothing to read is one nicdoctor measures or is told: it has nothing to ask for either.
      if (commands.length + files.length === 0) expect(ask, collector.id).toBeNull();
    }
  });

  it('reads every fact only through what its collector declares, on every real input', () => {
    const undeclared: string[] = [];
    for (const read of reads) {
      const collector = collectors.find((candidate) => candidate.id === read.fact)!;
      const templates = [...(collector.reads.commands ?? []), ...(collector.reads.files ?? [])];
      const patterns = templates.map((template) => readPattern(template, read.subject || '<no interface>'));
      for (const source of read.sources) {
        const text = sourceText(source);
        if (!patterns.some((pattern) => pattern.test(text))) undeclared.push(`${read.fact}@${read.subject} read ${text} (${read.input})`);
      }
    }
    expect(undeclared).toEqual([]);
    // The inputs covered most facts: a declaration nothing exercised is not checked here.
    const exercised = new Set(reads.filter((read) => read.sources.length > 0).map((read) => read.fact));
    expect(exercised.size).toBeGreaterThanOrEqual(collectors.length - 3);
  });

  it('never collects from pasted text a fact declared never held by it, and reads back every fact it asks for', () => {
    const fromText = new Set(reads.filter((read) => read.kind === 'text' && read.ok).map((read) => read.fact));
    const declaredNever = collectors.filter((collector) => collector.reads.never?.text).map((collector) => collector.id);
    expect(declaredNever.filter((fact) => fromText.has(fact))).toEqual([]);
    const { perHost, perInterface } = pastedTextAsks();
    const asked = [...Object.keys(perHost), ...Object.keys(perInterface)];
    expect(asked.length).toBeGreaterThan(15);
    // Asked for but never read back from any real ticket: the customer would paste it for nothing.
    expect(asked.filter((fact) => !fromText.has(fact))).toEqual([]);
  });

  it('does not capture from a real sosreport a fact declared never held by one', () => {
    const sos = reads.filter((read) => read.kind === 'sosreport');
    expect(sos.length).toBeGreaterThan(0);
    for (const collector of collectors.filter((entry) => entry.reads.never?.sosreport))
      expect(
        sos.filter((read) => read.fact === collector.id && read.ok),
        collector.id,
      ).toEqual([]);
  });

  it("asks a ticket's customer for the catalogue's commands only", async () => {
    const text = readFileSync(fixture('text', textFiles[0]!), 'utf8');
    const [outcome] = await analyzeText(text, { checks, log: silentLogger() });
    const report = outcome!.report;
    const interfaces = report.interfaces.map((entry) => entry.name);
    const { perHost, perInterface } = pastedTextAsks();
    const known = new Set([
      ...Object.values(perHost),
      ...interfaces.flatMap((name) => Object.values(perInterface).map((ask) => ask(name))),
    ]);
    const asks = askFor(report, checks, interfaces, false).map((entry) => entry.command);
    expect(asks.length).toBeGreaterThan(0);
    // The fallbacks that name no fact: the bench run, and per-check commands where a fact was read without its value.
    const fallbacks = asks.filter(
      (command) => !known.has(command) && !/^iperf3 -c|^ip (?:-s -s )?link show dev|^ethtool|^sudo lspci/.test(command),
    );
    expect(fallbacks).toEqual([]);
    for (const collector of collectors.filter((entry) => entry.reads.never?.text && entry.reads.ask))
      expect(asks, collector.id).not.toContain(collector.reads.ask!.replaceAll('<if>', interfaces[0] ?? '<if>'));
  });
});
