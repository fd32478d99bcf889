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
  /** The log line, trimmed of its timestamp. */
  line: string;
}

const DEVICE = String.raw`(\S+) ([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])(?: (\S+))?:`;
const GENERIC = new RegExp(
  String.raw`${DEVICE} ([\d.]+) Gb/s available PCIe bandwidth(?:, limited by ([\d.]+ GT/s (?:PCIe )?x\d+) link at ([0-9a-f:.]+) \(capable of ([\d.]+) Gb/s with ([\d.]+ GT/s (?:PCIe )?x\d+) link\)| \(([^)]*)\))`,
  'i',
);
const IXGBE = new RegExp(String.raw`${DEVICE} PCI Express bandwidth of (\d+)GT/s available`, 'i');
const IXGBE_LINK = new RegExp(String.raw`${DEVICE} \((Speed:[\d.]+GT/s, Width: x\d+)`, 'i');
// igb names the interface after the address's colon: "igb 0000:05:00.0: eth2: (PCIe:2.5Gb/s:Width x1)".
const IGB = /(\S+) ([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]):(?: (\S+):)? \(PCIe:([\d.]+)G[bT]\/s:Width x(\d+)\)/i;

/** Strips "[  3.6]" and syslog "Nov 17 13:44:29 host kernel: [ 3.6]" prefixes. */
function message(line: string): string {
  return line
    .replace(/^.*?kernel:\s*/, '')
    .replace(/^\[\s*[\d.]+\]\s*/, '')
    .trim();
}

export function parseKernelPcieReports(text: string): KernelPcieReport[] {
  const reports = new Map<string, KernelPcieReport>();
  const ixgbeLinks = new Map<string, string>();
  for (const raw of lines(text)) {
    const line = message(raw);
    const generic = GENERIC.exec(line);
    if (generic) {
      const [, driver, address, iface, available, limitLink, limitAddress, capable, capableLink, link] = generic;
      reports.set(address!, {
        driver: driver!,
        address: address!,
        interface: iface ?? null,
        availableGbps: Number(available),
        limitedBy: limitLink ? { link: limitLink, address: limitAddress! } : null,
        capableGbps: capable ? Number(capable) : null,
        capableLink: capableLink ?? null,
        link: link ?? limitLink ?? null,
        line,
      });
      continue;
    }
    const ixgbe = IXGBE.exec(line);
    if (ixgbe) {
      const [, driver, address, iface, gts] = ixgbe;
      // ixgbe prints lanes x per-lane rate after 8b/10b: 4GT/s is Gen2 x1, 4 Gb/s of data.
      reports.set(address!, {
        driver: driver!,
        address: address!,
        interface: iface ?? null,
        availableGbps: Number(gts),
        limitedBy: null,
        capableGbps: null,
        capableLink: null,
        link: null,
        line,
      });
      continue;
    }
    const ixgbeLink = IXGBE_LINK.exec(line);
    if (ixgbeLink) {
      ixgbeLinks.set(ixgbeLink[2]!, ixgbeLink[4]!);
      continue;
    }
    const igb = IGB.exec(line);
    if (igb) {
      const [, driver, address, iface, rate, width] = igb;
      const perLane = Number(rate) >= 8 ? Number(rate) * (128 / 130) : Number(rate) * 0.8;
      reports.set(address!, {
        driver: driver!,
        address: address!,
        interface: iface ?? null,
        availableGbps: Number((perLane * Number(width)).toFixed(3)),
        limitedBy: null,
        capableGbps: null,
        capableLink: null,
        link: `${rate} GT/s x${width}`,
        line,
      });
    }
  }
  for (const [address, link] of ixgbeLinks) {
    const report = reports.get(address);
    if (report && !report.link) report.link = link;
  }
  return [...reports.values()];
}
