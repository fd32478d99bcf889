import { ParseError } from '../parsers/parse-error.js';
import { parseFreebsdIfconfig, type FreebsdInterface } from '../parsers/freebsd-ifconfig.js';
import { parsePciconf, type PciconfDevice } from '../parsers/freebsd-pciconf.js';
import { driverSysctls, parseFreebsdSysctl } from '../parsers/freebsd-sysctl.js';
import { parseFreebsdBoot, type FreebsdBootNic } from '../parsers/freebsd-boot.js';
import { parseVmstatI, vectorsOf, type VmstatInterrupt } from '../parsers/freebsd-vmstat-i.js';
import {
  CAPABILITY_FEATURES,
  SOCKET_BUFFER_SYSCTLS,
  freebsdDriverOf,
  freebsdInterfaceKind,
  mediaSpeedMbps,
  sysctlNodeOf,
} from '../domain/freebsd.js';
import { freebsdDriverLinesOfText } from './kernel-text.js';
import type { Segment } from './segment.js';

/**
 * A FreeBSD host (TrueNAS CORE, OPNsense, pfSense, OneFS) in pasted text: its outputs read and
 * restated as the Linux outputs of the same meaning, so that the collectors and checks judge it
 * unchanged (as a sosreport's sysfs is derived from its ethtool output):
 *   ifconfig     → the interface list, MTU, carrier, link speed and duplex (media), the
 *                  offloads that are on (options=) and, with -m, those the driver can do;
 *   pciconf -lvc → an lspci block per NIC (LnkSta/LnkCap from `link xW(xW) speed S(S)`);
 *   sysctl dev.<driver>.<unit> → queue counts, flow control, firmware;
 *   boot messages → queues, descriptors, PCIe link, link state;
 *   sysctl kern.ipc.maxsockbuf, net.inet.tcp.{send,recv}buf_max → the socket-buffer limits.
 * Nothing is invented: a value no output holds stays absent and is asked for.
 */

export interface FreebsdNic {
  name: string;
  driver: string | null;
  kind: 'physical' | 'virtual-nic' | 'software';
  busInfo: string | null;
  speedMbps: number | null;
  speedSource: string | null;
  duplex: 'full' | 'half' | null;
  carrier: boolean | null;
  mtu: number | null;
  up: boolean | null;
}

export interface FreebsdText {
  /** "FreeBSD 13.1-RELEASE-p9", or "FreeBSD" when only the outputs' shapes say so. */
  os: string;
  kernel: string | null;
  hostname: string | null;
  cpus: number | null;
  nics: FreebsdNic[];
  /** Linux-equivalent outputs: argv key parts → text ("ethtool -k ix0" → "Features for ix0: ..."). */
  commands: Array<{ argv: string[]; text: string }>;
  /** lspci -vv blocks restated from pciconf, one per NIC function. */
  lspci: string[];
  /** Linux sysctl names → values, from the FreeBSD sysctls of the same meaning. */
  sysctl: Map<string, string>;
  /** rx queue count per interface (sysctl queue subtrees or boot messages). */
  rxQueues: Map<string, number>;
  /** Interrupt vectors per interface, from vmstat -i. */
  vectors: Map<string, VmstatInterrupt[]>;
  /** What says the host is FreeBSD, and what was inferred. */
  evidence: string[];
  inferences: string[];
}

/** The segment kinds only FreeBSD prints. */
export const FREEBSD_KINDS: ReadonlySet<Segment['kind']> = new Set([
  'freebsd-ifconfig',
  'pciconf',
  'freebsd-sysctl',
  'netstat-m',
  'vmstat-i',
  'freebsd-version',
]);

function tryParse<T>(parse: () => T, notes: string[], what: string): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    notes.push(`${what}: not read: ${error.message}`);
    return undefined;
  }
}

/** The FreeBSD release a uname -a, freebsd-version or boot banner gives ("13.1-RELEASE-p9"). */
function releaseOf(texts: readonly string[]): { release: string; hostname: string | null } | null {
  for (const text of texts) {
    const uname = /^FreeBSD (\S+) (\d{1,2}\.\d{1,2}-[A-Z]{2,12}\S*)/m.exec(text);
    if (uname) return { release: uname[2]!, hostname: uname[1]! };
    const version = /^(\d{1,2}\.\d{1,2}-(?:RELEASE|STABLE|CURRENT|PRERELEASE|BETA\d{0,2}|RC\d{0,2})(?:-p\d{1,3})?)\s*$/m.exec(text);
    if (version) return { release: version[1]!, hostname: null };
  }
  return null;
}

export function readFreebsdText(segments: readonly Segment[], fullText: string): FreebsdText | null {
  const texts = (kind: Segment['kind']) => segments.filter((part) => part.kind === kind).map((part) => part.text);
  const inferences: string[] = [];
  const evidence: string[] = [];
  const release = releaseOf([...texts('uname'), ...texts('freebsd-version'), fullText.slice(0, 1_000_000)]);
  if (release) evidence.push(`FreeBSD ${release.release}`);
  const ifconfig = texts('freebsd-ifconfig').flatMap((text) => tryParse(() => parseFreebsdIfconfig(text), inferences, 'ifconfig') ?? []);
  if (ifconfig.length) evidence.push('ifconfig flags/options/media lines');
  const pci = texts('pciconf').flatMap((text) => tryParse(() => parsePciconf(text), inferences, 'pciconf') ?? []);
  if (pci.length) evidence.push('pciconf');
  const sysctl = new Map<string, string>();
  for (const text of [...texts('freebsd-sysctl'), ...texts('sysctl')]) {
    if (!/^[a-z][\w%.-]*: /m.test(text)) continue;
    const parsed = tryParse(() => parseFreebsdSysctl(text), inferences, 'sysctl');
    for (const [key, value] of parsed ?? []) if (!sysctl.has(key)) sysctl.set(key, value);
  }
  if ([...sysctl.keys()].some((key) => key.startsWith('dev.') || key.startsWith('kern.') || key.startsWith('hw.')))
    evidence.push('FreeBSD sysctl names (dev., kern., hw.)');
  // Driver messages stand anywhere in a ticket, quoted, wrapped or respaced by its mailer.
  const boot = parseFreebsdBoot(freebsdDriverLinesOfText(fullText));
  const bootNics = new Map([...boot].filter(([name]) => freebsdInterfaceKind(name) !== 'software'));
  if (bootNics.size) evidence.push('FreeBSD driver boot messages');
  const interrupts = texts('vmstat-i').flatMap((text) => tryParse(() => parseVmstatI(text), inferences, 'vmstat -i') ?? []);
  if (interrupts.length) evidence.push('vmstat -i');
  if (texts('netstat-m').length) evidence.push('netstat -m');
  if (evidence.length === 0) return null;

  const names = new Set<string>();
  for (const entry of ifconfig) if (freebsdInterfaceKind(entry.name) !== 'software' || entry.media) names.add(entry.name);
  for (const device of pci) if (device.classCode?.startsWith('0x02') && !/^none\d/.test(device.name)) names.add(device.name);
  for (const name of bootNics.keys()) names.add(name);
  for (const key of sysctl.keys()) {
    const node = /^dev\.([a-z][a-z_]{0,15})\.(\d{1,3})\./.exec(key);
    if (node && freebsdInterfaceKind(`${node[1]}${node[2]}`) !== 'software') names.add(`${node[1]}${node[2]}`);
  }

  const result: FreebsdText = {
    os: release ? `FreeBSD ${release.release}` : 'FreeBSD',
    kernel: release?.release ?? null,
    hostname: release?.hostname ?? null,
    cpus: Number(sysctl.get('hw.ncpu')) || null,
    nics: [],
    commands: [],
    lspci: [],
    sysctl: linuxSocketSysctls(sysctl),
    rxQueues: new Map(),
    vectors: new Map(),
    evidence,
    inferences,
  };
  // netstat -m is served as it was printed: the mbuf collector reads FreeBSD's own output.
  const mbufs = texts('netstat-m')[0];
  if (mbufs) result.commands.push({ argv: ['netstat', '-m'], text: mbufs });
  for (const name of [...names].sort()) {
    const entry = ifconfig.find((candidate) => candidate.name === name);
    const device = pci.find((candidate) => candidate.name === name);
    const bootNic = bootNics.get(name);
    result.nics.push(nicOf(name, entry, device, bootNic, result));
    if (entry) {
      const features = featuresText(entry);
      if (features) result.commands.push({ argv: ['ethtool', '-k', name], text: features });
      result.commands.push({ argv: ['ethtool', name], text: settingsText(entry) });
    } else if (bootNic && bootNic.linkUp !== null) {
      result.commands.push({ argv: ['ethtool', name], text: bootSettingsText(bootNic) });
    }
    if (device?.capabilitiesListed) result.lspci.push(lspciBlock(device));
    const node = sysctlNodeOf(name);
    const driver = node ? driverSysctls(sysctl, node) : null;
    const queues = driver?.rxQueues ?? bootNic?.rxQueues ?? null;
    if (queues) result.rxQueues.set(name, queues);
    const pause = pauseText(name, driver?.flowControl ?? null, entry);
    if (pause) result.commands.push({ argv: ['ethtool', '-a', name], text: pause });
    const vectors = vectorsOf(interrupts, name);
    if (vectors.length) result.vectors.set(name, vectors);
  }
  return result;
}

function nicOf(
  name: string,
  entry: FreebsdInterface | undefined,
  device: PciconfDevice | undefined,
  boot: FreebsdBootNic | undefined,
  host: FreebsdText,
): FreebsdNic {
  const mediaSpeed = entry?.mediaSubtype ? mediaSpeedMbps(entry.mediaSubtype) : null;
  const bootSpeed = boot?.linkMbps ?? null;
  const noCarrier = entry?.status === 'no carrier' || (entry === undefined && boot?.linkUp === false);
  const carrier = entry?.status === 'active' ? true : noCarrier ? false : (boot?.linkUp ?? null);
  if (!entry && bootSpeed) host.inferences.push(`${name}: link speed ${bootSpeed / 1000} Gb/s from the driver's boot messages`);
  return {
    name,
    driver: freebsdDriverOf(name),
    kind: freebsdInterfaceKind(name),
    busInfo: device?.address ?? null,
    speedMbps: carrier === false ? null : (mediaSpeed ?? bootSpeed),
    speedSource: carrier === false ? null : mediaSpeed ? 'ifconfig media' : bootSpeed ? 'boot messages' : null,
    duplex: entry?.duplex ?? null,
    carrier,
    mtu: entry?.mtu ?? null,
    up: entry ? entry.flags.includes('UP') : null,
  };
}

/**
 * `ethtool -k` as FreeBSD's capability flags say it: options= lists what is on. What is off can
 * be turned on only if the driver offers it, which ifconfig -m's capabilities= says: without it,
 * an absent flag is not stated either way (the device may not have it, as a cloud NIC often does).
 */
function featuresText(entry: FreebsdInterface): string | null {
  if (!entry.options) return null;
  const lines: string[] = [];
  for (const [flag, feature] of Object.entries(CAPABILITY_FEATURES)) {
    if (entry.options.includes(flag)) lines.push(`${feature}: on`);
    else if (entry.capabilities) lines.push(`${feature}: off${entry.capabilities.includes(flag) ? '' : ' [fixed]'}`);
  }
  return lines.length ? `Features for ${entry.name}:\n${lines.join('\n')}\n` : null;
}

/** `ethtool <if>` of what ifconfig's media and status lines say. */
function settingsText(entry: FreebsdInterface): string {
  const speed = entry.status === 'active' && entry.mediaSubtype ? mediaSpeedMbps(entry.mediaSubtype) : null;
  const lines = [`Settings for ${entry.name}:`];
  if (speed) lines.push(`\tSpeed: ${speed}Mb/s`);
  if (entry.duplex) lines.push(`\tDuplex: ${entry.duplex === 'full' ? 'Full' : 'Half'}`);
  if (entry.media) lines.push(`\tAuto-negotiation: ${/\bautoselect\b/.test(entry.media) ? 'on' : 'off'}`);
  if (entry.status) lines.push(`\tLink detected: ${entry.status === 'active' ? 'yes' : 'no'}`);
  return lines.join('\n') + '\n';
}

/** `ethtool <if>` of the driver's last link message at boot ("Link is up, 25 Gbps Full Duplex", "failed to establish link"). */
function bootSettingsText(nic: FreebsdBootNic): string {
  const lines = [`Settings for ${nic.name}:`];
  if (nic.linkUp && nic.linkMbps) lines.push(`\tSpeed: ${nic.linkMbps}Mb/s`);
  lines.push(`\tLink detected: ${nic.linkUp ? 'yes' : 'no'}`);
  return lines.join('\n') + '\n';
}

/** `ethtool -a` from the driver's fc sysctl (0 none, 1 rx, 2 tx, 3 both) or the media's rxpause/txpause. */
function pauseText(name: string, fc: number | null, entry: FreebsdInterface | undefined): string | null {
  let rx: boolean | null = null;
  let tx: boolean | null = null;
  if (fc !== null && fc >= 0 && fc <= 3) {
    rx = fc === 1 || fc === 3;
    tx = fc === 2 || fc === 3;
  } else if (entry?.rxPause !== null && entry?.rxPause !== undefined) {
    rx = entry.rxPause;
    tx = entry.txPause;
  }
  if (rx === null) return null;
  return `Pause parameters for ${name}:\nAutonegotiate:\toff\nRX:\t\t${rx ? 'on' : 'off'}\nTX:\t\t${tx ? 'on' : 'off'}\n`;
}

const gts = (value: number) => `${Number.isInteger(value) ? value : value.toFixed(1).replace(/\.0$/, '')}GT/s`;

/** The lspci -vv lines the PCIe collector reads, from pciconf's PCI-Express capability. */
function lspciBlock(device: PciconfDevice): string {
  const lines = [`${device.address} Ethernet controller: ${[device.vendor, device.device].filter(Boolean).join(' ') || 'network device'}`];
  const express = device.pcie;
  if (express) {
    lines.push('\tCapabilities: [a0] Express (v2) Endpoint, MSI 00');
    if (express.maxPayloadBytes) lines.push(`\t\tDevCap:\tMaxPayload ${express.maxPayloadBytes} bytes, PhantFunc 0`);
    // lspci prints MaxPayload and MaxReadReq together; pciconf before FreeBSD 11 has no "max read": then neither is stated.
    if (express.payloadBytes && express.maxReadBytes)
      lines.push(
        `\t\tDevCtl:\tCorrErr- NonFatalErr- FatalErr- UnsupReq-`,
        `\t\t\tMaxPayload ${express.payloadBytes} bytes, MaxReadReq ${express.maxReadBytes} bytes`,
      );
    if (express.maxWidth !== null)
      lines.push(`\t\tLnkCap:\tPort #0, ${express.maxSpeedGts ? `Speed ${gts(express.maxSpeedGts)}, ` : ''}Width x${express.maxWidth}`);
    if (express.width !== null)
      lines.push(`\t\tLnkSta:\t${express.speedGts ? `Speed ${gts(express.speedGts)}, ` : ''}Width x${express.width}`);
  }
  const driver = freebsdDriverOf(device.name);
  if (driver && !/^none$/.test(driver)) lines.push(`\tKernel driver in use: ${driver}`);
  return lines.join('\n') + '\n';
}

/**
 * FreeBSD's socket-buffer sysctls under the Linux names the socket-buffer check reads:
 * kern.ipc.maxsockbuf caps every socket buffer (rmem_max/wmem_max), and TCP autotuning grows
 * buffers up to net.inet.tcp.recvbuf_max / sendbuf_max (tcp_rmem/tcp_wmem's maximum), starting
 * from recvspace/sendspace.
 */
function linuxSocketSysctls(sysctl: ReadonlyMap<string, string>): Map<string, string> {
  const result = new Map<string, string>();
  const number = (key: string) => {
    const value = sysctl.get(key);
    return value !== undefined && /^\d{1,15}$/.test(value) ? value : null;
  };
  const cap = number(SOCKET_BUFFER_SYSCTLS.maxSocketBuffer);
  if (cap) {
    result.set('net.core.rmem_max', cap);
    result.set('net.core.wmem_max', cap);
  }
  const receive = number(SOCKET_BUFFER_SYSCTLS.receiveAutotuneMax);
  const send = number(SOCKET_BUFFER_SYSCTLS.sendAutotuneMax);
  // FreeBSD's defaults for the initial sizes (tcp_usrreq.c), when the text does not give them.
  const initialReceive = number(SOCKET_BUFFER_SYSCTLS.receiveInitial) ?? '65536';
  const initialSend = number(SOCKET_BUFFER_SYSCTLS.sendInitial) ?? '32768';
  if (receive) result.set('net.ipv4.tcp_rmem', `4096 ${initialReceive} ${receive}`);
  if (send) result.set('net.ipv4.tcp_wmem', `4096 ${initialSend} ${send}`);
  return result;
}
