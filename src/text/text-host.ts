import { parseProcNetDev, type ProcNetDevEntry } from '../parsers/proc-net.js';
import path from 'node:path';
import { isPciAddress } from '../hostio/sysfs-read.js';
import type { Segment } from './segment.js';
import { parseSysctlA, readLspciDevices } from '../hostio/sosreport.js';
import { blankInterfaceInfo, mergeKernelLog, unclaimedNics, type InterfaceInfo as SosInterfaceInfo } from '../hostio/capture-interfaces.js';
import { USERSPACE_NIC_DRIVERS } from '../domain/pci-subject.js';
import { parseKernelLog, type KernelLog } from '../parsers/kernel-log.js';
import { parseKernelEvents } from '../parsers/kernel-events.js';
import { lshwAsEthtoolDriver, lshwAsEthtoolSettings, parseLshwNetwork, type LshwNetwork } from '../parsers/lshw.js';
import { interfaceNamesInInterrupts } from '../parsers/proc-interrupts.js';
import { interfacesOfEthtoolCommands } from '../parsers/ethtool-command-lines.js';
import { interfacesNamedInProse } from '../parsers/prose-interfaces.js';
import type { StatedCpus, StatedNic } from '../parsers/prose.js';
import { readFreebsdText, type FreebsdText } from './freebsd-text.js';
import { HostIOError, commandKey, type ExecResult, type HostIO, type HostInventory } from '../hostio/types.js';

/**
 * Serves the outputs recognised in pasted text as the commands and files the collectors read
 * (`ethtool -S eth3`, /proc/interrupts, /proc/sys from `sysctl -a`), so that the same
 * collectors, checks and rules run on a ticket. Like a sosreport, sysfs attributes are derived
 * where an output holds the same value: speed/duplex/carrier from `ethtool <if>`, driver and PCI
 * function from `ethtool -i`, MTU and state from `ip link`. Anything else was not pasted:
 * 'not-captured', which the report turns into a command to ask the customer for.
 */

/** A pasted interface: what sos would say of it, and whether the text shows a physical port. */
interface InterfaceInfo extends SosInterfaceInfo {
  physical: boolean;
}

const ETHTOOL_FLAGS: Partial<Record<Segment['kind'], string[]>> = {
  'ethtool-settings': [],
  'ethtool-stats': ['-S'],
  'ethtool-rings': ['-g'],
  'ethtool-channels': ['-l'],
  'ethtool-features': ['-k'],
  'ethtool-coalesce': ['-c'],
  'ethtool-pause': ['-a'],
  'ethtool-driver': ['-i'],
  'ethtool-rxfh': ['-x'],
  'ethtool-module': ['-m'],
};

/**
 * The header line that `ethtool <if>` and `ethtool -x <if>` print first, for an output pasted
 * without it (the customer copied from the first link mode, or a command line named the port):
 * their parsers read the interface from it, and the text host knows the name another way.
 */
const HEADERS: Partial<Record<Segment['kind'], { line: RegExp; make: (name: string) => string }>> = {
  'ethtool-settings': { line: /^\s*Settings for \S+:\s*$/m, make: (name) => `Settings for ${name}:` },
  'ethtool-rxfh': { line: /^\s*RX flow hash indirection table for /m, make: (name) => `RX flow hash indirection table for ${name}:` },
};

/** A per-NIC output as its command prints it for `name`, with the header line it was pasted without. */
function asPrinted(segment: Segment, name: string): string {
  const header = HEADERS[segment.kind];
  return header && !header.line.test(segment.text) ? `${header.make(name)}\n${segment.text}` : segment.text;
}

/** Stands in for an interface the text shows outputs of without ever naming it. */
export const UNNAMED_INTERFACE = 'unnamed-nic';
/** The PCI address given to a headerless lspci fragment (`LnkSta: ...` grepped out of `lspci -vv`). */
export const UNADDRESSED_PCI = '0000:00:00.0';

export interface TextHostOptions {
  hostname: string | null;
  /** Link speed stated in the ticket's prose ("10GbE"), used when no `ethtool <if>` says it. */
  statedSpeedMbps?: number | null;
  /**
   * The text to read kernel log lines from (dmesg, journalctl -k, lines quoted in a mail), wherever
   * they are: the lines are recognised by their own shape, so they need no segment of their own.
   */
  kernelLog?: string;
  /** The NIC model the prose names ("Intel X710"): its driver, where no output names one. */
  statedNic?: StatedNic | null;
  /** The whole text, where FreeBSD's driver boot messages are read wherever they are (one host's text only). */
  wholeText?: string;
  /** The CPU count the prose states ("a 32-core server", "48 vCPU"), where no output shows it. */
  statedCpus?: StatedCpus;
  /** The iperf3 version the prose names ("iperf3 3.7 on the client"), where no banner was pasted. */
  statedIperf3Version?: string | null;
}

export class TextHostIO implements HostIO {
  /** Offline: collectors that behave differently offline (no live processes) do so here too. */
  readonly mode = 'snapshot' as const;
  readonly offlineInput = 'text' as const;
  private readonly commands = new Map<string, string>();
  private readonly files = new Map<string, string>();
  /** Pasted /proc/net/bonding files by bond name. */
  private readonly bonds = new Map<string, string>();
  private readonly interfaces = new Map<string, InterfaceInfo>();
  /** Kernel counters (/sys/class/net/<if>/statistics) from a pasted `ip -s link`, or empty beside `ethtool -S`. */
  private readonly statistics = new Map<string, Map<string, string>>();
  private readonly sysctl: Map<string, string>;
  private readonly lspci: string[] = [];
  /** /sys/class/net/<if>/flags as the latest \`ip link\` shows them (IFF_UP and friends). */
  private readonly flags = new Map<string, string>();
  private readonly lscpu: string | undefined;
  private readonly uname: string | undefined;
  /** Notes on what was inferred rather than read ("lspci fragment taken as unnamed-nic's"). */
  readonly inferences: string[] = [];
  /** The text's FreeBSD outputs restated in Linux terms; null when nothing in it is FreeBSD's. */
  readonly freebsd: FreebsdText | null;

  constructor(
    readonly segments: readonly Segment[],
    private readonly options: TextHostOptions,
  ) {
    const texts = (kind: Segment['kind']) => segments.filter((segment) => segment.kind === kind).map((segment) => segment.text);
    const names = new Set<string>();
    for (const segment of segments) {
      const flags = ETHTOOL_FLAGS[segment.kind];
      if (flags && segment.iface) {
        names.add(segment.iface);
        // The first output of a command wins, as the customer ran it first: later ones are repeats.
        const key = commandKey(['ethtool', ...flags, segment.iface]);
        if (!this.commands.has(key)) this.commands.set(key, asPrinted(segment, segment.iface));
      }
    }
    this.sysctl = parseSysctlA(texts('sysctl').join(''));
    this.freebsd = readFreebsdText(segments, options.wholeText ?? segments.map((segment) => segment.text).join('\n'));
    if (this.freebsd) this.addFreebsdOutputs(this.freebsd, names);
    // The latest `ip link` of an interface is its state now: a ticket shows it before and after
    // `ip link set ... down`, and the later outputs (ethtool's "Link detected: no") follow that.
    const links = latestIpLinks(texts('ip-link'));
    // Without UP, a port is down on purpose only when the text shows it set down: a driver that
    // refused to bring it up (an unsupported module) leaves it without UP too, and that is a fault.
    const setDown = interfacesSetDown(segments);
    for (const [name, link] of links) {
      if (name !== 'lo') names.add(name);
      if (link.flags.includes('UP') || setDown.has(name)) this.flags.set(name, interfaceFlags(link.flags));
    }
    this.lspci = [...texts('lspci'), ...(this.freebsd?.lspci ?? [])];
    if (texts('proc-interrupts').length) this.files.set('/proc/interrupts', texts('proc-interrupts')[0]!);
    if (texts('softnet').length) this.files.set('/proc/net/softnet_stat', texts('softnet')[0]!);
    // /proc/net/dev names every interface with its counters: those that moved packets are the ticket's.
    if (texts('proc-net-dev').length) {
      const dev = texts('proc-net-dev').at(-1)!;
      this.files.set('/proc/net/dev', dev);
      for (const entry of procNetDevEntries(dev)) if (entry.name !== 'lo' && entry.rx.packets + entry.tx.packets > 0) names.add(entry.name);
    }
    // /proc/net/bonding/<bond>: the name from the command line that printed it, else from the file's own text.
    for (const segment of segments.filter((candidate) => candidate.kind === 'proc-bonding')) {
      const name = segment.iface ?? /^bond (\S{1,15}) has no active aggregator$/m.exec(segment.text)?.[1] ?? `bond${this.bonds.size}`;
      if (!segment.iface && !segment.text.includes(' has no active aggregator'))
        this.inferences.push(`${name}: a bonding status with no name in the text (named in the order pasted)`);
      this.bonds.set(name, segment.text);
      this.files.set(`/proc/net/bonding/${name}`, segment.text);
    }
    if (texts('numactl').length) this.commands.set(commandKey(['numactl', '--hardware']), texts('numactl')[0]!);
    if (texts('tc-qdisc').length) this.commands.set(commandKey(['tc', '-s', 'qdisc', 'show']), texts('tc-qdisc').join(''));
    // The iperf3 version banner (`iperf3 -v`, or the first line of a -V run) is what `iperf3 -v` prints.
    const banner = texts('iperf3-text')
      .map((text) => /^iperf 3\.\S+.*(?:\n(?:Linux |Optional features).*){0,2}/m.exec(text)?.[0])
      .find(Boolean);
    if (banner) this.commands.set(commandKey(['iperf3', '-v']), banner + '\n');
    else if (options.statedIperf3Version) {
      this.commands.set(commandKey(['iperf3', '-v']), `iperf ${options.statedIperf3Version}\n`);
      this.inferences.push(`iperf3 ${options.statedIperf3Version} as the text names it (no \`iperf3 -v\` output)`);
    }
    this.lscpu = texts('lscpu')[0];
    this.uname = texts('uname')[0];
    const kernel = parseKernelLog(options.kernelLog ?? '');
    // A pasted log that names only fault events (a TX timeout, "table full") is still the kernel log.
    const events = kernel.pcie.length || kernel.nics.length ? null : parseKernelEvents(options.kernelLog ?? '');
    if (kernel.pcie.length || kernel.nics.length || (events?.events.length ?? 0) > 0)
      this.commands.set(commandKey(['dmesg']), options.kernelLog!);
    // /proc/interrupts names the NICs it gives vectors to, pasted as in a sosreport.
    for (const text of texts('proc-interrupts')) for (const name of interfaceNamesInInterrupts(text)) names.add(name);
    this.addLshwOutputs(texts('lshw-network'), names);

    // Per-NIC outputs with no interface name anywhere (a grepped lspci line, ethtool -S without
    // its command): one subject stands for "the NIC of this ticket".
    const lspciParsed = this.lspci.flatMap(readLspciDevices);
    const nicInText =
      names.size > 0 ||
      segments.some((segment) => ETHTOOL_FLAGS[segment.kind] !== undefined) ||
      Boolean(options.statedNic || options.statedSpeedMbps) ||
      NETWORK_WORDS.test(options.wholeText ?? '');
    const devices = this.lspciDevices(lspciParsed, nicInText);
    const perNic =
      (devices.length > 0 && segments.some((segment) => segment.kind === 'lspci')) ||
      segments.some((segment) => ETHTOOL_FLAGS[segment.kind] && !segment.iface);
    if (names.size === 0 && perNic) {
      // The kernel log may name the one NIC the outputs are of; otherwise it stands unnamed.
      const logged = kernel.nics.filter((nic) => nic.name && nic.address);
      const only = logged.length === 1 ? logged[0]!.name! : UNNAMED_INTERFACE;
      names.add(only);
      for (const segment of segments) {
        const flags = ETHTOOL_FLAGS[segment.kind];
        if (flags) this.commands.set(commandKey(['ethtool', ...flags, only]), asPrinted(segment, only));
      }
      this.inferences.push(
        only === UNNAMED_INTERFACE
          ? `no interface is named in the text: its per-NIC outputs are read as one interface, "${UNNAMED_INTERFACE}"`
          : `no output names its interface: the outputs are read as ${only}'s, the only NIC the kernel log names`,
      );
    }
    // A text with no output naming a NIC may still name the ports its ethtool commands ran on
    // ("ethtool -G ens16f0 rx 4096"): they are the interfaces of the ticket, with nothing read of them.
    // The kernel log, where it names ports, names them better (and "renamed from eth0" is no port).
    const namedOnlyInWords = names.size === 0 && !perNic && !kernel.nics.some((nic) => nic.name);
    if (namedOnlyInWords) {
      const commanded = interfacesOfEthtoolCommands(options.wholeText ?? '');
      for (const name of commanded) names.add(name);
      if (commanded.length > 0) this.inferences.push(`${commanded.join(', ')}: named only by the ethtool commands in the text`);
    }
    // ... or name them in its words ("TSO on `thunderbolt0` breaks forwarding"): nothing is read of them either.
    if (namedOnlyInWords && names.size === 0) {
      const named = interfacesNamedInProse(options.wholeText ?? '');
      for (const name of named) names.add(name);
      if (named.length > 0) this.inferences.push(`${named.join(', ')}: named only in the text's words`);
    }

    const ipStatistics = parseIpStatistics(texts('ip-link').join(''));
    for (const name of names) {
      const counters = ipStatistics.get(name);
      if (counters?.size) this.statistics.set(name, counters);
      else if (this.commands.has(commandKey(['ethtool', '-S', name]))) {
        // Drops are then judged on the driver's counters alone, which is what was pasted.
        this.statistics.set(name, new Map());
        this.inferences.push(`${name}: no kernel counters (ip -s link) in the text: drops are judged on ethtool -S alone`);
      }
    }

    for (const name of [...names].sort()) {
      const info = this.commands.get(commandKey(['ethtool', '-i', name]));
      const settings = this.commands.get(commandKey(['ethtool', name]));
      const field = (text: string | undefined, label: string) => {
        const value = new RegExp(`^\\s*${label}:[ \\t]*(.*?)\\s*$`, 'mi').exec(text ?? '')?.[1];
        return value ? value : null;
      };
      const speed = field(settings, 'Speed');
      const link = field(settings, 'Link detected');
      let busInfo = field(info, 'bus-info')?.toLowerCase() ?? null;
      if (busInfo && /^[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(busInfo)) busInfo = `0000:${busInfo}`;
      if (!busInfo && names.size === 1 && devices.length === 1) {
        busInfo = devices[0]!;
        this.inferences.push(
          `${name} is taken to be the only network device in the lspci output (${busInfo === UNADDRESSED_PCI ? 'a fragment without its address' : busInfo})`,
        );
      }
      const speedMbps = speed && /^\d+Mb\/s$/.test(speed) ? speed.replace('Mb/s', '') : null;
      // `ethtool <if>` listing link modes or ports, a PCI bus-info, or a pluggable module's EEPROM
      // (`ethtool -m`) is a NIC, not a software device; so is one whose pause frames were
      // negotiated with a link partner (`ethtool -a`: only an Ethernet MAC with a PHY prints "RX negotiated").
      const pause = this.commands.get(commandKey(['ethtool', '-a', name]));
      const module = this.commands.get(commandKey(['ethtool', '-m', name]));
      const physical =
        Boolean(busInfo) ||
        /Supported (?:ports|link modes):\s*\S/.test(settings ?? '') ||
        /^\s*[RT]X negotiated:/m.test(pause ?? '') ||
        /^\s*Identifier\s+:\s+0x/m.test(module ?? '');
      this.interfaces.set(name, {
        physical,
        driver: field(info, 'driver'),
        busInfo,
        speed: speedMbps,
        speedSource: speedMbps ? 'ethtool' : null,
        duplex:
          field(settings, 'Duplex')
            ?.match(/^(Full|Half)$/i)?.[1]
            ?.toLowerCase() ?? null,
        carrier: link === 'yes' ? '1' : link === 'no' ? '0' : null,
        mtu: links.get(name)?.mtu ?? null,
        operstate: links.get(name)?.state ?? null,
      });
    }
    this.addIndirectEvidence(kernel, lspciParsed, links.size > 0);
    if (this.freebsd) this.addFreebsdInterfaces(this.freebsd);
  }

  /**
   * `lshw -class network` nodes as the ethtool outputs they were read from (lshw asks the driver
   * the same questions): the speed, supported modes, duplex and link of each named interface,
   * below whatever `ethtool` output the text has itself.
   */
  private addLshwOutputs(outputs: readonly string[], names: Set<string>): void {
    for (const text of outputs) {
      let nodes: LshwNetwork[];
      try {
        nodes = parseLshwNetwork(text);
      } catch {
        continue;
      }
      for (const node of nodes) {
        const name = node.logicalName;
        if (!name || !/^[\w.:@-]{1,15}$/.test(name)) continue;
        names.add(name);
        const settingsKey = commandKey(['ethtool', name]);
        if (!this.commands.has(settingsKey)) {
          this.commands.set(settingsKey, lshwAsEthtoolSettings(node));
          const speed = node.speedMbps === null ? 'no speed' : `${node.speedMbps} Mb/s`;
          this.inferences.push(
            `${name}: link state from lshw (${speed}${node.capacityMbps ? ` of ${node.capacityMbps} Mb/s capacity` : ''}; no \`ethtool ${name}\`)`,
          );
        }
        const driver = lshwAsEthtoolDriver(node);
        const driverKey = commandKey(['ethtool', '-i', name]);
        if (driver && !this.commands.has(driverKey)) this.commands.set(driverKey, driver);
      }
    }
  }

  /** FreeBSD's outputs as the commands and sysctls they stand for (freebsd-text.ts); what the text has itself wins. */
  private addFreebsdOutputs(freebsd: FreebsdText, names: Set<string>): void {
    for (const { argv, text } of freebsd.commands) if (!this.commands.has(commandKey(argv))) this.commands.set(commandKey(argv), text);
    for (const [key, value] of freebsd.sysctl) if (!this.sysctl.has(key)) this.sysctl.set(key, value);
    for (const nic of freebsd.nics) names.add(nic.name);
    this.inferences.push(
      `FreeBSD host (${freebsd.evidence.join(', ')}): its outputs are read in the Linux terms of the same meaning`,
      ...freebsd.inferences,
    );
  }

  /** Each FreeBSD NIC's state from ifconfig, pciconf and its boot messages, in place of sysfs. */
  private addFreebsdInterfaces(freebsd: FreebsdText): void {
    for (const nic of freebsd.nics) {
      const info = this.interfaces.get(nic.name) ?? { ...blankInterfaceInfo(), physical: false };
      this.interfaces.set(nic.name, {
        ...info,
        physical: nic.kind === 'physical' || info.physical,
        driver: info.driver ?? linuxDriverOf(nic),
        busInfo: info.busInfo ?? nic.busInfo,
        speed: info.speed ?? (nic.speedMbps ? String(nic.speedMbps) : null),
        speedSource: info.speedSource ?? nic.speedSource,
        duplex: info.duplex ?? nic.duplex,
        carrier: info.carrier ?? (nic.carrier === null ? null : nic.carrier ? '1' : '0'),
        mtu: info.mtu ?? (nic.mtu ? String(nic.mtu) : null),
        operstate: info.operstate ?? (nic.up === null ? null : nic.up ? (nic.carrier === false ? 'down' : 'up') : 'down'),
      });
    }
  }

  /**
   * What the text says beyond each interface's own outputs, in order of trust: the kernel log (PCI
   * function, driver, link speed; NICs it names when no `ip link` lists the interfaces), lspci's
   * NICs without an interface (DPDK), and last the speed the prose states.
   */
  private addIndirectEvidence(kernel: KernelLog, lspci: ReturnType<typeof readLspciDevices>, hasIpLink: boolean): void {
    const before = new Map([...this.interfaces].map(([name, info]) => [name, info.speed]));
    for (const name of mergeKernelLog(this.interfaces, kernel, { addNames: !hasIpLink })) {
      this.interfaces.get(name)!.physical = true;
      this.inferences.push(`${name}: named by the kernel log (${this.interfaces.get(name)!.busInfo})`);
    }
    for (const [name, info] of this.interfaces)
      if (!before.get(name) && info.speed && info.speedSource === 'kernel log')
        this.inferences.push(`${name}: link speed ${Number(info.speed) / 1000} Gb/s from the kernel log's link-up line`);
    const claimed = new Set([...this.interfaces.values()].map((info) => info.busInfo).filter((bus): bus is string => Boolean(bus)));
    for (const nic of unclaimedNics(lspci, claimed)) {
      this.interfaces.set(nic.name, { ...blankInterfaceInfo(), busInfo: nic.address, driver: nic.driver, physical: true });
      this.inferences.push(
        `${nic.name}: the lspci network device ${nic.address} has no interface (${nic.driver ? `driver ${nic.driver}` : 'no driver bound'}); examined by its PCI address`,
      );
    }
    const stated = this.options.statedSpeedMbps;
    const only = this.interfaces.size === 1 ? [...this.interfaces.entries()][0] : undefined;
    const nic = this.options.statedNic;
    if (nic && only && !only[1].driver) {
      only[1].driver = nic.driver;
      this.inferences.push(`${only[0]}: the text names the NIC as ${nic.model}: driver ${nic.driver} (no \`ethtool -i ${only[0]}\`)`);
    }
    if (stated && only && !only[1].speed) {
      only[1].speed = String(stated);
      only[1].speedSource = 'prose';
      this.inferences.push(`${only[0]}: link speed ${stated / 1000} Gb/s as stated in the text (no \`ethtool ${only[0]}\`)`);
    }
  }

  /** Interface names this text holds outputs for. */
  get interfaceNames(): string[] {
    return [...this.interfaces.keys()];
  }

  /**
   * Addresses of the network devices in the pasted lspci output that can have an interface (a
   * headerless fragment counts as one); a device bound to vfio-pci or igb_uio has none.
   */
  private lspciDevices(parsed: ReturnType<typeof readLspciDevices>, nicInText: boolean): string[] {
    const userspace = new Set(
      parsed
        .filter((device) => device.address && device.kernelDriver && USERSPACE_NIC_DRIVERS.has(device.kernelDriver))
        .map((device) => (device.address!.length === 7 ? `0000:${device.address}` : device.address!)),
    );
    const addresses = new Set<string>();
    let headerless = false;
    for (const text of this.lspci) {
      const headers = [
        ...text.matchAll(
          /^((?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) (?:Ethernet controller|Network controller|Infiniband controller)/gim,
        ),
      ];
      for (const header of headers) addresses.add(header[1]!.length === 7 ? `0000:${header[1]!.toLowerCase()}` : header[1]!.toLowerCase());
      if (!/^(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7] /im.test(text) && /LnkSta|LnkCap/.test(text))
        headerless ||= fragmentMayBeNic(text, nicInText);
    }
    for (const address of userspace) addresses.delete(address);
    if (addresses.size === 0 && headerless) return [UNADDRESSED_PCI];
    return [...addresses];
  }

  async exec(argv: string[]): Promise<ExecResult> {
    const stdout = this.commandOutput(argv);
    if (stdout === undefined) throw new HostIOError('not-captured', `the text holds no output of \`${argv.join(' ')}\``);
    return { argv, exitCode: 0, stdout, stderr: '', durationMs: 0 };
  }

  private commandOutput(argv: string[]): string | undefined {
    const direct = this.commands.get(commandKey(argv));
    if (direct !== undefined) return direct;
    if (argv[0] === 'lspci' && argv.includes('-s') && this.lspci.length) {
      const address = (argv[argv.indexOf('-s') + 1] ?? '').toLowerCase();
      const short = address.replace(/^0000:/, '');
      for (const text of this.lspci) {
        const blocks = text.split(/\n\s*\n/);
        const block = blocks.find((candidate) => {
          const header = candidate.trimStart().split(' ', 1)[0]?.toLowerCase() ?? '';
          return header === short || header === `0000:${short}`;
        });
        if (block) return block.trim() + '\n';
      }
      // A fragment without its header is the NIC's only when this text gave the NIC that address.
      if (address === UNADDRESSED_PCI) return this.lspci.join('\n');
      return '';
    }
    return undefined;
  }

  async readFile(hostPath: string): Promise<string> {
    const normal = path.posix.normalize(hostPath);
    const file = this.files.get(normal);
    if (file !== undefined) return file;
    const derived = this.derivedFile(normal);
    if (derived !== undefined) return derived;
    // With lscpu pasted, the CPU attributes it does not print are absent (unknown values), not a
    // missing output: the topology is read from what lscpu gives.
    if (this.lscpu && /^\/sys\/devices\/system\/cpu\/(?:smt\/control|cpu\d+\/topology\/[a-z_]+)$/.test(normal))
      throw new HostIOError('not-found', `${normal}: lscpu does not print it`);
    throw this.missing(normal);
  }

  async derivedFrom(hostPath: string): Promise<string | undefined> {
    const speed = /^\/sys\/class\/net\/([^/]+)\/speed$/.exec(path.posix.normalize(hostPath));
    return speed ? (this.interfaces.get(speed[1]!)?.speedSource ?? undefined) : undefined;
  }

  async readDir(hostPath: string): Promise<string[]> {
    const normal = path.posix.normalize(hostPath);
    if (normal === '/sys/class/net') return [...this.interfaces.keys()].sort();
    const queues = /^\/sys\/class\/net\/([^/]+)\/queues$/.exec(normal);
    const rxQueues = queues ? this.freebsd?.rxQueues.get(queues[1]!) : undefined;
    if (rxQueues) return Array.from({ length: rxQueues }, (_, index) => `rx-${index}`).sort();
    if (normal === '/proc/net/bonding' && this.bonds.size > 0) return [...this.bonds.keys()].sort();
    const statistics = /^\/sys\/class\/net\/([^/]+)\/statistics$/.exec(normal);
    if (statistics && this.statistics.has(statistics[1]!)) return [...this.statistics.get(statistics[1]!)!.keys()].sort();
    throw this.missing(normal);
  }

  async readLink(hostPath: string): Promise<string> {
    const normal = path.posix.normalize(hostPath);
    const device = /^\/sys\/class\/net\/([^/]+)\/device$/.exec(normal);
    if (device) {
      const info = this.interfaces.get(device[1]!);
      if (info?.busInfo && isPciAddress(info.busInfo)) return `../../../bus/pci/devices/${info.busInfo}`;
      // A NIC whose PCI address the text does not give: a device, at no known address.
      if (info?.physical) return `../../../devices/unknown-bus/${device[1]!}`;
    }
    const driver = /^\/sys\/bus\/pci\/devices\/([^/]+)\/driver$/.exec(normal);
    if (driver) {
      const info = [...this.interfaces.values()].find((candidate) => candidate.busInfo === driver[1]);
      if (info?.driver) return `../../../../bus/pci/drivers/${info.driver}`;
    }
    throw new HostIOError('not-found', `${hostPath}: not a symbolic link in the text`);
  }

  /**
   * The CPU files `lscpu` holds the same values as: the online list ("On-line CPU(s) list") and
   * whether sibling threads are online ("Thread(s) per core"). Thread siblings stay unknown.
   */
  private lscpuFile(normal: string): string | undefined {
    if (!this.lscpu) return undefined;
    const field = (label: string) =>
      this.lscpu!.split('\n')
        .find((line) => line.startsWith(`${label}:`))
        ?.slice(label.length + 1)
        .trim();
    if (normal === '/sys/devices/system/cpu/online') {
      const online = field('On-line CPU(s) list');
      return online && /^\d[\d,-]*$/.test(online) ? online + '\n' : undefined;
    }
    if (normal === '/sys/devices/system/cpu/smt/active') {
      const threads = Number(field('Thread(s) per core'));
      return Number.isInteger(threads) && threads > 0 ? (threads > 1 ? '1\n' : '0\n') : undefined;
    }
    return undefined;
  }

  async inventory(): Promise<HostInventory> {
    const lscpuField = (label: string) => new RegExp(`^${label}:\\s*(.+?)\\s*$`, 'm').exec(this.lscpu ?? '')?.[1];
    const interruptsHeader = this.files.get('/proc/interrupts')?.split('\n')[0] ?? '';
    // Every output that counts CPUs, most direct first; the prose's count last.
    const softnetRows =
      this.files
        .get('/proc/net/softnet_stat')
        ?.split('\n')
        .filter((line) => /^[0-9a-f]{8}\s/i.test(line.trim())).length ?? 0;
    const numactlCpus = [
      ...(this.commands.get(commandKey(['numactl', '--hardware'])) ?? '').matchAll(/^node \d+ cpus:((?: \d+)*)/gm),
    ].reduce((total, match) => total + match[1]!.trim().split(/\s+/).filter(Boolean).length, 0);
    const stated = this.options.statedCpus;
    const logical =
      Number(lscpuField('CPU\\(s\\)')) ||
      (interruptsHeader.match(/CPU\d+/g)?.length ?? 0) ||
      softnetRows ||
      numactlCpus ||
      (this.freebsd?.cpus ?? 0) ||
      (stated?.logical ?? stated?.cores ?? 0);
    const cores = Number(lscpuField('Core\\(s\\) per socket')) * Number(lscpuField('Socket\\(s\\)'));
    const unameParts = this.uname?.trim().split(/\s+/) ?? [];
    const freebsd = this.freebsd;
    return {
      hostname: this.options.hostname ?? freebsd?.hostname ?? unameParts[1] ?? 'unknown',
      kernel: freebsd ? (freebsd.kernel ?? 'unknown') : (unameParts[2] ?? 'unknown'),
      os: freebsd?.os ?? 'unknown',
      arch: lscpuField('Architecture') === 'x86_64' ? 'x64' : (lscpuField('Architecture') ?? 'unknown'),
      cpuModel: lscpuField('Model name') ?? 'unknown',
      logicalCpus: logical,
      physicalCores: Number.isFinite(cores) && cores > 0 ? cores : (stated?.cores ?? logical),
      virtualization: lscpuField('Hypervisor vendor') ?? null,
      // What was pasted is what root saw or not; the outputs themselves say (lspci "<access denied>").
      uid: 0,
    };
  }

  private derivedFile(normal: string): string | undefined {
    const cpu = this.lscpuFile(normal);
    if (cpu !== undefined) return cpu;
    const counter = /^\/sys\/class\/net\/([^/]+)\/statistics\/([^/]+)$/.exec(normal);
    if (counter) {
      const value = this.statistics.get(counter[1]!)?.get(counter[2]!);
      return value === undefined ? undefined : value + '\n';
    }
    if (normal.startsWith('/proc/sys/')) {
      const value = this.sysctl.get(normal.slice('/proc/sys/'.length).replace(/\//g, '.'));
      return value === undefined ? undefined : value + '\n';
    }
    const flags = /^\/sys\/class\/net\/([^/]+)\/flags$/.exec(normal);
    if (flags) {
      const value = this.flags.get(flags[1]!);
      return value === undefined ? undefined : value + '\n';
    }
    const attribute = /^\/sys\/(?:class\/net|bus\/pci\/devices\/.+\/net)\/([^/]+)\/(speed|duplex|carrier|mtu|operstate)$/.exec(normal);
    if (attribute) {
      const value = this.interfaces.get(attribute[1]!)?.[attribute[2] as 'speed'];
      return value === null || value === undefined ? undefined : value + '\n';
    }
    return undefined;
  }

  /**
   * Inside what the text describes (an interface it names, the sysctls it holds): not-found, as
   * on a host. Anywhere else: not-captured, so the report can ask for it.
   */
  private missing(normal: string): HostIOError {
    const iface = /^\/sys\/class\/net\/([^/]+)\/([^/]+)$/.exec(normal);
    const covered =
      (iface !== undefined && iface !== null && this.interfaces.has(iface[1]!) && !['queues', 'statistics'].includes(iface[2]!)) ||
      /^\/sys\/bus\/pci\/devices\/[^/]+\/[^/]+$/.test(normal) ||
      (normal.startsWith('/proc/sys/') && this.sysctl.size > 0);
    if (covered) return new HostIOError('not-found', `${normal}: not in the text`);
    return new HostIOError('not-captured', `the text holds no ${normal}`);
  }
}

/**
 * A virtual NIC's FreeBSD driver under its Linux name, so that a guest's device is known as one
 * (vtnet is virtio_net); physical NICs keep their FreeBSD driver name (ix, ixl, mce).
 */
const LINUX_PARAVIRTUAL: Readonly<Record<string, string>> = {
  vtnet: 'virtio_net',
  vmx: 'vmxnet3',
  hn: 'hv_netvsc',
  xn: 'xen-netfront',
  ena: 'ena',
  gve: 'gve',
};

function linuxDriverOf(nic: { driver: string | null }): string | null {
  return nic.driver ? (LINUX_PARAVIRTUAL[nic.driver] ?? nic.driver) : null;
}

/** `ip -s [-s] link` counter rows, as /sys/class/net/<if>/statistics names. */
const IP_COUNTERS: Record<string, string> = {
  'RX:bytes': 'rx_bytes',
  'RX:packets': 'rx_packets',
  'RX:errors': 'rx_errors',
  'RX:dropped': 'rx_dropped',
  'RX:missed': 'rx_missed_errors',
  'RX:overrun': 'rx_over_errors',
  'RX:mcast': 'multicast',
  'TX:bytes': 'tx_bytes',
  'TX:packets': 'tx_packets',
  'TX:errors': 'tx_errors',
  'TX:dropped': 'tx_dropped',
  'TX:carrier': 'tx_carrier_errors',
  'TX:collsns': 'collisions',
  'RX errors:length': 'rx_length_errors',
  'RX errors:crc': 'rx_crc_errors',
  'RX errors:frame': 'rx_frame_errors',
  'RX errors:fifo': 'rx_fifo_errors',
  'RX errors:missed': 'rx_missed_errors',
  'TX errors:aborted': 'tx_aborted_errors',
  'TX errors:fifo': 'tx_fifo_errors',
  'TX errors:window': 'tx_window_errors',
  'TX errors:heartbeat': 'tx_heartbeat_errors',
};

export function parseIpStatistics(text: string): Map<string, Map<string, string>> {
  const result = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const header = /^\d+:\s+([^:@\s]+)(?:@\S+)?:\s+</.exec(line);
    if (header) {
      current = new Map();
      result.set(header[1]!, current);
      continue;
    }
    const labels = /^\s+((?:RX|TX)(?: errors)?):\s+(.*)$/.exec(line);
    const values = lines[index + 1]?.trim().split(/\s+/);
    if (!labels || !current || !values?.every((value) => /^\d+$/.test(value))) continue;
    const names = labels[2]!.trim().split(/\s+/);
    names.forEach((name, position) => {
      const counter = IP_COUNTERS[`${labels[1]}:${name}`];
      if (counter && values[position] !== undefined) current!.set(counter, values[position]);
    });
  }
  return result;
}

/** Per interface, the last `ip link` header in text order: MTU, state and the <...> flags. */
export function latestIpLinks(texts: readonly string[]): Map<string, { mtu: string | null; state: string | null; flags: string[] }> {
  const links = new Map<string, { mtu: string | null; state: string | null; flags: string[] }>();
  for (const text of texts)
    for (const match of text.matchAll(/^\d+:\s+([^:@\s]+)(?:@\S+)?:\s+<([^>]*)>(.*)$/gm)) {
      const rest = match[3]!;
      links.set(match[1]!, {
        mtu: /\bmtu (\d+)/.exec(rest)?.[1] ?? null,
        state: /\bstate (\S+)/.exec(rest)?.[1]?.toLowerCase() ?? null,
        flags: match[2]!.split(',').filter(Boolean),
      });
    }
  return links;
}

/**
 * Words that say a text is about a network device (a NIC, a link speed, a NIC tool): a headerless
 * lspci fragment in a text without any of them is some other device's (a GPU, an SSD, a slot).
 */
const NETWORK_WORDS =
  /\b(?:NICs?|Ethernet|[\d.]{1,5} ?G(?:bE|bps|bit(?:\/s)?|b\/s)|network (?:card|adapter|controller|interface)|ethtool|iperf3?|Q?SFP(?:28|\+)?|ConnectX|Intel X[57]\d0)\b/i;

/**
 * Whether a grepped lspci fragment without its device header can be the NIC's. Slot registers
 * (SltCap/SltSta) exist only on root and downstream ports, and "DLActive-" means no device trained
 * a link behind the port: a "(downgraded)" there is an empty slot idling at Gen1. Otherwise the
 * device class is unknown, and the fragment is a NIC's only when the text is about one.
 */
function fragmentMayBeNic(text: string, nicInText: boolean): boolean {
  if (/^\s*Slt(?:Cap|Ctl|Sta):/m.test(text) || /\b(?:Root|Downstream|Upstream) Port\b/.test(text)) return false;
  if (/\bDLActive-/.test(text)) return false;
  return nicInText;
}

/** The kernel's IFF_* bits for the flag names `ip link` prints (include/uapi/linux/if.h). */
const IFF_BITS: Record<string, number> = {
  UP: 0x1,
  BROADCAST: 0x2,
  DEBUG: 0x4,
  LOOPBACK: 0x8,
  POINTOPOINT: 0x10,
  NOTRAILERS: 0x20,
  NOARP: 0x80,
  PROMISC: 0x100,
  ALLMULTI: 0x200,
  MASTER: 0x400,
  SLAVE: 0x800,
  MULTICAST: 0x1000,
};

function interfaceFlags(names: readonly string[]): string {
  const bits = names.reduce((sum, name) => sum | (IFF_BITS[name] ?? 0), 0);
  return `0x${bits.toString(16)}`;
}

/** Interfaces the text shows being set down by a command (`ip link set dev eth0 down`, `ifdown eth0`). */
function interfacesSetDown(segments: readonly Segment[]): Set<string> {
  const names = new Set<string>();
  for (const segment of segments) {
    const command = segment.command ?? '';
    const match =
      /\bip\s+(?:-\w+\s+)?link\s+set\s+(?:dev\s+)?(\S+)\s+down\b/.exec(command) ??
      /\bip\s+(?:-\w+\s+)?link\s+set\s+down\s+(?:dev\s+)?(\S+)/.exec(command) ??
      /\b(?:ifdown|ifconfig)\s+(\S+)(?:\s+down)?\s*$/.exec(command);
    if (match && (!/\bifconfig\b/.test(command) || /\sdown\s*$/.test(command))) names.add(match[1]!);
  }
  return names;
}

/** The rows of a pasted /proc/net/dev; none when it holds no whole row. */
function procNetDevEntries(text: string): ProcNetDevEntry[] {
  try {
    return parseProcNetDev(text);
  } catch {
    return [];
  }
}
