/**
 * Renders a fix plan as a bash script for a human to review and run: every value from the
 * report reaches the script either inside a `#` comment (one line each, control characters
 * dropped), inside a quoted heredoc whose content was validated line by line, or as a command
 * that was checked to be one printable line with no placeholder left.
 */
import { VERSION } from '../util/version.js';
import { comment, shellJoin, shellQuote } from './shell.js';
import { isLiteralMatchName, nmSetting } from './persistent.js';
import { SYSCTL_DROP_IN, type FixPlan, type LinkPlan, type PlannedCommand, type PlannedDiagnosis } from './plan.js';
import { ETHTOOL_FLAGS, type EthtoolKind } from './operations.js';

const RULE = '#'.repeat(78);

/** A heredoc delimiter that no line of the content equals. */
function delimiterFor(lines: readonly string[]): string {
  let delimiter = 'NICDOCTOR_EOF';
  while (lines.includes(delimiter)) delimiter += '_';
  return delimiter;
}

/** `cat > FILE <<'EOF'`: quoted, so the shell expands nothing inside. */
function heredoc(file: string, lines: string[], commented: boolean): string[] {
  const delimiter = delimiterFor(lines);
  const block = [
    `install -d -m 0755 ${shellQuote(file.slice(0, file.lastIndexOf('/')) || '/')}`,
    `cat > ${shellQuote(file)} <<'${delimiter}'`,
    ...lines,
    delimiter,
  ];
  return commented ? block.map((line) => `# ${line}`) : block;
}

function commandLines(command: PlannedCommand, disruptive: boolean): string[] {
  switch (command.kind) {
    case 'change':
      return [...(command.generated ? comment(`(${command.generated})`) : []), disruptive ? `# ${command.text}` : command.text];
    case 'manual':
      return disruptive ? [`# ${command.text}`] : [command.text];
    case 'inspect':
      return comment(`check: ${command.text}`);
    case 'unusable':
      return comment(`not runnable (${command.reason}): ${command.text}`);
    case 'duplicate':
      return comment(`already above: ${command.text}`);
  }
}

function diagnosisBlock(entry: PlannedDiagnosis, rank: number): string[] {
  const { diagnosis } = entry;
  const out = [
    '',
    RULE,
    ...comment(`${rank}. ${diagnosis.title}  [${diagnosis.ruleId}]`),
    ...comment(
      `   subject ${diagnosis.subject}, cause ${diagnosis.cause}, confidence ${diagnosis.confidence}, ${diagnosis.mode}${diagnosis.limit ? `, limit ${diagnosis.limit}` : ''}`,
    ),
    RULE,
    ...comment(`Why: ${diagnosis.explanation}`),
    ...(diagnosis.verdict ? comment(diagnosis.verdict) : []),
  ];
  if (entry.because.length) out.push('# Evidence:', ...entry.because.flatMap((line) => comment(`  ${line}`)));
  if (diagnosis.ruledOut.length) out.push('# Ruled out:', ...diagnosis.ruledOut.flatMap((line) => comment(`  - ${line}`)));
  for (const fix of entry.fixes) {
    out.push('');
    if (fix.disruptive) {
      out.push(
        ...comment(`DISRUPTIVE, not run: ${fix.text}`),
        '# WARNING: this interrupts traffic or needs hands on the machine; uncomment in a maintenance window.',
      );
    } else {
      out.push(...comment(`Fix: ${fix.text}`));
    }
    let noted = new Set<string>();
    for (const command of fix.commands) {
      // "(instead of sysctl --system)" once per fix, not above every generated line.
      const lines = commandLines(
        command.kind === 'change' && command.generated && noted.has(command.generated) ? { ...command, generated: undefined } : command,
        fix.disruptive,
      );
      if (command.kind === 'change' && command.generated) noted = noted.add(command.generated);
      out.push(...lines);
    }
    if (fix.commands.length === 0) out.push('# (nothing to run: the fix is the text above)');
    for (const note of fix.notes) out.push(...comment(`note: ${note}`));
    if (fix.otherFile) {
      const lines = fix.otherFile.content.replace(/\n$/, '').split(/\r?\n/);
      const printable = lines.every((line) => /^[\x20-\x7e\t]*$/.test(line));
      if (printable) out.push(...heredoc(fix.otherFile.file, lines, fix.disruptive));
      else out.push(...comment(`not written: ${fix.otherFile.file} holds characters that are not plain text`));
    }
  }
  return out;
}

function sysctlBlock(plan: FixPlan): string[] {
  if (plan.sysctl.length === 0) return [];
  const lines = comment(
    `Written by nicdoctor fix for ${plan.host} (report of ${plan.generatedAt}); nicdoctor fix --revert does not remove it.`,
  );
  let group = '';
  for (const entry of plan.sysctl) {
    const line = `${entry.key} = ${entry.value}`;
    const heading = `${entry.ruleId}${entry.disruptive ? ' (disruptive: uncomment in a maintenance window)' : ''}`;
    if (heading !== group) lines.push(...comment(heading));
    group = heading;
    lines.push(entry.disruptive ? `# ${line}` : line);
    for (const conflict of entry.conflicts)
      lines.push(...comment(`${conflict.ruleId} asked for ${entry.key} = ${conflict.value}; the higher-ranked value above wins`));
  }
  const out = [
    '',
    RULE,
    `# Persistent: sysctl settings, one drop-in read at boot (the runtime lines above set them now).`,
    RULE,
    ...heredoc(SYSCTL_DROP_IN, lines, false),
  ];
  for (const rejected of plan.sysctlRejected) out.push(...comment(`skipped a line that is not "key = value": ${rejected}`));
  return out;
}

/** What replaces the .link file of an interface whose name is a glob and that has no PCI path to match. */
function unmatchableLinkBlock(link: LinkPlan): string[] {
  return [
    '',
    RULE,
    ...comment(
      `Persistent: not written for ${link.iface}: its name holds glob characters (* ? [ ] \\ | ! "), so OriginalName= or a udev NAME== match would also match other NICs, and the report has no PCI address to match by Path=. Write a .link file matching its MACAddress= by hand.`,
    ),
    RULE,
  ];
}

export function linkFilePath(link: LinkPlan): string {
  return `/etc/systemd/network/10-nicdoctor-${link.iface}.link`;
}

/** The .link file of an interface (disruptive settings commented out); `fix --verify` writes it for kept changes only. */
export function linkFileContent(link: LinkPlan): string[] {
  const match = link.pciAddress ? [`Path=pci-${link.pciAddress}`] : [`OriginalName=${link.iface}`];
  const lines = [
    `# nicdoctor fix: ethtool settings of ${link.iface}. systemd uses only the first .link file that`,
    '# matches a device, so this one replaces 99-default.link for it: keep its naming policy.',
    '[Match]',
    ...match,
    '[Link]',
    'NamePolicy=keep kernel database onboard slot path',
    'AlternativeNamesPolicy=database onboard slot path',
    'MACAddressPolicy=persistent',
  ];
  for (const setting of link.settings) {
    const line = `${setting.key}=${setting.value}`;
    lines.push(...(setting.disruptive ? comment(`${line}    (disruptive, ${setting.ruleId}: uncomment in a maintenance window)`) : [line]));
    for (const conflict of setting.conflicts)
      lines.push(...comment(`${conflict.ruleId} asked for ${setting.key}=${conflict.value}; the higher-ranked value above wins`));
  }
  return lines;
}

function linkBlock(link: LinkPlan): string[] {
  if (!link.pciAddress && !isLiteralMatchName(link.iface)) return unmatchableLinkBlock(link);
  const active = link.settings.filter((setting) => !setting.disruptive);
  const file = linkFilePath(link);
  const lines = linkFileContent(link);
  const out = [
    '',
    RULE,
    ...comment(`Persistent: ethtool settings of ${link.iface} as a systemd .link file (applied by udev when the device appears).`),
    RULE,
  ];
  if (!link.pciAddress)
    out.push(
      ...comment(
        `${link.iface} has no PCI address in the report: matched by OriginalName, the kernel's name before udev renames it; match MACAddress= instead if it is renamed.`,
      ),
    );
  if (active.length === 0) out.push('# Every setting here belongs to a disruptive fix: the whole file is left commented out.');
  out.push(...heredoc(file, lines, active.length === 0));
  out.push(
    ...comment(
      `Check without rebooting: udevadm test-builtin net_setup_link /sys/class/net/${link.iface}  (some distributions also need the initramfs rebuilt)`,
    ),
  );

  // The same settings for hosts managed by NetworkManager or plain udev, as comments.
  const ethtool = [
    ...link.settings.filter((setting) => !setting.disruptive && setting.ethtool).map((setting) => setting.ethtool!),
    ...link.unmapped.filter((entry) => !entry.disruptive),
  ];
  if (ethtool.length) {
    const nm = ethtool.map((entry) => nmSetting(entry.op, entry.name, entry.value).join(' ')).join(' ');
    out.push('# Alternatives to the .link file:');
    out.push(...comment(`  NetworkManager: nmcli connection modify "$(nmcli -g GENERAL.CONNECTION device show ${link.iface})" ${nm}`));
    const byOp = new Map<EthtoolKind, string[]>();
    for (const entry of ethtool) byOp.set(entry.op, [...(byOp.get(entry.op) ?? []), entry.name, entry.value]);
    if (!isLiteralMatchName(link.iface)) {
      out.push(
        ...comment(
          `  udev: no rule, since a NAME match on ${link.iface} is a glob that would match other NICs; match ATTR{address} by hand.`,
        ),
      );
      byOp.clear();
    } else out.push(...comment(`  udev, in /etc/udev/rules.d/90-nicdoctor.rules:`));
    for (const [op, settings] of byOp) {
      const argv = ['ethtool', ETHTOOL_FLAGS[op].set, link.iface, ...settings];
      out.push(...comment(`    ACTION=="add", SUBSYSTEM=="net", NAME=="${link.iface}", RUN+="/usr/sbin/${shellJoin(argv)}"`));
    }
  }
  for (const entry of link.unmapped)
    out.push(
      ...comment(
        `systemd .link has no key for ethtool ${ETHTOOL_FLAGS[entry.op].set} ${entry.name} ${entry.value} (${entry.ruleId}): use the udev or NetworkManager form above`,
      ),
    );
  return out;
}

export function renderScript(plan: FixPlan): string {
  const out = [
    '#!/usr/bin/env bash',
    ...comment(`nicdoctor fix: changes proposed for ${plan.host}`),
    ...comment(`from the report of ${plan.generatedAt} (${plan.source}), nicdoctor ${VERSION}.`),
    '# Nothing has been changed: this script only prints what to do. Review it, then run it as root.',
    '# Diagnoses in rank order (strongest evidence first); disruptive fixes are commented out.',
    `# nicdoctor fix --apply runs only the ${plan.apply.length} non-disruptive ethtool/sysctl change(s), after saving the current values.`,
    'set -euo pipefail',
  ];
  if (plan.diagnoses.length === 0) {
    out.push('', '# No diagnoses: nothing to fix.', 'exit 0');
    return out.join('\n') + '\n';
  }
  plan.diagnoses.forEach((entry, index) => out.push(...diagnosisBlock(entry, index + 1)));
  out.push(...sysctlBlock(plan));
  for (const link of plan.links) if (link.settings.length || link.unmapped.length) out.push(...linkBlock(link));
  return out.join('\n') + '\n';
}
