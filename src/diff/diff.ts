import type { AnyCheck } from '../contracts/check.js';
import type { LoadedInput } from '../fleet/inputs.js';
import type { Report } from '../report/schema.js';
import { references } from '../rules/conditions.js';
import { escapeStrings, inertMarkdown, visibleControls } from '../reporters/escape.js';
import type { LoadedRule } from '../rules/loader.js';

/** One fact value (or, for bare reports, one setting) that differs between A and B. */
export interface FactDifference {
  fact: string;
  /** Interface (as named on A, "B-name" after a slash when B names it otherwise), or "host". */
  subject: string;
  path: string;
  a: unknown;
  b: unknown;
  /** Why it matters for throughput: the verdicts that change with it. Empty: nothing reacts. */
  reactions: string[];
}

export interface DiffGroup {
  /** A check id, or "other" for facts no check reads. */
  check: string;
  title: string;
  differences: FactDifference[];
}

export interface VerdictChange {
  check: string;
  subject: string;
  a: string;
  b: string;
}

export interface DiffReport {
  a: { file: string; host: string; kind: LoadedInput['kind'] };
  b: { file: string; host: string; kind: LoadedInput['kind'] };
  /** Facts when both sides are bundles or snapshots, else the settings a report shows. */
  basis: 'facts' | 'settings';
  groups: DiffGroup[];
  verdicts: VerdictChange[];
  diagnoses: { onlyA: string[]; onlyB: string[] };
  summary: { differences: number; marked: number };
}

/** Paths that name a device rather than configure it: they differ between any two hosts. */
const IDENTITY = /(^|\.)(netPath|pciPath|pciAddress|path|address|busInfo|interface|physicalFunction|name)$/;

/**
 * Pairs interfaces by name, then those left over by what they are: the same PCI slot, then the
 * same NIC model and driver, then the same driver, then in report order (eth0 on A with ens1f0
 * on B, both in slot 0000:3b:00.0).
 */
function subjectMap(a: Report, b: Report): Map<string, string> {
  const map = new Map<string, string>([
    ['', ''],
    ['host', 'host'],
  ]);
  const bNames = new Set(b.interfaces.map((iface) => iface.name));
  for (const iface of a.interfaces) if (bNames.has(iface.name)) map.set(iface.name, iface.name);
  const identity = (report: Report, name: string) => {
    const summary = report.interfaces.find((iface) => iface.name === name);
    const entry = report.settings?.interfaces.find((iface) => iface.name === name);
    return { slot: summary?.pciAddress ?? null, model: entry?.model ?? null, driver: summary?.driver ?? entry?.driver ?? null };
  };
  let leftA = a.interfaces.map((iface) => iface.name).filter((name) => !map.has(name));
  let leftB = [...bNames].filter((name) => !a.interfaces.some((iface) => iface.name === name));
  const keys: Array<(id: ReturnType<typeof identity>) => string | null> = [(id) => id.slot, (id) => id.model, (id) => id.driver, () => ''];
  for (const key of keys) {
    for (const name of leftA) {
      const wanted = key(identity(a, name));
      if (wanted === null) continue;
      const match = leftB.find((other) => key(identity(b, other)) === wanted);
      if (match === undefined) continue;
      map.set(name, match);
      leftB = leftB.filter((other) => other !== match);
    }
    leftA = leftA.filter((name) => !map.has(name));
  }
  return map;
}

interface Verdict {
  status: string;
  /** The findings' messages carry the values the check judged: a check reacts to a change when they change. */
  messages: string[];
}

function verdictOf(report: Report, check: string, subject: string): Verdict {
  const result = report.checks.find((entry) => entry.id === check);
  if (!result) return { status: 'not run', messages: [] };
  const status = result.subjects.find((entry) => entry.subject === subject)?.status ?? result.status;
  const findings = result.findings.filter(
    (finding) => finding.subject === subject || ((subject === '' || subject === 'host') && finding.subject === 'host'),
  );
  return { status, messages: [...new Set(findings.map((finding) => finding.message))].sort() };
}

/** "pass → fail", or the finding that changed; undefined when the check saw no difference. */
function verdictChange(a: Verdict, b: Verdict): { a: string; b: string } | undefined {
  if (a.status !== b.status) return { a: a.status, b: b.status };
  const onlyA = a.messages.filter((message) => !b.messages.includes(message));
  const onlyB = b.messages.filter((message) => !a.messages.includes(message));
  if (!onlyA.length && !onlyB.length) return undefined;
  return { a: `${a.status}: ${onlyA.join('; ') || '(no such finding)'}`, b: `${b.status}: ${onlyB.join('; ') || '(no such finding)'}` };
}

function diagnosisKeys(report: Report, map?: Map<string, string>): Set<string> {
  return new Set(report.diagnoses.map((entry) => `${entry.ruleId} @ ${map?.get(entry.subject) ?? entry.subject}`));
}

const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);

/** The rows to compare: every fact value (bundles, snapshots) or the settings of two reports. */
function rows(input: LoadedInput): Map<string, unknown> {
  if (input.facts) return input.facts;
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(input.settings.host)) out.set(`settings\t\t${key}`, value);
  for (const iface of input.settings.interfaces)
    for (const [key, value] of Object.entries(iface.values)) out.set(`settings\t${iface.name}\t${key}`, value);
  return out;
}

/** A against B: what differs, grouped by the checks that read it, and what reacts to it. */
export function diffInputs(a: LoadedInput, b: LoadedInput, checks: readonly AnyCheck[], rules: readonly LoadedRule[]): DiffReport {
  const basis = a.facts && b.facts ? 'facts' : 'settings';
  const rowsA = basis === 'facts' ? a.facts! : rows({ ...a, facts: null });
  const rowsB = basis === 'facts' ? b.facts! : rows({ ...b, facts: null });
  const toB = subjectMap(a.report, b.report);
  const toA = new Map([...toB].map(([x, y]) => [y, x]));
  const readers = (fact: string) => checks.filter((check) => check.requires.includes(fact) || (check.optionalFacts ?? []).includes(fact));
  const ruleRefs = rules.map((rule) => {
    const refs = { symptoms: new Set<string>(), facts: new Set<string>(), checks: new Set<string>() };
    references(rule.when, refs);
    return { rule, refs };
  });
  const diagA = diagnosisKeys(a.report, toB);
  const diagB = diagnosisKeys(b.report);

  const keys = new Set<string>(rowsA.keys());
  for (const key of rowsB.keys()) {
    const [fact, subject, path] = key.split('\t');
    keys.add(`${fact}\t${toA.get(subject!) ?? subject}\t${path}`);
  }
  // A fact collected on one side only is one row, not one per field.
  const present = (rowsOf: Map<string, unknown>) => new Set([...rowsOf.keys()].map((key) => key.split('\t').slice(0, 2).join('\t')));
  const presentA = present(rowsA);
  const presentB = present(rowsB);
  const groups = new Map<string, DiffGroup>();
  const collapsed = new Set<string>();
  for (const key of [...keys].sort()) {
    const [fact, subjectA, keyPath] = key.split('\t') as [string, string, string];
    let path = keyPath; // a fact missing on one side is reported as the whole fact
    if (IDENTITY.test(path)) continue;
    const subjectB = toB.get(subjectA) ?? subjectA;
    let valueA = rowsA.get(key);
    let valueB = rowsB.get(`${fact}\t${subjectB}\t${path}`);
    const inA = presentA.has(`${fact}\t${subjectA}`);
    const inB = presentB.has(`${fact}\t${subjectB}`);
    if (inA !== inB && fact !== 'settings') {
      if (collapsed.has(`${fact}\t${subjectA}`)) continue;
      collapsed.add(`${fact}\t${subjectA}`);
      [path, valueA, valueB] = ['(whole fact)', inA ? 'collected' : 'not collected', inB ? 'collected' : 'not collected'];
    }
    if (same(valueA ?? null, valueB ?? null)) continue;
    const reading = fact === 'settings' ? checks.filter((check) => settingReaders(path).includes(check.id)) : readers(fact);
    const reactions: string[] = [];
    for (const check of reading) {
      const change = verdictChange(verdictOf(a.report, check.id, subjectA), verdictOf(b.report, check.id, subjectB));
      if (change) reactions.push(`check ${check.id}: ${change.a} → ${change.b}`);
    }
    for (const { rule, refs } of ruleRefs) {
      const reads =
        refs.facts.has(fact) ||
        [...refs.checks].some((id) => reading.some((check) => check.id === id)) ||
        [...refs.symptoms].some((symptom) => reading.some((check) => symptom.startsWith(`${check.id}/`)));
      if (!reads) continue;
      // A diagnosis of this rule on this interface (or on the host) on one side only.
      const on = (keys: Set<string>, subject: string) => keys.has(`${rule.id} @ ${subject || 'host'}`) || keys.has(`${rule.id} @ host`);
      const inA = on(diagA, subjectB);
      const inB = on(diagB, subjectB);
      if (inA !== inB) reactions.push(`rule ${rule.id}: ${inA ? 'diagnosed on A only' : 'diagnosed on B only'}`);
    }
    const difference: FactDifference = {
      fact,
      subject: subjectA === '' ? 'host' : subjectB !== subjectA ? `${subjectA}/${subjectB}` : subjectA,
      path,
      a: valueA ?? null,
      b: valueB ?? null,
      reactions,
    };
    // Listed once: under the first check that reacts to it, else the first that reads it.
    const reacting = reading.find((check) => reactions.some((reaction) => reaction.startsWith(`check ${check.id}:`)));
    const check = reacting ?? reading[0];
    const id = check?.id ?? 'other';
    const group = groups.get(id) ?? { check: id, title: check?.title ?? 'read by no check', differences: [] };
    group.differences.push(difference);
    groups.set(id, group);
  }
  const verdicts: VerdictChange[] = [];
  for (const result of a.report.checks) {
    for (const subject of new Set(['', ...result.subjects.map((entry) => entry.subject)])) {
      if (subject === '' && result.subjects.length) continue;
      const change = verdictChange(verdictOf(a.report, result.id, subject), verdictOf(b.report, result.id, toB.get(subject) ?? subject));
      if (change) verdicts.push({ check: result.id, subject: subject || 'host', ...change });
    }
  }
  const differences = new Set([...groups.values()].flatMap((group) => group.differences));
  return {
    a: { file: a.file, host: a.report.host.hostname, kind: a.kind },
    b: { file: b.file, host: b.report.host.hostname, kind: b.kind },
    basis,
    groups: [...groups.values()].sort((x, y) => (x.check === 'other' ? 1 : y.check === 'other' ? -1 : x.check.localeCompare(y.check))),
    verdicts,
    diagnoses: { onlyA: [...diagA].filter((key) => !diagB.has(key)).sort(), onlyB: [...diagB].filter((key) => !diagA.has(key)).sort() },
    summary: { differences: differences.size, marked: [...differences].filter((entry) => entry.reactions.length > 0).length },
  };
}

/** For bare reports: which checks read a setting fleet names (see fleet/settings.ts). */
function settingReaders(setting: string): string[] {
  if (setting === 'MTU') return ['mtu'];
  if (setting.startsWith('speed')) return ['link-speed'];
  if (setting.includes('ring')) return ['rx-rings'];
  if (setting.includes('channels')) return ['rss-queues'];
  if (setting.startsWith('offload')) return ['offloads'];
  if (setting.startsWith('coalesce')) return ['coalescing'];
  if (setting.startsWith('PCIe')) return ['pcie-link'];
  if (setting.startsWith('net.')) return ['socket-buffers'];
  if (setting === 'CPU governor') return ['cpu-frequency'];
  if (setting === 'iperf3 version') return ['iperf3'];
  if (setting.startsWith('policy ')) return [setting.slice('policy '.length)];
  return [];
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '(absent)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export const DIFF_FORMATS = ['terminal', 'markdown', 'json'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];

export function renderDiff(report: DiffReport, format: DiffFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2) + '\n';
  // File and host names, and values from the evidence: shown, never obeyed (escape.ts).
  const text = renderDiffText(escapeStrings(report, visibleControls), format === 'markdown');
  return format === 'markdown' ? inertMarkdown(text) : text;
}

function renderDiffText(report: DiffReport, markdown: boolean): string {
  const out: string[] = [];
  out.push(markdown ? `# nicdoctor diff` : `nicdoctor diff`, '');
  out.push(
    `A: ${report.a.file} (${report.a.kind}, host ${report.a.host})`,
    `B: ${report.b.file} (${report.b.kind}, host ${report.b.host})`,
  );
  out.push(
    `${report.summary.differences} differences in ${report.basis}, ${report.summary.marked} marked ! (a check or a rule reacts to them)`,
    '',
  );
  for (const group of report.groups) {
    out.push(markdown ? `## ${group.check}: ${group.title}` : `${group.check}: ${group.title}`);
    let previous = '';
    for (const entry of group.differences) {
      const mark = entry.reactions.length ? '!' : ' ';
      const line = `${mark} ${entry.subject}  ${entry.fact === 'settings' ? '' : `${entry.fact} `}${entry.path}: ${show(entry.a)} → ${show(entry.b)}`;
      out.push(markdown ? `- ${entry.reactions.length ? '**!** ' : ''}${line.slice(2)}` : `  ${line}`);
      // Fields of one fact usually share their reactions: say them once.
      const reactions = entry.reactions.join('\n');
      if (reactions !== previous) for (const reaction of entry.reactions) out.push(markdown ? `  - ${reaction}` : `      ${reaction}`);
      previous = reactions;
    }
    out.push('');
  }
  if (report.verdicts.length) {
    out.push(markdown ? '## Verdicts that differ' : 'Verdicts that differ:');
    for (const change of report.verdicts) out.push(`${markdown ? '-' : ' '} ${change.check} ${change.subject}: ${change.a} → ${change.b}`);
    out.push('');
  }
  if (report.diagnoses.onlyA.length || report.diagnoses.onlyB.length) {
    out.push(markdown ? '## Diagnoses' : 'Diagnoses:');
    for (const key of report.diagnoses.onlyA) out.push(`${markdown ? '-' : ' '} only on A: ${key}`);
    for (const key of report.diagnoses.onlyB) out.push(`${markdown ? '-' : ' '} only on B: ${key}`);
    out.push('');
  }
  return out.join('\n');
}
