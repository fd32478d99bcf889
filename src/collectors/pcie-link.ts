import path from 'node:path';
import type { CollectContext } from '../contracts/collector.js';
import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError, isFactFailure } from '../contracts/facts.js';
import { findLspciDevice, parseLspci, type LinkMarker, type LspciDevice } from '../parsers/lspci.js';
import type { Source } from '../report/schema.js';
import { parseLinkSpeed, parseLinkWidth } from '../parsers/pcie-text.js';
import { runTool } from './run-tool.js';
import { isPciAddress, readAttribute, resolveLink } from '../hostio/sysfs-read.js';

/** One PCIe link as its function reports it: the current state and what it is capable of. */
export interface PcieLinkReading {
  address: string;
  /** GT/s; null when the kernel or lspci said "Unknown". */
  speedGts: number | null;
  /** Lanes; 0 for a VF or a link that is down. */
  width: number | null;
  maxSpeedGts: number | null;
  maxWidth: number | null;
  /** lspci's own verdict ("ok", "downgraded", "strange"), when lspci was read and printed one. */
  speedMarker: LinkMarker | null;
  widthMarker: LinkMarker | null;
  /** Where the values were read: the sysfs attribute or the lspci command. */
  source: Source;
}

/** A bridge above the NIC (root port, switch port): the narrowest link on the path limits the NIC. */
export interface PcieUpstreamPort {
  address: string;
  path: string;
  /** null when neither sysfs nor lspci gave its link. */
  link: PcieLinkReading | null;
}

export interface PciePayload {
  /** DevCap MaxPayload. */
  supportedBytes: number | null;
  /** DevCtl MaxPayload. */
  configuredBytes: number | null;
  maxReadRequestBytes: number | null;
  source: Source;
}

export type PcieLink =
  | { present: false; reason: string }
  | {
      present: true;
      address: string;
      path: string;
      /** sysfs vendor/device ids ("0x8086", "0x37d2"), for known quirks. */
      vendorId: string | null;
      deviceId: string | null;
      /** An SR-IOV Virtual Function (sysfs `physfn`): its link registers describe no physical link. */
      virtualFunction: boolean;
      physicalFunction: string | null;
      /** null when the function reports no link at all (no PCI Express capability). */
      link: PcieLinkReading | null;
      /** Why `link` is null. */
      linkUnavailable: string | null;
      /** Bridges between the NIC and the root complex, nearest first. */
      upstream: PcieUpstreamPort[];
      /** From lspci (root only); null when lspci could not be read. */
      payload: PciePayload | null;
      payloadUnavailable: string | null;
      /** LnkCtl ASPM state from lspci ("L1", "L0s L1", "disabled"); null when lspci was not read. */
      aspm?: string | null;
    };

declare module '../contracts/facts.js' {
  interface FactTypes {
    'pcie.link': PcieLink;
  }
}

const LINK_ATTRIBUTES = ['current_link_speed', 'current_link_width', 'max_link_speed', 'max_link_width'] as const;

export const pcieLinkCollector = defineCollector({
  id: 'pcie.link',
  scope: 'interface',
  description:
    'PCIe link of the NIC and of the bridges above it: sysfs {current,max}_link_{speed,width}, else `lspci -vv -s <BDF>` (LnkCap/LnkSta); MaxPayload/MaxReadReq from lspci',
  reads: {
    commands: ['lspci -vv -s <pci>'],
    files: ['/sys/bus/pci/devices/<pci>/*', '/sys/devices/**/<pci>/*', '/sys/class/net/<if>/device/*'],
    ask: "sudo lspci -vv -s $(ethtool -i <if> | awk '/bus-info/ {print $2}')",
  },
  async collect(ctx, subject) {
    const device = await ctx.get('net.device', subject);
    if (!device.pciAddress || !device.pciPath) {
      return { present: false, reason: `${subject} is not a PCI device (${device.kind}${device.driver ? `, ${device.driver}` : ''})` };
    }
    if (device.kind === 'paravirtual') {
      // virtio/vmxnet3/netvsc: whatever link the hypervisor emulates says nothing about throughput.
      return { present: false, reason: `${subject} is a paravirtual NIC (${device.driver ?? 'unknown driver'}): its PCI link is emulated` };
    }
    const address = device.pciAddress;
    const pciPath = device.pciPath;
    const [sysfsLink, vendorId, deviceId, physfnPath] = await Promise.all([
      readSysfsLink(ctx, address, pciPath),
      readAttribute(ctx, path.join(pciPath, 'vendor')),
      readAttribute(ctx, path.join(pciPath, 'device')),
      resolveLink(ctx, path.join(pciPath, 'physfn'), pciPath),
    ]);
    const virtualFunction = physfnPath !== undefined;
    const base = {
      present: true as const,
      address,
      path: pciPath,
      vendorId: vendorId ?? null,
      deviceId: deviceId ?? null,
      virtualFunction,
      physicalFunction: physfnPath ? path.basename(physfnPath) : null,
    };
    if (virtualFunction) {
      // Nothing more to learn: a VF's link registers read "unknown x0" whatever the PF's link is.
      return {
        ...base,
        link: sysfsLink ?? null,
        linkUnavailable: sysfsLink ? null : 'SR-IOV virtual function',
        upstream: [],
        payload: null,
        payloadUnavailable: 'SR-IOV virtual function',
      };
    }

    let link = sysfsLink;
    let linkUnavailable: string | null = null;
    let lspci: LspciDevice | undefined;
    let lspciArgv: string[] | undefined;
    let payloadUnavailable: string | null = null;
    if (!link) {
      // Kernels before 4.13 (and some captures) lack the attributes: lspci is the only way.
      ({ device: lspci, argv: lspciArgv } = await readLspci(ctx, address));
      if (!lspci) throw new FactCollectionError('not-found', `\`lspci -vv -s ${address}\` printed no device ${address}`);
      if (lspci.capabilitiesAccessDenied) {
        throw new FactCollectionError(
          'permission-denied',
          `\`lspci -vv -s ${address}\`: capabilities hidden (<access denied>)`,
          'run nicdoctor as root',
        );
      }
      link = lspciReading(address, lspci, lspciArgv);
      if (!link) linkUnavailable = `${address} has no PCI Express link registers (conventional PCI or an emulated device)`;
    } else {
      // The link came from sysfs; MaxPayload is only in config space, so lspci is a best effort.
      try {
        ({ device: lspci, argv: lspciArgv } = await readLspci(ctx, address));
        if (!lspci) payloadUnavailable = `lspci printed no device ${address}`;
        else if (lspci.capabilitiesAccessDenied) payloadUnavailable = 'lspci capabilities hidden (<access denied>): run nicdoctor as root';
      } catch (error) {
        if (!isFactFailure(error)) throw error;
        payloadUnavailable = error.message;
      }
    }

    const payload =
      lspci && lspciArgv && !lspci.capabilitiesAccessDenied && (lspci.maxPayloadBytes !== null || lspci.maxPayloadSupportedBytes !== null)
        ? {
            supportedBytes: lspci.maxPayloadSupportedBytes,
            configuredBytes: lspci.maxPayloadBytes,
            maxReadRequestBytes: lspci.maxReadRequestBytes,
            source: { kind: 'command' as const, argv: lspciArgv },
          }
        : null;
    if (!payload && !payloadUnavailable) payloadUnavailable = `lspci printed no DevCap/DevCtl for ${address}`;

    const upstream = await readUpstream(ctx, pciPath, link?.source.kind === 'command');
    return {
      ...base,
      link: link ?? null,
      linkUnavailable,
      upstream,
      payload,
      payloadUnavailable,
      aspm: lspci && !lspci.capabilitiesAccessDenied ? lspci.aspm : null,
    };
  },
});

/** The four sysfs attributes; undefined when the kernel exposes none of them. */
async function readSysfsLink(ctx: CollectContext, address: string, pciPath: string): Promise<PcieLinkReading | undefined> {
  const [speed, width, maxSpeed, maxWidth] = await Promise.all(LINK_ATTRIBUTES.map((name) => readAttribute(ctx, path.join(pciPath, name))));
  if (speed === undefined && width === undefined && maxSpeed === undefined && maxWidth === undefined) return undefined;
  return {
    address,
    speedGts: parseLinkSpeed(speed),
    width: parseLinkWidth(width),
    maxSpeedGts: parseLinkSpeed(maxSpeed),
    maxWidth: parseLinkWidth(maxWidth),
    speedMarker: null,
    widthMarker: null,
    source: { kind: 'file', path: path.join(pciPath, speed === undefined ? 'max_link_speed' : 'current_link_speed') },
  };
}

async function readLspci(ctx: CollectContext, address: string): Promise<{ device: LspciDevice | undefined; argv: string[] }> {
  const argv = ['lspci', '-vv', '-s', address];
  const result = await runTool(ctx, argv);
  return { device: findLspciDevice(parseLspci(result.stdout), address), argv };
}

function lspciReading(address: string, device: LspciDevice, argv: string[]): PcieLinkReading | undefined {
  if (!device.linkStatus && !device.linkCapability) return undefined;
  return {
    address,
    speedGts: device.linkStatus?.speedGts ?? null,
    width: device.linkStatus?.width ?? null,
    maxSpeedGts: device.linkCapability?.speedGts ?? null,
    maxWidth: device.linkCapability?.width ?? null,
    speedMarker: device.linkStatus?.speedMarker ?? null,
    widthMarker: device.linkStatus?.widthMarker ?? null,
    source: { kind: 'command', argv },
  };
}

/**
 * Walks the bridges on the device path (/sys/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/...),
 * nearest first, as the kernel does for "limited by ... at <BDF>". When the kernel has no link
 * attributes, lspci is tried for each bridge, as a best effort.
 */
async function readUpstream(ctx: CollectContext, pciPath: string, useLspci: boolean): Promise<PcieUpstreamPort[]> {
  const parts = pciPath.split('/');
  const bridges: Array<{ address: string; path: string }> = [];
  for (let index = parts.length - 2; index >= 0; index -= 1) {
    const part = parts[index]!;
    if (isPciAddress(part)) bridges.push({ address: part.toLowerCase(), path: parts.slice(0, index + 1).join('/') });
  }
  return Promise.all(
    bridges.map(async (bridge) => {
      let link = await readSysfsLink(ctx, bridge.address, bridge.path);
      if (!link && useLspci) {
        try {
          const { device, argv } = await readLspci(ctx, bridge.address);
          link = device && !device.capabilitiesAccessDenied ? lspciReading(bridge.address, device, argv) : undefined;
        } catch (error) {
          if (!isFactFailure(error)) throw error;
          ctx.log.debug({ bridge: bridge.address, err: error.message }, 'upstream bridge link not readable');
        }
      }
      return { address: bridge.address, path: bridge.path, link: link ?? null };
    }),
  );
}
