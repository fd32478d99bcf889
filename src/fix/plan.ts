/**
 * From a report's diagnoses to a fix plan: every fix operation sorted into what nicdoctor could
 * apply (the applicable kinds), what a human runs, what only inspects, and what cannot be
 * printed as runnable (a placeholder left unfilled); sysctl lines merged into one drop-in and
 * ethtool settings into one .link file per interface. The script and --apply both use it. The
 * fixes carry typed operations (src/fix/operations.ts): no shell text is parsed here.
 */
import type { DiagnosisEntry, Report } from '../report/schema.js';
import { isValidInterfaceName } from '../util/validate.js';
import { isSingleLine, needsQuoting, quoteWords, shellJoin, unfilledPlaceholders } from './shell.js';
import { isLinkFile, isSysctlDropIn, linkSetting, parseLinkFile, parseSysctlConf } from './persistent.js';
import { ethtoolSettings, isApplicable, operationText, type EthtoolKind, type Operation } from './operations.js';
import { changeText, checkSysctl, type Change } from './vocabulary.js';

export const SYSCTL_DROP_IN = '/etc/sysctl.d/90-nicdoctor.conf';

export type PlannedCommand =
  /** Whitelisted: --apply may run it (unless the fix is disruptive). */
  | { kind: 'change'; text: string; changes: Change[]; generated?: string }
  /** A change outside the vocabulary: printed for a human, never run by nicdoctor. */
  | { kind: 'manual'; text: string; reason: string }
  /** Reads or measures only: printed as a comment to check by hand. */
  | { kind: 'inspect'; text: string }
  /** Cannot be printed as a runnable line (placeholder left, several lines). */
  | { kind: 'unusable'; text: string; reason: string }
  /** Same text as a command of a higher-ranked diagnosis. */
  | { kind: 'duplicate'; text: string };

export interface PlannedFix {
  text: string;
  disruptive: boolean;
  commands: PlannedCommand[];
  /** Persistent content that is neither sysctl nor .link, written as is. */
  otherFile: { file: string; content: string } | null;
  notes: string[];
}

export interface PlannedDiagnosis {
  diagnosis: DiagnosisEntry;
  /** The findings and facts behind it, as sentences. */
  because: string[];
  fixes: PlannedFix[];
}

export interface Origin {
  /** Rule id of the diagnosis that asked for it. */
  ruleId: string;
  disruptive: boolean;
}

export interface MergedSysctl extends Origin {
  key: string;
  value: string;
  /** Other values asked for by lower-ranked diagnoses (the first one wins). */
  conflicts: { value: string; ruleId: string }[];
}

export interface LinkSetting extends Origin {
  key: string;
  value: string;
  /** The runtime ethtool form, for the udev and NetworkManager alternatives. */
  ethtool: { op: EthtoolKind; name: string; value: string } | null;
  conflicts: { value: string; ruleId: string }[];
}

export interface LinkPlan {
  iface: string;
  pciAddress: string | null;
  settings: LinkSetting[];
  /** ethtool settings systemd has no .link key for (udev/NetworkManager only). */
  unmapped: { op: EthtoolKind; name: string; value: string; ruleId: string; disruptive: boolean }[];
}

export interface ApplyItem {
  change: Change;
  ruleId: string;
}

export interface FixPlan {
  host: string;
  source: string;
  generatedAt: string;
  diagnoses: PlannedDiagnosis[];
  sysctl: MergedSysctl[];
  sysctlRejected: string[];
  links: LinkPlan[];
  /** Non-disruptive whitelisted changes, in rank order, each once. */
  apply: ApplyItem[];
  /** Commands of non-disruptive fixes that --apply leaves to a human, and why. */
  notApplied: { text: string; ruleId: string; reason: string }[];
  /** Disruptive fixes' commands (never applied by --apply). */
  disruptive: { text: string; ruleId: string }[];
  /** The whitelisted changes of disruptive fixes, in rank order: only `--verify --allow-disruptive` runs them. */
  disruptiveApply: ApplyItem[];
}

const VOCABULARY = 'nicdoctor --apply runs only ethtool -K/-L/-G/-C/-A and sysctl -w net.*';

/** Why an operation kind that changes the host is left to a human. */
const MANUAL_REASON: Partial<Record<Operation['kind'], string>> = {
  'rps-cpus': `writes rps_cpus in sysfs; ${VOCABULARY}`,
  'irq-affinity': `writes /proc/irq/*/smp_affinity_list; ${VOCABULARY}`,
  manual: `a step for a human; ${VOCABULARY}`,
};

/** Interface names the kernel allows but a shell would expand ($, `, ;, quotes...). */
function hostileNamesOf(report: Report): string[] {
  return [...new Set([...report.interfaces.map((entry) => entry.name), ...report.diagnoses.map((entry) => entry.subject)])].filter(
    (name) => isValidInterfaceName(name) && needsQuoting(name),
  );
}

/**
 * Free text for a human (a manual operation, or a command of a report written before fixes had
 * operations): printed as a runnable line only when it is one line, fully filled in, and holds
 * no hostile interface name, whose quoting context in the text (double quotes, $(...)) is unknown.
 */
function classifyText(text: string, hostileNames: readonly string[], reason: string): PlannedCommand {
  if (!isSingleLine(text)) return { kind: 'unusable', text, reason: 'spans several lines' };
  const missing = unfilledPlaceholders(text);
  if (missing.length) return { kind: 'unusable', text, reason: `not filled in: ${missing.join(', ')}` };
  const present = hostileNames.filter((name) => text.includes(name));
  if (present.length)
    return {
      kind: 'unusable',
      text: quoteWords(text, present),
      reason: `interface name ${present.map((name) => JSON.stringify(name)).join(', ')} holds shell characters; check the command and run it by hand`,
    };
  return { kind: 'manual', text, reason };
}

/** One operation: applicable kinds are changes; their text is rendered with every value quoted. */
function classifyOperation(op: Operation, hostileNames: readonly string[]): PlannedCommand {
  const text = operationText(op);
  if (isApplicable(op)) return { kind: 'change', text, changes: [op] };
  if (op.kind === 'inspect') return { kind: 'inspect', text };
  if (op.kind === 'manual') return classifyText(text, hostileNames, MANUAL_REASON.manual!);
  return { kind: 'manual', text, reason: MANUAL_REASON[op.kind] ?? VOCABULARY };
}

function describeEvidence(report: Report, diagnosis: DiagnosisEntry): string[] {
  const lines: string[] = [];
  for (const item of diagnosis.evidence) {
    if ('check' in item) {
      const finding = report.checks
        .find((check) => check.id === item.check)
        ?.findings.find((candidate) => candidate.symptom === item.symptom && candidate.subject === item.subject);
      if (!finding) {
        lines.push(`${item.check}/${item.symptom} on ${item.subject}`);
        continue;
      }
      lines.push(`${item.check}/${item.symptom} (${finding.severity}) on ${item.subject}: ${finding.message}`);
      for (const evidence of finding.evidence) {
        const unit = evidence.unit ? ` ${evidence.unit}` : '';
        const expected = evidence.expected === undefined ? '' : ` (expected ${String(evidence.expected)}${unit})`;
        lines.push(`  ${evidence.label}: ${String(evidence.observed)}${unit}${expected}`);
      }
    } else {
      lines.push(`fact ${item.fact} ${item.path} = ${String(item.value)}`);
    }
  }
  return lines;
}

type Fix = DiagnosisEntry['fixes'][number];

/** What the whole plan gathers while the diagnoses are walked in rank order. */
class PlanBuilder {
  readonly seen = new Set<string>();
  readonly sysctl = new Map<string, MergedSysctl>();
  readonly sysctlRejected: string[] = [];
  readonly links = new Map<string, LinkPlan>();
  readonly apply: ApplyItem[] = [];
  readonly applied = new Set<string>();
  readonly notApplied: FixPlan['notApplied'] = [];
  readonly disruptive: FixPlan['disruptive'] = [];
  readonly disruptiveApply: ApplyItem[] = [];

  constructor(private readonly report: Report) {}

  private pciOf(iface: string): string | null {
    const address = this.report.interfaces.find((entry) => entry.name === iface)?.pciAddress ?? null;
    return address && /^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/.test(address) ? address : null;
  }

  addSysctl(key: string, value: string, origin: Origin): void {
    const existing = this.sysctl.get(key);
    if (!existing) this.sysctl.set(key, { key, value, ...origin, conflicts: [] });
    else if (existing.value !== value) existing.conflicts.push({ value, ruleId: origin.ruleId });
    // A key a non-disruptive fix also wants is not disruptive to set.
    else if (!origin.disruptive) existing.disruptive = false;
  }

  linkFor(iface: string): LinkPlan {
    let plan = this.links.get(iface);
    if (!plan) this.links.set(iface, (plan = { iface, pciAddress: this.pciOf(iface), settings: [], unmapped: [] }));
    return plan;
  }

  addLink(iface: string, key: string, value: string, ethtool: LinkSetting['ethtool'], origin: Origin): void {
    const plan = this.linkFor(iface);
    const existing = plan.settings.find((setting) => setting.key === key);
    if (!existing) plan.settings.push({ key, value, ethtool, ...origin, conflicts: [] });
    else if (existing.value !== value) existing.conflicts.push({ value, ruleId: origin.ruleId });
    else {
      existing.ethtool ??= ethtool;
      if (!origin.disruptive) existing.disruptive = false;
    }
  }

  /** A change's persistent form: sysctl to the drop-in, ethtool settings to the interface's .link file. */
  persistChange(change: Change, origin: Origin): void {
    if (change.kind === 'sysctl') return this.addSysctl(change.key, change.value, origin);
    for (const [name, value] of ethtoolSettings(change)) {
      const mapped = linkSetting(change.kind, name, value);
      if (mapped) this.addLink(change.iface, mapped[0], mapped[1], { op: change.kind, name, value }, origin);
      else this.linkFor(change.iface).unmapped.push({ op: change.kind, name, value, ...origin });
    }
  }

  /** Files each command once (later ones are duplicates) under apply, not applied, or disruptive. */
  record(commands: PlannedCommand[], origin: Origin): void {
    for (const [index, command] of commands.entries()) {
      if (command.kind === 'unusable' || command.kind === 'inspect') continue;
      if (this.seen.has(command.text)) {
        commands[index] = { kind: 'duplicate', text: command.text };
        continue;
      }
      this.seen.add(command.text);
      if (command.kind === 'change') for (const change of command.changes) this.persistChange(change, origin);
      if (origin.disruptive) {
        this.disruptive.push({ text: command.text, ruleId: origin.ruleId });
        if (command.kind === 'change') this.disruptiveApply.push(...command.changes.map((change) => ({ change, ruleId: origin.ruleId })));
      } else if (command.kind === 'change') {
        for (const change of command.changes) {
          const key = changeText(change);
          if (!this.applied.has(key)) this.apply.push({ change, ruleId: origin.ruleId });
          this.applied.add(key);
        }
      } else if (command.kind === 'manual') this.notApplied.push({ text: command.text, ruleId: origin.ruleId, reason: command.reason });
    }
  }
}

/**
 * Persistent content: sysctl lines (returned, to set now as well), .link keys merged into the
 * interface's file, any other plain path written as is.
 */
function planPersistent(
  fix: Fix,
  diagnosis: DiagnosisEntry,
  origin: Origin,
  builder: PlanBuilder,
  notes: string[],
): { sysctlLines: { key: string; value: string }[]; otherFile: PlannedFix['otherFile'] } {
  const sysctlLines: { key: string; value: string }[] = [];
  if (!fix.persistent) return { sysctlLines, otherFile: null };
  const { file, content } = fix.persistent;
  if (isSysctlDropIn(file) || /sysctl/.test(file)) {
    const parsed = parseSysctlConf(content);
    sysctlLines.push(...parsed.lines);
    builder.sysctlRejected.push(...parsed.rejected.map((line) => `${diagnosis.ruleId}: ${line}`));
  } else if (isLinkFile(file)) {
    const parsed = parseLinkFile(content);
    const named = parsed.match.find(([key]) => key === 'OriginalName')?.[1];
    const iface = isValidInterfaceName(diagnosis.subject) ? diagnosis.subject : named;
    if (iface && isValidInterfaceName(iface)) for (const [key, value] of parsed.link) builder.addLink(iface, key, value, null, origin);
    else notes.push(`${file}: no interface to match, not written`);
  } else if (isSingleLine(file) && /^\/[A-Za-z0-9_./@+-]+$/.test(file) && !file.includes('..')) {
    return { sysctlLines, otherFile: { file, content } };
  } else {
    notes.push(`persistent file "${file}" is not a plain path, not written`);
  }
  return { sysctlLines, otherFile: null };
}

/**
 * The drop-in's sysctl lines are also set now, explicitly (not with `sysctl --system`, which
 * would reload every drop-in on the host), unless an operation of the fix already sets the key.
 */
function sysctlNow(
  lines: readonly { key: string; value: string }[],
  commands: readonly PlannedCommand[],
  origin: Origin,
  builder: PlanBuilder,
): PlannedCommand[] {
  const setKeys = new Set(
    commands.flatMap((command) =>
      command.kind === 'change' ? command.changes.flatMap((change) => (change.kind === 'sysctl' ? [change.key] : [])) : [],
    ),
  );
  const generated: PlannedCommand[] = [];
  for (const line of lines) {
    builder.addSysctl(line.key, line.value, origin);
    if (setKeys.has(line.key)) continue;
    const checked = checkSysctl(line.key, line.value);
    const text = shellJoin(['sysctl', '-w', `${line.key}=${line.value}`]);
    generated.push(
      checked.ok
        ? { kind: 'change', text, changes: [checked.change], generated: 'from the drop-in' }
        : { kind: 'manual', text, reason: checked.reason },
    );
  }
  return generated;
}

function planFix(fix: Fix, diagnosis: DiagnosisEntry, hostileNames: readonly string[], builder: PlanBuilder): PlannedFix {
  const origin: Origin = { ruleId: diagnosis.ruleId, disruptive: fix.disruptive };
  const notes: string[] = [];
  // A report written before fixes carried operations: its commands are text for a human.
  const commands: PlannedCommand[] = fix.operations
    ? fix.operations.map((op) => classifyOperation(op, hostileNames))
    : fix.commands.map((text) => classifyText(text, hostileNames, 'a report without typed operations: printed, never run'));
  const { sysctlLines, otherFile } = planPersistent(fix, diagnosis, origin, builder, notes);
  commands.push(...sysctlNow(sysctlLines, commands, origin, builder));
  builder.record(commands, origin);
  return { text: fix.text, disruptive: fix.disruptive, commands, otherFile, notes };
}

export function buildPlan(report: Report): FixPlan {
  const hostileNames = hostileNamesOf(report);
  const builder = new PlanBuilder(report);
  const diagnoses = report.diagnoses.map((diagnosis): PlannedDiagnosis => ({
    diagnosis,
    because: describeEvidence(report, diagnosis),
    fixes: diagnosis.fixes.map((fix) => planFix(fix, diagnosis, hostileNames, builder)),
  }));
  return {
    host: report.host.hostname,
    source: report.source.path ? `${report.source.mode} ${report.source.path}` : report.source.mode,
    generatedAt: report.generatedAt,
    diagnoses,
    sysctl: [...builder.sysctl.values()],
    sysctlRejected: builder.sysctlRejected,
    links: [...builder.links.values()],
    apply: builder.apply,
    notApplied: builder.notApplied,
    disruptive: builder.disruptive,
    disruptiveApply: builder.disruptiveApply,
  };
}
