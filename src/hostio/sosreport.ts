import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isPciAddress } from './sysfs-read.js';
import { ContainedReader } from './contained.js';
import { SnapshotError } from './snapshot.js';
import { HostIOError, commandKey, type ExecResult, type HostIO, type HostInventory } from './types.js';
import { blankInterfaceInfo, mergeKernelLog, unclaimedNics, type InterfaceInfo } from './capture-interfaces.js';
import { parseKernelLog } from '../parsers/kernel-log.js';
import { interfaceNamesInInterrupts } from '../parsers/proc-interrupts.js';
import { parseLspci, type LspciDevice } from '../parsers/lspci.js';
import { ParseError } from '../parsers/parse-error.js';

/**
 * Reads an extracted sosreport (sos's own layout) as if it were the host, so that the checks
 * run on what support engineers already receive:
 *
 *   sos_commands/<plugin>/<command key>   command output (`ethtool_-S_eth0`, `sysctl_-a`, `lspci_-nnvv`)
 *   proc/..., sys/..., etc/...            files copied at their real path
 *   hostname, uname, version.txt          sos's own summary files
 *
 * Recognised by `sos_commands/` alone (a partial or hand-made extract often lacks version.txt).
 * sos 3.x and 4.x name some outputs differently (`lspci_-nnvv` / `lspci_-nvv`, `ip_-d_address` /
 * `ip_address`); newer sos keeps per-device outputs in sub-folders of the plugin
 * (`sos_commands/networking/devices/...`): every file below a plugin is found by its name.
 * Every read goes through ContainedReader: nothing outside the tree, only regular files, capped.
 *
 * What sos does not copy is derived where sos holds the same value elsewhere: /proc/sys from
 * `sysctl -a`, an interface's speed/duplex/carrier from `ethtool <if>`, mtu/operstate from
 * `ip address`, its PCI function and driver from `ethtool -i`, `lspci -vv -s <BDF>` from that
 * device's block of `lspci -nnvv`. Anything else is 'not-captured' (a missing attribute inside
 * a directory sos did copy is 'not-found', as on the host).
 */

export async function isSosreport(dir: string): Promise<boolean> {
  return stat(path.join(dir, 'sos_commands')).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

/** Sub-folders of a plugin that hold other hosts' views (network namespaces), not this host's. */
const FOREIGN_SUBDIRS = new Set(['namespaces']);
/** How deep below sos_commands/<plugin> outputs are looked for, and how many files at most. */
const MAX_PLUGIN_DEPTH = 4;
const MAX_COMMAND_FILES = 200_000;

export type { InterfaceInfo } from './capture-interfaces.js';

/** sos's copies of the kernel log: the `dmesg` command, the journal's kernel messages, /var/log/dmesg. */
const KERNEL_LOG_FILES = ['dmesg', 'journalctl_--no-pager_--catalog_--boot_-k', 'journalctl_--no-pager_-k', 'journalctl_-k'];

/** The sos file names of the commands whose output stands in for sysfs and procfs. */
const LSPCI_FILES = ['lspci_-nnvv', 'lspci_-nvv', 'lspci_-vvnn', 'lspci_-vvv', 'lspci_-vv', 'lspci_-nvvv'];
const IP_ADDRESS_FILES = [
  'ip_-d_address',
  'ip_-d_address_show',
  'ip_address',
  'ip_addr',
  'ip_-o_addr',
  'ip_link',
  'ip_-d_link',
  'ip_-s_-d_link',
  'ip_-s_link',
];
/** `uname -a`: sos's top-level `uname` (a link into sos_commands/kernel) or the command file. */
const UNAME_FILES = ['uname', 'uname_-a'];
/** A command whose whole output is one of these lines failed: sos keeps stderr in the same file. */
const FAILURE_OUTPUT =
  /^(?:Cannot get .*|.*: Operation not supported|netlink error: .*|no stats available|Cannot .*: No such device.*|.*Operation not permitted.*)$/i;

export class SosreportHostIO implements HostIO {
  /** Offline, like a nicdoctor snapshot: collectors that behave differently offline do so here too. */
  readonly mode = 'snapshot' as const;
  readonly offlineInput = 'sosreport' as const;

  private constructor(
    readonly root: string,
    private readonly reader: ContainedReader,
    /** Command output files (relative to the root) by sos name (`ethtool_-S_eth0`), first plugin directory wins. */
    private readonly commands: Map<string, string>,
    private readonly interfaces: Map<string, InterfaceInfo>,
    private readonly sysctl: Map<string, string>,
  ) {}

  static async open(dir: string): Promise<SosreportHostIO> {
    if (!(await isSosreport(dir))) throw new SnapshotError(`${dir}: not an extracted sosreport: it has no sos_commands/ directory`);
    const reader = await ContainedReader.open(dir);
    const root = reader.root;
    const commands = new Map<string, string>();
    for (const plugin of (await reader.readDir('sos_commands')).sort())
      await collectCommandFiles(reader, path.join('sos_commands', plugin), 0, commands);
    const read = (name: string) =>
      commands.has(name) ? reader.readText(commands.get(name)!).catch(() => undefined) : Promise.resolve(undefined);
    const sysctl = parseSysctlA((await read('sysctl_-a')) ?? '');
    const ipText = (await Promise.all(IP_ADDRESS_FILES.map(read))).find((text) => text?.trim());
    const links = parseIpLinks(ipText ?? '');
    const names = new Set<string>();
    for (const name of commands.keys()) {
      const match = /^ethtool_(?:-[a-zA-Z]_)?(.+)$/.exec(name);
      if (match && !match[1]!.startsWith('-')) names.add(match[1]!);
    }
    for (const name of links.keys()) names.add(name);
    // sos mangles a file name's odd characters to "_" (as commandKey does): "ethtool_-S___touch__IFS_P_"
    // is the output of the interface `ip address` lists as "$(touch${IFS}P)", not another interface.
    for (const name of links.keys()) if (commandKey([name]) !== name) names.delete(commandKey([name]));
    // A capture with only /proc/interrupts still names its NICs: "eth0-TxRx-3", "i40e-eth0-TxRx-3", a bare "eth2" MSI vector.
    const interruptsText = await reader.readText('proc/interrupts').catch(() => '');
    for (const name of interfaceNamesInInterrupts(interruptsText)) names.add(name);
    names.delete('lo');
    const interfaces = new Map<string, InterfaceInfo>();
    for (const name of [...names].sort()) {
      const [info, settings] = await Promise.all([read(commandKey(['ethtool', '-i', name])), read(commandKey(['ethtool', name]))]);
      const field = (text: string | undefined, label: string) => {
        const value = new RegExp(`^\\s*${label}:[ \\t]*(.*?)\\s*$`, 'mi').exec(text ?? '')?.[1];
        return value ? value : null;
      };
      const speed = field(settings, 'Speed');
      const duplex = field(settings, 'Duplex');
      const link = field(settings, 'Link detected');
      interfaces.set(name, {
        driver: field(info, 'driver'),
        busInfo: field(info, 'bus-info')?.toLowerCase() ?? null,
        // sysfs says 10000 and full; ethtool says 10000Mb/s and Full.
        speed: speed && /^\d+Mb\/s$/.test(speed) ? speed.replace('Mb/s', '') : null,
        speedSource: speed && /^\d+Mb\/s$/.test(speed) ? 'ethtool' : null,
        duplex: duplex && /^(Full|Half)$/i.test(duplex) ? duplex.toLowerCase() : null,
        carrier: link === 'yes' ? '1' : link === 'no' ? '0' : null,
        mtu: links.get(name)?.mtu ?? null,
        operstate: links.get(name)?.state ?? null,
      });
    }
    // The kernel log names NICs, their PCI functions and link speeds; it adds interfaces only when
    // sos kept no `ip address` (which lists what exists now, where the log may name gone ones).
    const kernelLog =
      (await Promise.all(KERNEL_LOG_FILES.map(read))).find((text) => text?.trim()) ??
      (await reader.readText('var/log/dmesg').catch(() => undefined));
    if (kernelLog) mergeKernelLog(interfaces, parseKernelLog(kernelLog), { addNames: !ipText });
    // NICs with no interface (DPDK's vfio-pci/igb_uio, or unbound) are still examined by their PCI address.
    const lspciFile = LSPCI_FILES.find((name) => commands.has(name));
    const claimed = new Set([...interfaces.values()].map((info) => info.busInfo).filter((bus): bus is string => Boolean(bus)));
    for (const nic of unclaimedNics(lspciFile ? readLspciDevices((await read(lspciFile)) ?? '') : [], claimed))
      interfaces.set(nic.name, { ...blankInterfaceInfo(), busInfo: nic.address, driver: nic.driver });
    return new SosreportHostIO(root, reader, commands, interfaces, sysctl);
  }

  /** Where a value derived from another output came from ("ethtool", "kernel log"); undefined when read as is. */
  async derivedFrom(hostPath: string): Promise<string | undefined> {
    const speed = /^\/sys\/class\/net\/([^/]+)\/speed$/.exec(path.normalize(hostPath));
    if (!speed || (await this.resolve(hostPath)) !== undefined) return undefined;
    return this.interfaces.get(speed[1]!)?.speedSource ?? undefined;
  }

  async exec(argv: string[]): Promise<ExecResult> {
    const text = await this.commandOutput(argv);
    const trimmed = text.trim();
    // sos records no exit code; a lone error line is what the tool printed when it failed.
    if (trimmed && trimmed.split('\n').length <= 2 && trimmed.split('\n').every((line) => FAILURE_OUTPUT.test(line.trim()))) {
      return { argv, exitCode: 1, stdout: '', stderr: text, durationMs: 0 };
    }
    return { argv, exitCode: 0, stdout: text, stderr: '', durationMs: 0 };
  }

  private async commandOutput(argv: string[]): Promise<string> {
    const file = this.commands.get(commandKey(argv));
    if (file) return this.reader.readText(file, 'capture', `the sosreport's ${file}`);
    if (argv[0] === 'lspci' && argv.includes('-s')) {
      const address = argv[argv.indexOf('-s') + 1];
      const block = address ? await this.lspciBlock(address) : undefined;
      if (block !== undefined) return block;
    }
    throw new HostIOError('not-captured', `the sosreport holds no output of \`${argv.join(' ')}\``);
  }

  /** One device's block of `lspci -nnvv` ("01:00.0 Ethernet controller [0200]: ..." up to a blank line). */
  private async lspciBlock(address: string): Promise<string | undefined> {
    const file = LSPCI_FILES.map((name) => this.commands.get(name)).find(Boolean);
    if (!file) return undefined;
    const short = address.toLowerCase().replace(/^0000:/, '');
    const blocks = (await this.reader.readText(file)).split(/\n\s*\n/);
    const block = blocks.find((candidate) => {
      const header = candidate.trimStart().split(' ', 1)[0]?.toLowerCase() ?? '';
      return header === short || header === `0000:${short}` || header === address.toLowerCase();
    });
    // No block for the address: lspci -s prints nothing for a device that is not there.
    return block === undefined ? '' : block.trim() + '\n';
  }

  async readFile(hostPath: string): Promise<string> {
    const file = await this.resolve(hostPath);
    if (file) return this.reader.readText(file, 'capture', hostPath);
    const derived = this.derivedFile(hostPath);
    if (derived !== undefined) return derived;
    throw await this.missing(hostPath);
  }

  async readDir(hostPath: string): Promise<string[]> {
    const dir = await this.resolve(hostPath);
    let entries: string[] | undefined;
    if (dir) entries = await this.reader.readDir(dir, hostPath);
    if (path.normalize(hostPath) === '/sys/class/net') entries = [...new Set([...(entries ?? []), ...this.interfaces.keys()])];
    if (!entries) throw await this.missing(hostPath);
    return entries.sort();
  }

  async readLink(hostPath: string): Promise<string> {
    const parent = await this.resolve(path.dirname(hostPath));
    if (parent) {
      const target = await this.reader.readLink(path.join(parent, path.basename(hostPath)), hostPath).catch(() => undefined);
      if (target !== undefined) return target;
    }
    const derived = this.derivedLink(hostPath);
    if (derived !== undefined) return derived;
    // Links are optional everywhere (master, physfn, driver): absent reads as not-found.
    throw new HostIOError('not-found', `${hostPath}: not a symbolic link in the sosreport`);
  }

  private inventoryPromise: Promise<HostInventory> | undefined;

  /** Read once: every interface's identity asks for it (whether the host is virtualized). */
  inventory(): Promise<HostInventory> {
    this.inventoryPromise ??= this.readInventory();
    return this.inventoryPromise;
  }

  private async readInventory(): Promise<HostInventory> {
    const text = async (...names: string[]) => {
      for (const name of names) {
        const file = name.includes('/') ? name : this.commands.get(name);
        const content = file ? await this.reader.readText(file, 'metadata').catch(() => undefined) : undefined;
        if (content?.trim()) return content;
      }
      return undefined;
    };
    const [hostname, uname, osRelease, redhatRelease, lscpu, cpuinfo] = await Promise.all([
      text('./hostname', 'hostname', 'etc/hostname'),
      text(...UNAME_FILES.map((name) => (name === 'uname' ? './uname' : name))),
      text('etc/os-release'),
      text('etc/redhat-release'),
      text('lscpu'),
      text('proc/cpuinfo'),
    ]);
    const unamed = parseUname(uname ?? '');
    const lscpuField = (label: string) => new RegExp(`^${label}:\\s*(.+?)\\s*$`, 'm').exec(lscpu ?? '')?.[1];
    const logical =
      Number(lscpuField('CPU\\(s\\)')) || (cpuinfo?.match(/^processor\s*:/gm)?.length ?? 0) || (await this.cpusFromCounters());
    const cores = Number(lscpuField('Core\\(s\\) per socket')) * Number(lscpuField('Socket\\(s\\)'));
    return {
      hostname: hostname?.trim().split('\n')[0] ?? 'unknown',
      kernel: unamed.kernel ?? 'unknown',
      os: /^PRETTY_NAME="?([^"\n]+)"?/m.exec(osRelease ?? '')?.[1] ?? redhatRelease?.trim() ?? 'unknown',
      arch: nodeArch(unamed.machine ?? lscpuField('Architecture') ?? 'unknown'),
      cpuModel: lscpuField('Model name') ?? /^model name[ \t]*:[ \t]*(\S.*)$/m.exec(cpuinfo ?? '')?.[1] ?? 'unknown',
      logicalCpus: logical,
      physicalCores: Number.isFinite(cores) && cores > 0 ? cores : logical,
      virtualization: lscpuField('Hypervisor vendor') ?? null,
      // sos runs as root.
      uid: 0,
    };
  }

  /** CPUs counted where a capture without lscpu still shows them: the /proc/interrupts header, softnet_stat rows. */
  private async cpusFromCounters(): Promise<number> {
    const read = (file: string) => this.reader.readText(file).catch(() => '');
    const header = (await read('proc/interrupts')).split('\n').find((line) => /^\s*CPU\d+/.test(line));
    if (header) return header.trim().split(/\s+/).length;
    return (await read('proc/net/softnet_stat')).split('\n').filter((line) => /^[0-9a-f]{8}\s/i.test(line.trim())).length;
  }

  /** hostPath relative to the root when the tree holds it, or undefined; never a path outside it. */
  private async resolve(hostPath: string): Promise<string | undefined> {
    if (!path.isAbsolute(hostPath)) throw new HostIOError('io', `host paths must be absolute: ${hostPath}`);
    const relative = path.normalize(hostPath).slice(1);
    const real = await this.reader.resolve(relative, hostPath);
    return real === undefined ? undefined : path.relative(this.root, real);
  }

  private derivedFile(hostPath: string): string | undefined {
    const normal = path.normalize(hostPath);
    if (normal.startsWith('/proc/sys/')) {
      const value = this.sysctl.get(normal.slice('/proc/sys/'.length).replace(/\//g, '.'));
      return value === undefined ? undefined : value + '\n';
    }
    const attribute = /^\/sys\/(?:class\/net|devices\/.+\/net)\/([^/]+)\/(speed|duplex|carrier|mtu|operstate)$/.exec(normal);
    if (attribute) {
      const value = this.interfaces.get(attribute[1]!)?.[attribute[2] as 'speed'];
      return value === null || value === undefined ? undefined : value + '\n';
    }
    return undefined;
  }

  private derivedLink(hostPath: string): string | undefined {
    const normal = path.normalize(hostPath);
    // /sys/class/net/<if>/device → the PCI function named by `ethtool -i` bus-info.
    const device = /^\/sys\/class\/net\/([^/]+)\/device$/.exec(normal);
    if (device) {
      const bus = this.interfaces.get(device[1]!)?.busInfo;
      return bus && isPciAddress(bus) ? `../../../bus/pci/devices/${bus}` : undefined;
    }
    const driver = /^\/sys\/bus\/pci\/devices\/([^/]+)\/driver$/.exec(normal);
    if (driver) {
      const info = [...this.interfaces.values()].find((candidate) => candidate.busInfo === driver[1]);
      return info?.driver ? `../../../../bus/pci/drivers/${info.driver}` : undefined;
    }
    return undefined;
  }

  /**
   * Absent inside an area sos did copy (or derive): not-found, as on the host (an older kernel
   * has no smt/active, a NIC no physfn). Absent where sos copied nothing: not-captured, so that
   * collectors fall back to another source (numa → `numactl --hardware`).
   */
  private async missing(hostPath: string): Promise<HostIOError> {
    const normal = path.normalize(hostPath);
    const area = AREAS.map((pattern) => pattern.exec(normal)?.[0]).find(Boolean);
    const derivedInterface = /^\/sys\/class\/net\/([^/]+)/.exec(normal)?.[1];
    const covered =
      (await this.resolve(path.dirname(normal))) !== undefined ||
      (area !== undefined && (await this.resolve(area)) !== undefined) ||
      (derivedInterface !== undefined && this.interfaces.has(derivedInterface)) ||
      /^\/sys\/bus\/pci\/devices\/[^/]+\//.test(normal) ||
      (normal.startsWith('/proc/sys/') && this.sysctl.size > 0);
    if (covered) return new HostIOError('not-found', `${hostPath}: no such file in the sosreport`);
    return new HostIOError('not-captured', `the sosreport holds no ${hostPath}`);
  }
}

/**
 * Registers every file below a plugin directory by its name; files nearer the plugin's top win
 * (sos 3.x kept them there), then sub-folders in name order (per-device folders of newer sos).
 */
async function collectCommandFiles(reader: ContainedReader, dir: string, depth: number, commands: Map<string, string>): Promise<void> {
  const names = (await reader.readDir(dir).catch(() => [] as string[])).sort();
  const subdirs: string[] = [];
  for (const name of names) {
    if (commands.size >= MAX_COMMAND_FILES) return;
    const relative = path.join(dir, name);
    const info = await stat(path.join(reader.root, relative)).catch(() => undefined);
    if (info?.isDirectory()) {
      if (depth < MAX_PLUGIN_DEPTH && !FOREIGN_SUBDIRS.has(name)) subdirs.push(relative);
    } else if (!commands.has(name)) {
      commands.set(name, relative);
    }
  }
  for (const subdir of subdirs) await collectCommandFiles(reader, subdir, depth + 1, commands);
}

/**
 * `uname -a`: "Linux host 5.14.0-70.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Thu ... x86_64 x86_64 x86_64 GNU/Linux".
 * The version field has spaces and processor/platform are left out when unknown, so the machine
 * is the last token that names an architecture, never the OS ("GNU/Linux").
 */
export function parseUname(text: string): { kernel: string | null; machine: string | null } {
  const tokens = text.trim().split('\n', 1)[0]!.trim().split(/\s+/).filter(Boolean);
  if (tokens.length < 3) return { kernel: null, machine: null };
  const machine = [...tokens.slice(3)].reverse().find((token) => ARCH_NAME.test(token)) ?? null;
  return { kernel: tokens[2]!, machine };
}

const ARCH_NAME =
  /^(?:x86_64|amd64|i[3-6]86|aarch64|arm64|armv\d\w*|ppc64(?:le)?|ppc|s390x?|riscv(?:32|64)|mips\w*|loongarch64|sparc64|ia64)$/;

/** Directories sos copies whole when its plugin ran (processor, numa, networking). */
const AREAS = [/^\/sys\/devices\/system\/cpu(?=\/)/, /^\/sys\/devices\/system\/node(?=\/)/, /^\/proc\/irq(?=\/)/];

/** The devices of an lspci output; none when it cannot be read (the pcie collector reports that itself). */
export function readLspciDevices(text: string): LspciDevice[] {
  try {
    return parseLspci(text);
  } catch (error) {
    if (error instanceof ParseError) return [];
    throw error;
  }
}

/** `sysctl -a` lines: "net.core.rmem_max = 212992". */
export function parseSysctlA(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([a-z0-9_.\-/]+)\s*=\s?(.*)$/i.exec(line);
    if (match) values.set(match[1]!, match[2]!.trim());
  }
  return values;
}

/** `ip address` / `ip link` headers: "2: eth0: <BROADCAST,...> mtu 1500 qdisc mq state UP ...". */
export function parseIpLinks(text: string): Map<string, { mtu: string | null; state: string | null }> {
  const links = new Map<string, { mtu: string | null; state: string | null }>();
  for (const match of text.matchAll(/^\d+:\s+([^:@\s]+)(?:@\S+)?:\s+<[^>]*>(.*)$/gm)) {
    const rest = match[2]!;
    const state = /\bstate (\S+)/.exec(rest)?.[1]?.toLowerCase() ?? null;
    if (!links.has(match[1]!)) links.set(match[1]!, { mtu: /\bmtu (\d+)/.exec(rest)?.[1] ?? null, state });
  }
  return links;
}

function nodeArch(machine: string): string {
  const map: Record<string, string> = {
    x86_64: 'x64',
    amd64: 'x64',
    aarch64: 'arm64',
    arm64: 'arm64',
    i586: 'ia32',
    ppc64le: 'ppc64',
    i686: 'ia32',
    i386: 'ia32',
    s390x: 's390x',
  };
  return map[machine] ?? machine;
}
