/**
 * From a report's diagnoses to a fix plan: every fix command sorted into what nicdoctor could
 * apply (the whitelisted vocabulary), what a human runs, what only inspects, and what cannot
 * be printed as runnable (a placeholder left unfilled); sysctl lines merged into one drop-in
 * and ethtool settings into one .link file per interface. The script and --apply both use it.
 */
import type { DiagnosisEntry, Report } from '../report/schema.js';
import { isValidInterfaceName } from '../util/validate.js';
import { isSingleLine, needsQuoting, quoteWords, shellJoin, unfilledPlaceholders } from './shell.js';
import { isLinkFile, isSysctlDropIn, linkSetting, parseLinkFile, parseSysctlConf } from './persistent.js';
import { changeText, checkSysctl, parseCommand, type Change, type EthtoolChange } from './vocabulary.js';

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
  ethtool: { op: EthtoolChange['op']; name: string; value: string } | null;
  conflicts: { value: string; ruleId: string }[];
}

export interface LinkPlan {
  iface: string;
  pciAddress: string | null;
  settings: LinkSetting[];
  /** ethtool settings systemd has no .link key for (udev/NetworkManager only). */
  unmapped: { op: EthtoolChange['op']; name: string; value: string; ruleId: string; disruptive: boolean }[];
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
  /** Disruptive fixes' commands (never applied). */
  disruptive: { text: string; ruleId: string }[];
}

/** Commands that only read or measure (first word, or ethtool's read flags). */
function isInspection(argvText: string): boolean {
  const words = argvText.trim().split(/\s+/);
  const [tool, second] = words;
  if (['lspci', 'cat', 'grep', 'ping', 'nicdoctor', 'iperf3', 'numactl', 'taskset', 'ls', 'readlink', 'lscpu', 'ss', 'nstat', 'mpstat'].includes(tool ?? '')) return true;
  if (tool === 'ethtool') return !second || !second.startsWith('-') || /^(-[SimklgcaxnTPde]|--(statistics|driver|module-info|show-\S+|dump-\S+))$/.test(second);
  if (tool === 'ip' || tool === 'tc') return /\bshow\b|\s-s\b/.test(argvText) && !/\b(set|add|del|change|replace)\b/.test(argvText);
  return false;
}

/** `sysctl --system` / `-p`: replaced by explicit sysctl -w of the fix's own lines. */
function isSysctlReload(text: string): boolean {
  return /^sysctl\s+(--system|-p|--load)(\s|$)/.test(text.trim());
}

/**
 * Classifies a command, after quoting the interface names in it that a shell would expand: a
 * whitelisted change then parses into argv again; any other command that holds such a name is
 * not printed as runnable, because its quoting context (double quotes, $(...)) is unknown.
 */
function classifyQuoted(raw: string, hostileNames: readonly string[]): PlannedCommand {
  const present = hostileNames.filter((name) => raw.includes(name));
  if (present.length === 0) return classify(raw);
  const planned = classify(quoteWords(raw, present));
  if (planned.kind === 'change' || planned.kind === 'unusable') return planned;
  return { kind: 'unusable', text: quoteWords(raw, present), reason: `interface name ${present.map((name) => JSON.stringify(name)).join(', ')} holds shell characters; check the command and run it by hand` };
}

function classify(text: string): PlannedCommand {
  if (!isSingleLine(text)) return { kind: 'unusable', text, reason: 'spans several lines' };
  const missing = unfilledPlaceholders(text);
  if (missing.length) return { kind: 'unusable', text, reason: `not filled in: ${missing.join(', ')}` };
  const parsed = parseCommand(text);
  if (parsed.ok) return { kind: 'change', text, changes: parsed.changes };
  if (isInspection(text)) return { kind: 'inspect', text };
  return { kind: 'manual', text, reason: parsed.reason };
}

/**
 * A fix without commands whose text starts with a whitelisted command ("ethtool -L fxa rx 2
 * tx 2 (one queue per ...)"): that command is the fix.
 */
function commandInText(text: string): string | null {
  const candidate = text.split(/ \(|; |, then | — /)[0]!.trim().replace(/[.:]$/, '');
  return parseCommand(candidate).ok ? candidate : null;
}

function describeEvidence(report: Report, diagnosis: DiagnosisEntry): string[] {
  const lines: string[] = [];
  for (const item of diagnosis.evidence) {
    if ('check' in item) {
      const finding = report.checks.find((check) => check.id === item.check)?.findings.find((candidate) => candidate.symptom === item.symptom && candidate.subject === item.subject);
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

export function buildPlan(report: Report): FixPlan {
  // Names the kernel allows but a shell would expand ($, `, ;, quotes...): quoted wherever they appear.
  const hostileNames = [...new Set([...report.interfaces.map((entry) => entry.name), ...report.diagnoses.map((entry) => entry.subject)])].filter(
    (name) => isValidInterfaceName(name) && needsQuoting(name),
  );
  const classify = (text: string) => classifyQuoted(text, hostileNames);
  const seen = new Set<string>();
  const sysctl = new Map<string, MergedSysctl>();
  const sysctlRejected: string[] = [];
  const links = new Map<string, LinkPlan>();
  const apply: ApplyItem[] = [];
  const applied = new Set<string>();
  const notApplied: FixPlan['notApplied'] = [];
  const disruptive: FixPlan['disruptive'] = [];
  const pciOf = (iface: string) => {
    const address = report.interfaces.find((entry) => entry.name === iface)?.pciAddress ?? null;
    return address && /^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/.test(address) ? address : null;
  };

  const addSysctl = (key: string, value: string, origin: Origin) => {
    const existing = sysctl.get(key);
    if (!existing) sysctl.set(key, { key, value, ...origin, conflicts: [] });
    else if (existing.value !== value) existing.conflicts.push({ value, ruleId: origin.ruleId });
    // A key a non-disruptive fix also wants is not disruptive to set.
    else if (!origin.disruptive) existing.disruptive = false;
  };
  const linkFor = (iface: string): LinkPlan => {
    let plan = links.get(iface);
    if (!plan) links.set(iface, (plan = { iface, pciAddress: pciOf(iface), settings: [], unmapped: [] }));
    return plan;
  };
  const addLink = (iface: string, key: string, value: string, ethtool: LinkSetting['ethtool'], origin: Origin) => {
    const plan = linkFor(iface);
    const existing = plan.settings.find((setting) => setting.key === key);
    if (!existing) plan.settings.push({ key, value, ethtool, ...origin, conflicts: [] });
    else if (existing.value !== value) existing.conflicts.push({ value, ruleId: origin.ruleId });
    else {
      existing.ethtool ??= ethtool;
      if (!origin.disruptive) existing.disruptive = false;
    }
  };

  const diagnoses = report.diagnoses.map((diagnosis): PlannedDiagnosis => {
    const fixes = diagnosis.fixes.map((fix): PlannedFix => {
      const origin: Origin = { ruleId: diagnosis.ruleId, disruptive: fix.disruptive };
      const notes: string[] = [];
      const texts = [...fix.commands];
      if (texts.length === 0) {
        const found = commandInText(fix.text);
        if (found) texts.push(found);
      }
      const commands: PlannedCommand[] = [];
      const setKeys = new Set<string>();
      let reloads = false;
      for (const text of texts) {
        if (isSysctlReload(text)) {
          reloads = true;
          continue;
        }
        const planned = classify(text);
        if (planned.kind === 'change') for (const change of planned.changes) if (change.tool === 'sysctl') setKeys.add(change.key);
        commands.push(planned);
      }

      // Persistent content: sysctl lines to the one drop-in, .link keys to the interface's file.
      let otherFile: PlannedFix['otherFile'] = null;
      const persistentSysctl: { key: string; value: string }[] = [];
      if (fix.persistent) {
        const { file, content } = fix.persistent;
        if (isSysctlDropIn(file) || /sysctl/.test(file)) {
          const parsed = parseSysctlConf(content);
          persistentSysctl.push(...parsed.lines);
          sysctlRejected.push(...parsed.rejected.map((line) => `${diagnosis.ruleId}: ${line}`));
        } else if (isLinkFile(file)) {
          const parsed = parseLinkFile(content);
          const named = parsed.match.find(([key]) => key === 'OriginalName')?.[1];
          const iface = isValidInterfaceName(diagnosis.subject) ? diagnosis.subject : named;
          if (iface && isValidInterfaceName(iface)) for (const [key, value] of parsed.link) addLink(iface, key, value, null, origin);
          else notes.push(`${file}: no interface to match, not written`);
        } else if (isSingleLine(file) && /^\/[A-Za-z0-9_./@+-]+$/.test(file) && !file.includes('..')) {
          otherFile = { file, content };
        } else {
          notes.push(`persistent file "${file}" is not a plain path, not written`);
        }
      }
      // The fix's sysctl lines are also set now, explicitly (instead of `sysctl --system`,
      // which would reload every drop-in on the host, not just these).
      for (const line of persistentSysctl) {
        addSysctl(line.key, line.value, origin);
        if (setKeys.has(line.key)) continue;
        const checked = checkSysctl(line.key, line.value);
        const text = shellJoin(['sysctl', '-w', `${line.key}=${line.value}`]);
        commands.push(checked.ok ? { kind: 'change', text, changes: [checked.change], generated: reloads ? 'instead of sysctl --system' : 'from the drop-in' } : { kind: 'manual', text, reason: checked.reason });
      }
      if (reloads && persistentSysctl.length === 0) commands.push(classify('sysctl --system'));

      for (const [index, command] of commands.entries()) {
        if (command.kind === 'unusable' || command.kind === 'inspect') continue;
        if (seen.has(command.text)) {
          commands[index] = { kind: 'duplicate', text: command.text };
          continue;
        }
        seen.add(command.text);
        if (command.kind === 'change') {
          for (const change of command.changes) {
            if (change.tool === 'sysctl') addSysctl(change.key, change.value, origin);
            else
              for (const [name, value] of change.settings) {
                const mapped = linkSetting(change.op, name, value);
                if (mapped) addLink(change.iface, mapped[0], mapped[1], { op: change.op, name, value }, origin);
                else linkFor(change.iface).unmapped.push({ op: change.op, name, value, ...origin });
              }
          }
        }
        if (fix.disruptive) disruptive.push({ text: command.text, ruleId: diagnosis.ruleId });
        else if (command.kind === 'change') {
          for (const change of command.changes) {
            const key = changeText(change);
            if (!applied.has(key)) apply.push({ change, ruleId: diagnosis.ruleId });
            applied.add(key);
          }
        } else if (command.kind === 'manual') notApplied.push({ text: command.text, ruleId: diagnosis.ruleId, reason: command.reason });
      }
      return { text: fix.text, disruptive: fix.disruptive, commands, otherFile, notes };
    });
    return { diagnosis, because: describeEvidence(report, diagnosis), fixes };
  });

  return {
    host: report.host.hostname,
    source: report.source.path ? `${report.source.mode} ${report.source.path}` : report.source.mode,
    generatedAt: report.generatedAt,
    diagnoses,
    sysctl: [...sysctl.values()],
    sysctlRejected,
    links: [...links.values()],
    apply,
    notApplied,
    disruptive,
  };
}
