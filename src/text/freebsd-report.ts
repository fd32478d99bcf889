import type { Report } from '../report/schema.js';
import type { Operation } from '../report/fix-operations.js';
import { sysctlNodeOf } from '../domain/freebsd.js';
import { freebsdFixOf, tunablesPlace, type FreebsdProduct } from './freebsd-fixes.js';

/**
 * A report on a FreeBSD host, in FreeBSD's terms: checks whose input only Linux has say so
 * instead of "unknown", and fixes name FreeBSD's commands and files.
 */

/** The files FreeBSD reads its tunables, sysctls and interface settings from. */
const FREEBSD_CONFIG_FILES: ReadonlySet<string> = new Set(['/boot/loader.conf', '/etc/sysctl.conf', '/etc/rc.conf']);

/** Checks whose input exists only on Linux, and what FreeBSD has instead. */
export const LINUX_ONLY_CHECKS: Readonly<Record<string, string>> = {
  softnet: 'FreeBSD has no softnet_stat: its netisr queues and their drops are in `netstat -Q`',
  qdisc: 'FreeBSD has no tc qdiscs: traffic shaping is ALTQ or dummynet, set in the firewall',
  'kernel-pcie': "FreeBSD's kernel prints no PCIe bandwidth line: the link is read from pciconf -lvc (pcie-link)",
  tools: 'ethtool and lspci are Linux tools: on FreeBSD the same facts come from ifconfig, pciconf and sysctl',
  'conntrack-table': "FreeBSD has no nf_conntrack: a firewall's state table is pf's (pfctl -si shows its limit and use)",
  'socket-memory': 'FreeBSD has no tcp_mem or sockstat pressure: its packet memory is the mbuf pools of netstat -m (mbufs)',
  'rss-indirection': 'FreeBSD drivers show no RSS indirection table (Linux ethtool -x); the queue count is judged by rss-queues',
};

/** OPNsense, pfSense, TrueNAS CORE (FreeNAS), OneFS: named by the text or uname's kernel ident. */
export function productOf(text: string): FreebsdProduct {
  const sample = text.slice(0, 2_000_000);
  if (/\b(?:TrueNAS|FreeNAS)\b/i.test(sample)) return 'truenas';
  if (/\bOPNsense\b/i.test(sample)) return 'opnsense';
  if (/\bpfSense\b/i.test(sample)) return 'pfsense';
  if (/\bOneFS\b|\bPowerScale\b|\bIsilon\b/i.test(sample)) return 'onefs';
  return null;
}

export function freebsdReport(report: Report, product: FreebsdProduct): void {
  for (const check of report.checks) {
    const reason = LINUX_ONLY_CHECKS[check.id];
    if (!reason || check.status === 'fail' || check.status === 'pass') continue;
    check.status = 'not-applicable';
    check.reason = reason;
    delete check.hint;
    for (const subject of check.subjects) {
      subject.status = 'not-applicable';
      subject.reason = reason;
      delete subject.hint;
    }
  }
  const explained = [...report.diagnoses, ...(report.notes ?? [])];
  for (const diagnosis of explained) {
    for (const fix of diagnosis.fixes) {
      const translated = translate(fix.operations ?? [], product);
      if (!translated) continue;
      fix.commands = translated.commands;
      fix.operations = translated.commands.map((text) => ({ kind: 'manual', text }));
      if (translated.persistent) fix.persistent = translated.persistent;
      // A rule written for FreeBSD names its own file; a Linux drop-in has no meaning here.
      else if (!FREEBSD_CONFIG_FILES.has(fix.persistent?.file ?? '')) delete fix.persistent;
      if (translated.note) fix.text = `${fix.text} (${translated.note})`;
    }
  }
  for (const finding of report.checks.flatMap((check) => check.findings)) {
    if (!finding.fix) continue;
    const cited = explained.find((diagnosis) =>
      diagnosis.evidence.some(
        (item) => 'check' in item && item.check === finding.check && item.symptom === finding.symptom && item.subject === finding.subject,
      ),
    );
    const fix = cited?.fixes.find((candidate) => candidate.commands.length > 0);
    finding.fix = fix ? `${fix.text} ${fix.commands.join('; ')}` : freebsdPointer(finding.check, finding.subject);
  }
}

interface Translation {
  commands: string[];
  persistent: { file: string; content: string } | null;
  note: string | null;
}

function translate(operations: readonly Operation[], product: FreebsdProduct): Translation | null {
  if (operations.length === 0) return null;
  const commands: string[] = [];
  const files: Array<{ file: string; content: string }> = [];
  for (const op of operations) {
    if (op.kind === 'inspect') {
      commands.push(inspectOn(op.argv, op.grep?.pattern));
      continue;
    }
    if (op.kind === 'manual') {
      commands.push(op.text);
      continue;
    }
    const fix = freebsdFixOf(op);
    if (!fix) continue;
    commands.push(...fix.commands);
    if (fix.persistent) files.push(fix.persistent);
  }
  const file = files[0]?.file;
  const persistent = file
    ? {
        file,
        content: files
          .filter((entry) => entry.file === file)
          .map((entry) => entry.content)
          .join('\n'),
      }
    : null;
  const note =
    persistent && persistent.file !== '/etc/rc.conf'
      ? `on FreeBSD: ${persistent.file}; ${tunablesPlace(product)}`
      : persistent
        ? `on FreeBSD: ${persistent.file}`
        : null;
  return { commands, persistent, note };
}

/** A Linux read-only command as the FreeBSD one that shows the same. */
function inspectOn(argv: readonly string[], pattern: string | undefined): string {
  const iface = argv.find((arg, index) => index > 0 && !arg.startsWith('-') && /^[a-z][a-z_]*\d+$/.test(arg));
  const node = iface ? sysctlNodeOf(iface) : null;
  const grep = pattern ? ` | grep -iE '${pattern.replace(/'/g, '')}'` : '';
  if (argv[0] === 'ethtool' && iface) {
    if (argv.includes('-m')) return `ifconfig -vvv ${iface}`;
    return node ? `sysctl ${node}${grep}` : `ifconfig -v ${iface}`;
  }
  if (argv[0] === 'lspci') return iface ? `pciconf -lvc ${iface}` : 'pciconf -lvc';
  if (argv[0] === 'ip') return iface ? `ifconfig -v ${iface}` : 'ifconfig -a';
  if (argv.includes('/proc/interrupts')) return 'vmstat -i';
  return argv.join(' ') + grep;
}

/** A finding no diagnosis explains: where FreeBSD shows and sets what it is about. */
function freebsdPointer(check: string, subject: string): string {
  const node = sysctlNodeOf(subject) ?? 'dev.<driver>.<unit>';
  switch (check) {
    case 'offloads':
      return `ifconfig -m ${subject} shows what the driver can do (capabilities=) and what is on (options=); turn on with ifconfig ${subject} rxcsum txcsum tso, and keep it in /etc/rc.conf (ifconfig_${subject}="... tso") — not on a firewall that forwards (OPNsense and pfSense turn these off on purpose)`;
    case 'rss-queues':
      return `queues are set at boot: ${node}.iflib.override_nrxqs and override_ntxqs in /boot/loader.conf (hw.<driver>.num_queues before iflib)`;
    case 'rx-rings':
      return `descriptors are set at boot: ${node}.iflib.override_nrxds in /boot/loader.conf`;
    case 'flow-control':
      return `sysctl ${node}.fc=3 (0 none, 1 rx, 2 tx, 3 both); keep it in /etc/sysctl.conf`;
    case 'link-speed':
      return `ifconfig -v ${subject} (media, status), ifconfig -vvv ${subject} (the module), sysctl ${node} | grep -iE 'crc|fault|err'`;
    case 'mtu':
      return `ifconfig ${subject} mtu <size>; keep it in /etc/rc.conf (ifconfig_${subject}="... mtu <size>")`;
    case 'socket-buffers':
      return 'sysctl kern.ipc.maxsockbuf net.inet.tcp.sendbuf_max net.inet.tcp.recvbuf_max; raise them in /etc/sysctl.conf';
    case 'pcie-link':
      return `pciconf -lvc ${subject}: the card's PCI-Express link (LnkSta(LnkCap)); move it to a slot with the lanes and speed it is capable of`;
    default:
      return `sysctl ${node}; ifconfig -v ${subject}`;
  }
}
