import { lines } from './text.js';

/**
 * What the kernel said at probe time about a NIC's PCIe bandwidth. Three forms:
 * - pcie_print_link_status() (4.17+, every driver that calls it):
 *   "mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link at
 *    0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s x16 link)" — or without "limited by";
 * - ixgbe's own: "ixgbe 0000:07:00.0: PCI Express bandwidth of 4GT/s available" (lanes x rate
 *   after 8b/10b) with "(Speed:5.0GT/s, Width: x1, Encoding Loss:20%)";
 * - igb/e1000e: "igb 0000:05:00.0: eth2: (PCIe:2.5Gb/s:Width x1)".
 */
export interface KernelPcieReport {
  driver: string;
  address: string;
  /** Interface name printed on the line, when the driver names it. */
  interface: string | null;
  /** Usable Gb/s the kernel computed (after encoding), or null when the line gives only the link. */
  availableGbps: number | null;
  /** The link that limits it ("8 GT/s x8") and where, when the kernel says "limited by". */
  limitedBy: { link: string; address: string } | null;
  /** What the device could do on its best link ("252.048 Gb/s with 16 GT/s x16"). */
  capableGbps: number | null;
  capableLink: string | null;
  /** The current link as printed ("8.0 GT/s PCIe x8", "Speed:5.0GT/s, Width: x1"). */
  link: string | null;
  /**
   * What the driver says all the card's ports need, in the units of availableGbps (ixgbe: "For
   * optimal performance, at least 20GT/s of bandwidth is required" on a dual 10G card); null when
   * it does not say.
   */
  requiredGbps: number | null;
  /** The log line, trimmed of its timestamp. */
  line: string;
}

/** What the kernel log says about one NIC: its current name, PCI function, driver and last link speed. */
export interface KernelNic {
  /** The PCI function ("0000:03:00.0"); null when only the interface was named (old e1000e, VMDq VSIs). */
  address: string | null;
  driver: string | null;
  /** The name it had last ("enp3s0f0" after "renamed from eth0"); null while only "(unnamed net_device)". */
  name: string | null;
  /** Earlier names it was renamed from, oldest first. */
  previousNames: string[];
  /** The speed of its last "Link is Up" line, in Mb/s; null when the driver does not print one (mlx5 "Link up"). */
  speedMbps: number | null;
  duplex: 'full' | 'half' | null;
  /** Whether the last link line said up (true) or down (false); null when there was none. */
  linkUp: boolean | null;
  /** The last link-up line, trimmed of its timestamp. */
  linkLine: string | null;
}

export interface KernelLog {
  pcie: KernelPcieReport[];
  nics: KernelNic[];
}

/**
 * Lines longer than this are not kernel messages (printk's limit is 1024 bytes): they are skipped
 * whole, so a pasted blob cannot make the per-line patterns below do work out of proportion.
 */
const MAX_LINE = 4096;
export const PCI_ADDRESS = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;
/**
 * An interface name the kernel or udev gives (eth0, enp3s0f1, ens1f0np0, eno1, ib0, wlan0, bond0,
 * p2p1, em1) followed by ": ": unlike "MAC: " or "E-Switch: ", it names a device.
 */
const KERNEL_NAME_SCHEME = String.raw`(?:eth|en[opsx]|ib|wl|ww|em|bond|team|p\d{1,2}p)[\w.-]{0,13}`;
const KERNEL_NAMED = new RegExp(String.raw`^(${KERNEL_NAME_SCHEME}): `);
export const KERNEL_INTERFACE_NAME = new RegExp(String.raw`^${KERNEL_NAME_SCHEME}$`);
/** An interface name as the kernel allows it (dev_valid_name): 1-15 bytes, no '/', ':' or space. */
const IFACE = /^[^\s/:()]{1,15}$/;

/** "[  3.6] ", syslog "Nov 17 13:44:29 host kernel: [ 3.6] ", journal "<6>[ 3.6] " and mail quoting "> >> ". */
export function message(line: string): string {
  let text = line.length > MAX_LINE ? '' : line;
  // Everything up to the first "kernel: " is the syslog header (bounded: a header is short).
  const kernel = text.indexOf('kernel: ');
  if (kernel >= 0 && kernel < 120) {
    text = text.slice(kernel + 'kernel: '.length);
    // syslog-ng templates that bracket the tag: "[kern.err] [kernel: .]: ixgbe ..." leaves ".]: ".
    text = text.replace(/^[^\w\s[]{0,3}\]:?\s+/, '');
  }
  return (
    text
      .replace(/^[>\s]{0,40}/, '')
      .replace(/^<\d{1,2}>/, '')
      // A Markdown renderer or a copy from a web page may drop the opening bracket ("357.664468] pci ...").
      .replace(/^(?:\[\s{0,12}[\d.]{1,20}|\d{1,12}\.\d{1,9})\]\s{0,8}/, '')
      .trim()
  );
}

/**
 * The device prefix dev_printk and netdev_printk put on a line: "ixgbe 0000:03:00.0 eth0: ",
 * "igb 0000:05:00.0: eth2: ", "mlx5_core 0000:b3:00.1: ", "virtio_net virtio0 enp1s0: ", or a
 * bare "enp2s0f0np0v0: " (netdev_info on a device without a parent). Read token by token, each
 * anchored and bounded, so the cost is linear in the line.
 */
export interface Prefixed {
  driver: string | null;
  /** The bus id printed after the driver: a PCI address, or another bus's ("virtio0"). */
  bus: string | null;
  iface: string | null;
  body: string;
}

export function prefixOf(text: string): Prefixed | undefined {
  const head = /^([\w.-]{1,40}) ((?:[\w.-]{1,16}:){0,4}[\w.-]{1,40})(?: ([^\s:]{1,40}))?: /.exec(text);
  // A bus id has a digit (0000:03:00.0, virtio0, ff540000.ethernet): "Driver has TODO: ..." is prose.
  if (head && /\d/.test(head[2]!)) {
    const [whole, driver, bus, named] = head;
    let body = text.slice(whole.length);
    let iface = named ?? null;
    // igb and old ixgbe name the interface after the address: "igb 0000:05:00.0: eth2: (PCIe:...)".
    // Only before what such drivers print there: any other "Word: " is a message ("E-Switch: ...", "MAC: 2").
    // A name in the kernel's own naming schemes (eth3, enp1s0f1, ib0, bond0 ...) is one whatever follows
    // ("eth3: Detected Tx Unit Hang", "eth3: Reset adapter").
    const inner = iface ? null : (/^([^\s:()]{1,15}): (?=\(PCIe:|NIC |Link |renamed from )/.exec(body) ?? KERNEL_NAMED.exec(body));
    if (inner) {
      iface = inner[1]!;
      body = body.slice(inner[0].length);
    }
    if (iface !== null && !IFACE.test(iface)) iface = null;
    return { driver: driver!, bus: bus!, iface, body };
  }
  // "e1000e: eth0 NIC Link is Up ..." (old drivers), "enp2s0f0np0v0: NIC Link is Up ...".
  const driverOnly = /^([\w-]{1,32}): ([^\s:]{1,15}) (?=NIC )/.exec(text);
  if (driverOnly) return { driver: driverOnly[1]!, bus: null, iface: driverOnly[2]!, body: text.slice(driverOnly[0].length) };
  // "bna: enp1s0f2 link up": a driver's word before a kernel-style interface name and a link or
  // transmit message ("Note: eth0 is the 10G port" is prose, and names no NIC).
  const driverNamed = /^([\w-]{1,32}): (\S{1,15}) (?=(?:NIC )?link\b|Detected |Reset |tx |transmit )/i.exec(text);
  if (driverNamed && KERNEL_INTERFACE_NAME.test(driverNamed[2]!))
    return { driver: driverNamed[1]!, bus: null, iface: driverNamed[2]!, body: text.slice(driverNamed[0].length) };
  const bare = /^([^\s:]{1,15}): (?=NIC )/.exec(text);
  if (bare) return { driver: null, bus: null, iface: bare[1]!, body: text.slice(bare[0].length) };
  // Switch-SoC and vendor drivers open a link message with the port's name and their own details:
  // "eth3 (Int switch port: 7) (phyId: 15) Link Up at 100 mbps", "eth1: Link is Down". Only a name in
  // the kernel's naming schemes counts ("Port 1 Link Up" names no interface).
  const portFirst = /^(\S{1,15}?):? (?:\([^()]{0,40}\) ){0,4}(?=(?:NIC )?Link (?:is )?(?:up|down)\b)/i.exec(text);
  if (portFirst && KERNEL_INTERFACE_NAME.test(portFirst[1]!))
    return { driver: null, bus: null, iface: portFirst[1]!, body: text.slice(portFirst[0].length) };
  return undefined;
}

/** "10 Gbps", "25000 Mbps", "at 1000 Mbps", "- 1Gbps/Full", "Speed is 25 Gbps", "40 G" (i40e) in Mb/s. */
function speedAfter(rest: string): number | null {
  const match = /^[\s,:-]{0,4}(?:at |Speed is )?(\d{1,6}(?:\.\d{1,2})?) ?([GM])(?:bps|b\/s|bit\/s|Bit\/s)?\b/i.exec(rest);
  if (!match) return null;
  const value = Number(match[1]) * (match[2]!.toUpperCase() === 'G' ? 1000 : 1);
  return Number.isFinite(value) && value > 0 && value <= 1_600_000 ? Math.round(value) : null;
}

export interface LinkEvent {
  up: boolean;
  speedMbps: number | null;
  duplex: 'full' | 'half' | null;
}

/**
 * Link lines in each driver's own words (format strings of the kernel drivers):
 *   ixgbe/txgbe "NIC Link is Up 10 Gbps, Flow Control: RX/TX"; i40e "NIC Link is Up, 40 Gbps Full Duplex, ...";
 *   ice "NIC Link is up 25 Gbps Full Duplex, Requested FEC: ..."; iavf "NIC Link is Up Speed is 25 Gbps Full Duplex";
 *   bnxt/bnx2x "NIC Link is Up, 25000 Mbps full duplex, Flow control: ..."; igb/igc/e1000e "NIC Link is Up 1000 Mbps
 *   Full Duplex, Flow Control: RX/TX"; tg3 "Link is up at 1000 Mbps, full duplex"; phylib/r8169 "Link is Up -
 *   1Gbps/Full - flow control rx/tx"; sfc "link up at 10000Mbps full-duplex"; mlx5 "Link up" (no speed);
 *   atlantic "atlantic: link change old 0 new 10000".
 */
export function linkEvent(body: string): LinkEvent | undefined {
  const atlantic = /^(?:atlantic: )?link change old \d{1,7} new (\d{1,7})$/.exec(body);
  if (atlantic) {
    const speed = Number(atlantic[1]);
    return { up: speed > 0, speedMbps: speed > 0 ? speed : null, duplex: null };
  }
  const up = /^(?:[\w-]{1,16}: )?(?:[\w.-]{1,15} )?(?:NIC )?(?:\w{1,12} )?Link (?:is )?up\b/i.exec(body);
  if (up) {
    const rest = body.slice(up[0].length, up[0].length + 120);
    const duplex = /\b(full|half)[ -]duplex\b|\/(Full|Half)\b/i.exec(rest);
    const which = (duplex?.[1] ?? duplex?.[2])?.toLowerCase();
    return { up: true, speedMbps: speedAfter(rest), duplex: which === 'full' || which === 'half' ? which : null };
  }
  if (/^(?:[\w-]{1,16}: )?(?:[\w.-]{1,15} )?(?:NIC )?(?:\w{1,12} )?Link (?:is )?down\b/i.test(body))
    return { up: false, speedMbps: null, duplex: null };
  return undefined;
}

const GENERIC =
  /^([\d.]{1,12}) Gb\/s available PCIe bandwidth(?:, limited by ([\d.]{1,8} GT\/s (?:PCIe )?x\d{1,2}) link at ([0-9a-f:.]{7,16}) \(capable of ([\d.]{1,12}) Gb\/s with ([\d.]{1,8} GT\/s (?:PCIe )?x\d{1,2}) link\)| \(([^)]{0,80})\))/i;
const IXGBE = /^PCI Express bandwidth of (\d{1,4})GT\/s available/i;
const IXGBE_LINK = /^\((Speed:([\d.]{1,6})GT\/s, Width: x(\d{1,2}))/i;
const IXGBE_REQUIRED = /^For optimal performance,? at least (\d{1,4})GT\/s of bandwidth is required/i;
// igb: "(PCIe:2.5Gb/s:Width x1)"; i40e: "PCI-Express: Speed 8.0GT/s Width x8".
const LANES = /^(?:\(PCIe:([\d.]{1,6})G[bT]\/s:Width x(\d{1,2})\)|PCI-Express: Speed ([\d.]{1,6})GT\/s Width x(\d{1,2})\b)/i;

/** Usable Gb/s of a link after 8b/10b (Gen1-2) or 128b/130b (Gen3+) encoding. */
function usable(rate: number, width: number): number {
  const perLane = rate >= 8 ? rate * (128 / 130) : rate * 0.8;
  return Number((perLane * width).toFixed(3));
}

/** Tracks names through renames: the last name each device had, and which device holds each name. */
class NicTable {
  private readonly byAddress = new Map<string, KernelNic>();
  private readonly byName = new Map<string, KernelNic>();

  private blank(address: string | null, driver: string | null): KernelNic {
    return { address, driver, name: null, previousNames: [], speedMbps: null, duplex: null, linkUp: null, linkLine: null };
  }

  /** The NIC this line speaks of, with the name it gives it (a name moves to the device that now holds it). */
  nic(address: string | null, driver: string | null, iface: string | null): KernelNic | undefined {
    let nic = address ? this.byAddress.get(address) : undefined;
    if (!nic && iface) nic = this.byName.get(iface);
    if (!nic && !address && !iface) return undefined;
    if (!nic) {
      nic = this.blank(address, driver);
      if (address) this.byAddress.set(address, nic);
    }
    if (address && !nic.address) {
      nic.address = address;
      this.byAddress.set(address, nic);
    }
    nic.driver ??= driver;
    if (iface && nic.name !== iface) this.assign(nic, iface);
    return nic;
  }

  rename(nic: KernelNic, from: string): void {
    if (!nic.previousNames.includes(from)) nic.previousNames.push(from);
    // The old name is free again: whoever else printed it before no longer holds it.
    const holder = this.byName.get(from);
    if (holder && holder !== nic) return;
    this.byName.delete(from);
  }

  private assign(nic: KernelNic, iface: string): void {
    const holder = this.byName.get(iface);
    if (holder && holder !== nic) {
      // Another device printed this name earlier: the name has moved (a reload, a rename), so the earlier one's is stale.
      holder.previousNames.push(iface);
      holder.name = null;
    }
    if (nic.name && nic.name !== iface) {
      if (!nic.previousNames.includes(nic.name)) nic.previousNames.push(nic.name);
      if (this.byName.get(nic.name) === nic) this.byName.delete(nic.name);
    }
    nic.name = iface;
    this.byName.set(iface, nic);
  }

  all(): KernelNic[] {
    // Other PCI devices (nvme, pcieport) print lines too: only those the log names or links are NICs.
    const seen = new Set<KernelNic>([...this.byAddress.values(), ...this.byName.values()]);
    return [...seen].filter((nic) => nic.name !== null || nic.previousNames.length > 0 || nic.linkUp !== null);
  }
}

/**
 * Reads a kernel log (dmesg, `journalctl -k`, /var/log/messages, lines pasted into a mail): the
 * PCIe bandwidth each NIC reported at probe, and each NIC's name, PCI function, driver and link
 * speed from its renames, probe lines and link messages. Lines that say none of this are skipped.
 */
export function parseKernelLog(text: string): KernelLog {
  const reports = new Map<string, KernelPcieReport>();
  const ixgbeLinks = new Map<string, { link: string; driver: string; line: string; rate: number; width: number; iface: string | null }>();
  const required = new Map<string, number>();
  const nics = new NicTable();
  for (const raw of lines(text)) {
    const line = message(raw);
    if (!line) continue;
    const udev = / renamed network interface ([^\s:]{1,15}) to ([^\s:]{1,15})$/.exec(line.slice(-80));
    if (udev) {
      // udev before kernel 5.x: "udev: renamed network interface eth0 to em1" (no PCI address).
      const nic = nics.nic(null, null, udev[1]!);
      if (nic) {
        nics.nic(nic.address, nic.driver, udev[2]!);
        nics.rename(nic, udev[1]!);
      }
      continue;
    }
    const prefixed = prefixOf(line);
    if (!prefixed) continue;
    const address = prefixed.bus && PCI_ADDRESS.test(prefixed.bus) ? prefixed.bus.toLowerCase() : null;
    const { body } = prefixed;
    const renamed = /^renamed from ([^\s:]{1,15})$/.exec(body);
    if (renamed && prefixed.iface) {
      const nic = nics.nic(address, prefixed.driver, prefixed.iface);
      if (nic) nics.rename(nic, renamed[1]!);
      continue;
    }
    // A bus that is not PCI (virtio0, a VMBus GUID) names no PCI function: the line still names the interface.
    const nic = nics.nic(address, address ? prefixed.driver : null, prefixed.iface);
    const link = linkEvent(body);
    if (link && nic) {
      nic.linkUp = link.up;
      if (link.up) {
        nic.speedMbps = link.speedMbps;
        nic.duplex = link.duplex;
        nic.linkLine = line;
      }
      continue;
    }
    if (!address) continue;
    const driver = prefixed.driver!;
    const generic = GENERIC.exec(body);
    if (generic) {
      const [, available, limitLink, limitAddress, capable, capableLink, link] = generic;
      reports.set(address, {
        driver,
        address,
        interface: prefixed.iface,
        availableGbps: Number(available),
        limitedBy: limitLink ? { link: limitLink, address: limitAddress! } : null,
        capableGbps: capable ? Number(capable) : null,
        capableLink: capableLink ?? null,
        link: link ?? limitLink ?? null,
        requiredGbps: null,
        line,
      });
      continue;
    }
    const ixgbe = IXGBE.exec(body);
    if (ixgbe) {
      // ixgbe prints lanes x per-lane rate after 8b/10b: 4GT/s is Gen2 x1, 4 Gb/s of data.
      reports.set(address, {
        driver,
        address,
        interface: prefixed.iface,
        availableGbps: Number(ixgbe[1]),
        limitedBy: null,
        capableGbps: null,
        capableLink: null,
        link: null,
        requiredGbps: null,
        line,
      });
      continue;
    }
    const ixgbeLink = IXGBE_LINK.exec(body);
    if (ixgbeLink) {
      const [, link, rate, width] = ixgbeLink;
      ixgbeLinks.set(address, { link: link!, driver, line, rate: Number(rate), width: Number(width), iface: prefixed.iface });
      continue;
    }
    const needed = IXGBE_REQUIRED.exec(body);
    if (needed) {
      required.set(address, Number(needed[1]));
      continue;
    }
    const lanes = LANES.exec(body);
    if (lanes) {
      const rate = lanes[1] ?? lanes[3]!;
      const width = lanes[2] ?? lanes[4]!;
      reports.set(address, {
        driver,
        address,
        interface: prefixed.iface,
        availableGbps: usable(Number(rate), Number(width)),
        limitedBy: null,
        capableGbps: null,
        capableLink: null,
        link: `${rate} GT/s x${width}`,
        requiredGbps: null,
        line,
      });
    }
  }
  for (const [address, seen] of ixgbeLinks) {
    const report = reports.get(address);
    if (report && !report.link) report.link = seen.link;
    // A pasted excerpt may start after the "bandwidth ... available" line: the link line says the same.
    if (!report && seen.rate > 0 && seen.width > 0)
      reports.set(address, {
        driver: seen.driver,
        address,
        interface: seen.iface,
        availableGbps: usable(seen.rate, seen.width),
        limitedBy: null,
        capableGbps: null,
        capableLink: null,
        link: seen.link,
        requiredGbps: null,
        line: seen.line,
      });
  }
  for (const [address, gbps] of required) {
    const report = reports.get(address);
    if (report) report.requiredGbps = gbps;
  }
  return { pcie: [...reports.values()], nics: nics.all() };
}

/** The PCIe bandwidth lines alone (the `kernel.pcie` fact). */
export function parseKernelPcieReports(text: string): KernelPcieReport[] {
  return parseKernelLog(text).pcie;
}
