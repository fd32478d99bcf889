import { readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isPciAddress } from '../collectors/sysfs-read.js';
import { fsErrorToHostIOError } from './live.js';
import { SnapshotError } from './snapshot.js';
import { HostIOError, commandKey, type ExecResult, type HostIO, type HostInventory } from './types.js';

/**
 * Reads an extracted sosreport (sos's own layout) as if it were the host, so that the checks
 * run on what support engineers already receive:
 *
 *   sos_commands/<plugin>/<command key>   command output (`ethtool_-S_eth0`, `sysctl_-a`, `lspci_-nnvv`)
 *   proc/..., sys/..., etc/...            files copied at their real path
 *   hostname, uname, version.txt          sos's own summary files
 *
 * What sos does not copy is derived where sos holds the same value elsewhere: /proc/sys from
 * `sysctl -a`, an interface's speed/duplex/carrier from `ethtool <if>`, mtu/operstate from
 * `ip address`, its PCI function and driver from `ethtool -i`, `lspci -vv -s <BDF>` from that
 * device's block of `lspci -nnvv`. Anything else is 'not-captured' (a missing attribute inside
 * a directory sos did copy is 'not-found', as on the host).
 */

export async function isSosreport(dir: string): Promise<boolean> {
  const isDir = (name: string) => stat(path.join(dir, name)).then((info) => info.isDirectory(), () => false);
  const isFile = (name: string) => stat(path.join(dir, name)).then((info) => info.isFile(), () => false);
  // sos_commands/ alone marks an extracted sosreport: partial and hand-made ones lack version.txt.
  void isFile;
  return isDir('sos_commands');
}

interface InterfaceInfo {
  driver: string | null;
  busInfo: string | null;
  speed: string | null;
  duplex: string | null;
  carrier: string | null;
  mtu: string | null;
  operstate: string | null;
}

/** The sos file names of the commands whose output stands in for sysfs and procfs. */
const LSPCI_FILES = ['lspci_-nnvv', 'lspci_-nvv', 'lspci_-vvnn', 'lspci_-vvv', 'lspci_-vv'];
const IP_ADDRESS_FILES = ['ip_-d_address', 'ip_address', 'ip_addr', 'ip_-o_addr', 'ip_link', 'ip_-d_link', 'ip_-s_-d_link'];
/** A command whose whole output is one of these lines failed: sos keeps stderr in the same file. */
const FAILURE_OUTPUT = /^(?:Cannot get .*|.*: Operation not supported|netlink error: .*|no stats available|Cannot .*: No such device.*|.*Operation not permitted.*)$/i;

export class SosreportHostIO implements HostIO {
  /** Offline, like a nicdoctor snapshot: collectors that behave differently offline do so here too. */
  readonly mode = 'snapshot' as const;

  private constructor(
    readonly root: string,
    /** Command output files by sos name (`ethtool_-S_eth0`), first plugin directory wins. */
    private readonly commands: Map<string, string>,
    private readonly interfaces: Map<string, InterfaceInfo>,
    private readonly sysctl: Map<string, string>,
  ) {}

  static async open(dir: string): Promise<SosreportHostIO> {
    const root = await realpath(path.resolve(dir)).catch(() => path.resolve(dir));
    if (!(await isSosreport(root))) throw new SnapshotError(`${dir}: not an extracted sosreport (no sos_commands/ with sos_reports/ or version.txt)`);
    const commands = new Map<string, string>();
    for (const plugin of (await readdir(path.join(root, 'sos_commands'))).sort()) {
      const pluginDir = path.join(root, 'sos_commands', plugin);
      const names = await readdir(pluginDir).catch(() => []);
      for (const name of names.sort()) if (!commands.has(name)) commands.set(name, path.join(pluginDir, name));
    }
    const read = (name: string) => (commands.has(name) ? readFile(commands.get(name)!, 'utf8').catch(() => undefined) : Promise.resolve(undefined));
    const sysctl = parseSysctlA((await read('sysctl_-a')) ?? '');
    const ipText = (await Promise.all(IP_ADDRESS_FILES.map(read))).find((text) => text?.trim());
    const links = parseIpLinks(ipText ?? '');
    const names = new Set<string>();
    for (const name of commands.keys()) {
      const match = /^ethtool_(?:-[a-zA-Z]_)?(.+)$/.exec(name);
      if (match && !match[1]!.startsWith('-')) names.add(match[1]!);
    }
    for (const name of links.keys()) names.add(name);
    // A capture with only /proc/interrupts still names its NICs: "eth0-TxRx-3", "i40e-eth0-TxRx-3", a bare "eth2" MSI vector.
    const interruptsText = await readFile(path.join(root, 'proc', 'interrupts'), 'utf8').catch(() => '');
    for (const name of interfacesInInterrupts(interruptsText)) names.add(name);
    names.delete('lo');
    const interfaces = new Map<string, InterfaceInfo>();
    for (const name of [...names].sort()) {
      const [info, settings] = await Promise.all([read(`ethtool_-i_${name}`), read(`ethtool_${name}`)]);
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
        duplex: duplex && /^(Full|Half)$/i.test(duplex) ? duplex.toLowerCase() : null,
        carrier: link === 'yes' ? '1' : link === 'no' ? '0' : null,
        mtu: links.get(name)?.mtu ?? null,
        operstate: links.get(name)?.state ?? null,
      });
    }
    return new SosreportHostIO(root, commands, interfaces, sysctl);
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
    if (file) return readFile(file, 'utf8');
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
    const blocks = (await readFile(file, 'utf8')).split(/\n\s*\n/);
    const block = blocks.find((candidate) => {
      const header = candidate.trimStart().split(' ', 1)[0]?.toLowerCase() ?? '';
      return header === short || header === `0000:${short}` || header === address.toLowerCase();
    });
    // No block for the address: lspci -s prints nothing for a device that is not there.
    return block === undefined ? '' : block.trim() + '\n';
  }

  async readFile(hostPath: string): Promise<string> {
    const file = await this.resolve(hostPath);
    if (file) {
      try {
        return await readFile(file, 'utf8');
      } catch (error) {
        throw fsErrorToHostIOError(error, hostPath);
      }
    }
    const derived = this.derivedFile(hostPath);
    if (derived !== undefined) return derived;
    throw await this.missing(hostPath);
  }

  async readDir(hostPath: string): Promise<string[]> {
    const dir = await this.resolve(hostPath);
    let entries: string[] | undefined;
    if (dir) {
      try {
        entries = await readdir(dir);
      } catch (error) {
        throw fsErrorToHostIOError(error, hostPath);
      }
    }
    if (path.normalize(hostPath) === '/sys/class/net') entries = [...new Set([...(entries ?? []), ...this.interfaces.keys()])];
    if (!entries) throw await this.missing(hostPath);
    return entries.sort();
  }

  async readLink(hostPath: string): Promise<string> {
    const parent = await this.resolve(path.dirname(hostPath));
    if (parent) {
      const target = await readlink(path.join(parent, path.basename(hostPath))).catch(() => undefined);
      if (target !== undefined) return target;
    }
    const derived = this.derivedLink(hostPath);
    if (derived !== undefined) return derived;
    // Links are optional everywhere (master, physfn, driver): absent reads as not-found.
    throw new HostIOError('not-found', `${hostPath}: not a symbolic link in the sosreport`);
  }

  async inventory(): Promise<HostInventory> {
    const text = async (...names: string[]) => {
      for (const name of names) {
        const file = name.includes('/') ? path.join(this.root, name) : this.commands.get(name);
        const content = file ? await readFile(file, 'utf8').catch(() => undefined) : undefined;
        if (content?.trim()) return content;
      }
      return undefined;
    };
    const [hostname, uname, osRelease, redhatRelease, lscpu, cpuinfo] = await Promise.all([
      text('./hostname', 'hostname', 'etc/hostname'),
      text('./uname', 'uname_-a'),
      text('etc/os-release'),
      text('etc/redhat-release'),
      text('lscpu'),
      text('proc/cpuinfo'),
    ]);
    const unameParts = uname?.trim().split(/\s+/) ?? [];
    const lscpuField = (label: string) => new RegExp(`^${label}:\\s*(.+?)\\s*$`, 'm').exec(lscpu ?? '')?.[1];
    const logical = Number(lscpuField('CPU\\(s\\)')) || (cpuinfo?.match(/^processor\s*:/gm)?.length ?? 0) || (await this.cpusFromCounters());
    const cores = Number(lscpuField('Core\\(s\\) per socket')) * Number(lscpuField('Socket\\(s\\)'));
    const machine = unameParts.at(-2) === 'GNU/Linux' ? unameParts.at(-3) : unameParts.at(-1);
    return {
      hostname: hostname?.trim().split('\n')[0] ?? 'unknown',
      kernel: unameParts[2] ?? 'unknown',
      os: /^PRETTY_NAME="?([^"\n]+)"?/m.exec(osRelease ?? '')?.[1] ?? redhatRelease?.trim() ?? 'unknown',
      arch: nodeArch(machine ?? lscpuField('Architecture') ?? 'unknown'),
      cpuModel: lscpuField('Model name') ?? /^model name\s*:\s*(.+)$/m.exec(cpuinfo ?? '')?.[1] ?? 'unknown',
      logicalCpus: logical,
      physicalCores: Number.isFinite(cores) && cores > 0 ? cores : logical,
      virtualization: lscpuField('Hypervisor vendor') ?? null,
      // sos runs as root.
      uid: 0,
    };
  }

  /** CPUs counted where a capture without lscpu still shows them: the /proc/interrupts header, softnet_stat rows. */
  private async cpusFromCounters(): Promise<number> {
    const read = (file: string) => readFile(path.join(this.root, file), 'utf8').catch(() => '');
    const header = (await read('proc/interrupts')).split('\n').find((line) => /^\s*CPU\d+/.test(line));
    if (header) return header.trim().split(/\s+/).length;
    return (await read('proc/net/softnet_stat')).split('\n').filter((line) => /^[0-9a-f]{8}\s/i.test(line.trim())).length;
  }

  /** The real path of hostPath inside the tree, or undefined; never a path outside it. */
  private async resolve(hostPath: string): Promise<string | undefined> {
    if (!path.isAbsolute(hostPath)) throw new HostIOError('io', `host paths must be absolute: ${hostPath}`);
    const real = await realpath(path.join(this.root, path.normalize(hostPath))).catch(() => undefined);
    if (!real) return undefined;
    if (real !== this.root && !real.startsWith(this.root + path.sep)) throw new HostIOError('io', `${hostPath}: the sosreport links outside itself`);
    return real;
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

/** Directories sos copies whole when its plugin ran (processor, numa, networking). */
const AREAS = [/^\/sys\/devices\/system\/cpu(?=\/)/, /^\/sys\/devices\/system\/node(?=\/)/, /^\/proc\/irq(?=\/)/];

const QUEUE_VECTOR = /^(?:(?:i40e|ice|iavf|ixgbe|ixgbevf|igb|igc|e1000e|fm10k|idpf)-)?([A-Za-z][\w.]{0,14}?)-(?:TxRx|rx|tx|Rx|Tx|fp|combined)-\d+$/;
const BARE_NIC_NAME = /^(?:eth\d+|en[a-z0-9]+|em\d+|p\d+p\d+|bond\d+)$/;

/** Interface names that /proc/interrupts gives MSI vectors to. */
function interfacesInInterrupts(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    if (!/MSI/i.test(line)) continue;
    for (const action of (line.trim().split(/\s{2,}|\t/).at(-1) ?? '').split(/,\s*/)) {
      const word = action.trim().split(/\s+/).at(-1) ?? '';
      const queue = QUEUE_VECTOR.exec(word);
      if (queue) names.add(queue[1]!);
      else if (BARE_NIC_NAME.test(word)) names.add(word);
    }
  }
  return names;
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
  const map: Record<string, string> = { x86_64: 'x64', aarch64: 'arm64', ppc64le: 'ppc64', i686: 'ia32', i386: 'ia32', s390x: 's390x' };
  return map[machine] ?? machine;
}
