/**
 * The persistent form of the changes `fix --verify` kept, and only those: a sysctl drop-in for
 * the sysctl changes, a systemd .link file per interface for the ethtool ones. A change that
 * was measured and reverted has no place in a file that would bring it back at the next boot.
 */
import type { Report } from '../report/schema.js';
import { ethtoolSettings } from './operations.js';
import { linkSetting } from './persistent.js';
import { SYSCTL_DROP_IN, type LinkPlan } from './plan.js';
import { linkFileContent, linkFilePath } from './script.js';
import type { Change } from './vocabulary.js';

const PCI_ADDRESS = /^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$/;

export function persistentForKept(
  report: Report,
  kept: readonly { ruleId: string; changes: readonly Change[] }[],
): { file: string; content: string }[] {
  const sysctl: string[] = [];
  const links = new Map<string, LinkPlan>();
  for (const { ruleId, changes } of kept) {
    for (const change of changes) {
      if (change.kind === 'sysctl') {
        sysctl.push(`${change.key} = ${change.value}`);
        continue;
      }
      let link = links.get(change.iface);
      if (!link) {
        const address = report.interfaces.find((entry) => entry.name === change.iface)?.pciAddress ?? null;
        link = { iface: change.iface, pciAddress: address && PCI_ADDRESS.test(address) ? address : null, settings: [], unmapped: [] };
        links.set(change.iface, link);
      }
      for (const [name, value] of ethtoolSettings(change)) {
        const mapped = linkSetting(change.kind, name, value);
        if (mapped)
          link.settings.push({
            key: mapped[0],
            value: mapped[1],
            ethtool: { op: change.kind, name, value },
            ruleId,
            disruptive: false,
            conflicts: [],
          });
      }
    }
  }
  const files: { file: string; content: string }[] = [];
  if (sysctl.length)
    files.push({
      file: SYSCTL_DROP_IN,
      content: `# nicdoctor fix --verify: the sysctl changes it measured and kept\n${sysctl.join('\n')}\n`,
    });
  for (const link of links.values())
    if (link.settings.length) files.push({ file: linkFilePath(link), content: `${linkFileContent(link).join('\n')}\n` });
  return files;
}
