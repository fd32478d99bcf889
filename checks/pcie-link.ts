import { z } from 'zod';
import type { PcieLink, PcieLinkReading } from '../src/collectors/pcie-link.js';
import type { NetDevice } from '../src/collectors/net-device.js';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import type { Evidence, Source } from '../src/report/schema.js';
import { PCIE_TRANSACTION_EFFICIENCY, describeMinimumLink, integratedFunction, linkLabel, usableGbps } from '../src/domain/pcie.js';

const options = z.object({
  /** Share of the encoded PCIe rate left for NIC DMA after TLP/DLLP overhead (CAUSES.md cause 1). */
  transactionEfficiency: z.number().gt(0).lte(1).default(PCIE_TRANSACTION_EFFICIENCY),
  /** Report DevCtl MaxPayload below DevCap (cause 20): informational only. */
  reportMaxPayload: z.boolean().default(true),
});

type Options = z.infer<typeof options>;

const MOVE_CARD =
  'move the card to an electrically x8/x16 slot wired to the CPU (not a chipset slot; the board manual lists which slots are CPU-attached), set that slot\'s width/generation in the BIOS (e.g. Supermicro "IIO ... PCIe Port" Auto → x16) and reseat the card; verify with: lspci -vv -s {address} | grep -E "LnkCap|LnkSta"';

const gbps = z.number().nonnegative();
/** "0000:41:00.0" (sysfs; VMD domains have 5 digits) or "41:00.0" (an lspci capture). */
const pciAddress = z.string().regex(/^([0-9a-f]{4,8}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i);
/** A link as messages name it: "Gen3 x8 (8 GT/s)", from the numbers next to it. */
const linkName = z.string().min(1);

/** The NIC's own link, in every link finding. */
const linkData = z.object({
  address: pciAddress,
  currentGts: z.number().positive(),
  currentWidth: z.number().int().positive(),
  /** The capability (LnkCap); null in an old capture that lacks it. */
  maxGts: z.number().positive().nullable(),
  maxWidth: z.number().int().nonnegative().nullable(),
  currentLink: linkName,
  usableGbps: gbps,
  /** The narrowest link on the path to the CPU (this one, or a bridge above it). */
  ceilingGbps: gbps,
  /** The port speed; null when the link is down. */
  portGbps: gbps.nullable(),
});

const belowPortData = linkData.extend({
  portGbps: gbps,
  ceilingLink: linkName,
  /** Where the narrowest link is: at a bridge, a card trained below its capability, or the link itself. */
  limitedAt: z.enum(['bridge', 'card', 'link']),
  limitingAddress: pciAddress,
  /** The narrowest links that would carry the port: "Gen2 x4 or Gen3 x2". */
  minimumLink: linkName,
});

const downgradedData = linkData.extend({
  maxLink: linkName,
  maxUsableGbps: gbps.nullable(),
});

const upstreamData = linkData.extend({
  limitingAddress: pciAddress,
  limitingLink: linkName,
  limitingUsableGbps: gbps,
});

const sharedData = linkData.extend({
  ports: z.number().int().min(2),
  /** The interfaces on the card's functions, comma-separated. */
  portNames: z.string().min(1),
  sumGbps: gbps,
  minimumLink: linkName,
});

const payloadData = z.object({
  address: pciAddress,
  configuredBytes: z.number().int().positive(),
  supportedBytes: z.number().int().positive(),
  maxReadRequestBytes: z.number().int().positive().nullable(),
});

const aspmData = z.object({ address: pciAddress, aspm: z.string().regex(/^(L0s|L1|L0s ?L1)$/) });

export default defineCheck({
  id: 'pcie-link',
  title: 'PCIe link width and speed',
  description:
    "Reads the NIC's PCIe link (sysfs current/max_link_speed/width, else lspci LnkCap/LnkSta) and the links of the bridges above it. Usable bandwidth ≈ 0.89 x the kernel's encoded rate; below the port speed the NIC cannot reach line rate (critical). A link below its capability that still carries line rate, or a narrower upstream bridge, is a warning; DevCtl MaxPayload below DevCap is reported as info.",
  scope: 'interface',
  // Not applicable only when the kind says so: a NIC whose PCI address the capture lacks is unknown.
  appliesTo: (iface) =>
    isSoftware(iface)
      ? `${iface.name} is not a PCI device (${iface.kind}): no PCIe link to examine`
      : iface.kind === 'paravirtual'
        ? `${iface.name} is a paravirtual NIC (${iface.driver ?? 'virtual device'}): its PCI function has no physical link to examine`
        : null,
  requires: ['pcie.link', 'net.device'],
  optionalFacts: ['interfaces'],
  options,
  symptoms: {
    'pcie-bandwidth-below-port': symptom({
      severity: 'critical',
      data: belowPortData,
      phrases: {
        portLabel: (d) => formatPort(d.portGbps),
        limitedBy: (d) =>
          d.limitedAt === 'bridge'
            ? ` at bridge ${d.limitingAddress}`
            : d.limitedAt === 'card'
              ? ` of a ${linkLabel(d.maxGts ?? d.currentGts, d.maxWidth || d.currentWidth, false)} card`
              : '',
      },
      message:
        '{portLabel} port on PCIe {ceilingLink}{limitedBy}: ceiling ≈ {ceilingGbps} Gb/s, below the {portGbps} Gb/s line rate (one port needs {minimumLink})',
      fix: 'The narrowest link is at {limitingAddress}: ' + MOVE_CARD,
    }),
    'pcie-link-downgraded': symptom({
      severity: 'warning',
      data: downgradedData,
      phrases: {
        carries: (d) =>
          d.portGbps === null
            ? 'the port speed is unknown (link down?), so whether it carries line rate cannot be told'
            : `it still carries the ${formatPort(d.portGbps)} port (ceiling ≈ ${d.ceilingGbps} Gb/s)`,
      },
      message:
        'PCIe link of {subject} ({address}) runs at {currentLink}, below its capability {maxLink}: {usableGbps} of {maxUsableGbps} Gb/s usable; {carries}',
      fix: 'A card faster than its slot (e.g. Gen4 in a Gen3 slot) is harmless while the link carries line rate; otherwise ' + MOVE_CARD,
    }),
    'upstream-port-limits': symptom({
      severity: 'warning',
      data: upstreamData,
      message:
        "The PCIe link at bridge {limitingAddress} above {subject} runs at {limitingLink} ({limitingUsableGbps} Gb/s usable), narrower than {subject}'s own {currentLink} ({usableGbps} Gb/s)",
      fix: 'The bottleneck is upstream of the card (a chipset or PCIe switch uplink at {limitingAddress}): move the card to a slot wired directly to the CPU, or check the BIOS width/generation settings of the port at {limitingAddress}; verify with: lspci -vv -s {limitingAddress} | grep -E "LnkCap|LnkSta"',
    }),
    'pcie-shared-link-below-ports': symptom({
      severity: 'info',
      data: sharedData,
      message:
        '{ports} ports ({portNames}) share the PCIe link {currentLink} of {address} ({ceilingGbps} Gb/s usable): below the {sumGbps} Gb/s they need when all run at line rate at once',
      fix: 'Expected for multi-port cards sized for one busy port; if all ports must run at line rate together, use a card with a wider/faster link ({minimumLink}) or spread the ports over two cards',
    }),
    'aspm-enabled': symptom({
      severity: 'info',
      data: aspmData,
      message:
        '{subject} ({address}) has PCIe ASPM {aspm} enabled on its link: every exit from the low-power state costs microseconds, during which the NIC cannot write received packets to memory',
      fix: 'Turn ASPM off for this link: in the BIOS, or at runtime with echo 0 > /sys/bus/pci/devices/{address}/link/l1_aspm (kernel 5.5+), or for the whole host with pcie_aspm=off on the kernel command line',
    }),
    'pcie-max-payload-small': symptom({
      severity: 'info',
      data: payloadData,
      phrases: { maxReadRequest: (d) => (d.maxReadRequestBytes === null ? 'unknown' : String(d.maxReadRequestBytes)) },
      message:
        '{subject} ({address}) uses PCIe MaxPayload {configuredBytes} bytes of the {supportedBytes} it supports (MaxReadReq {maxReadRequest} bytes): slightly lower PCIe efficiency',
      fix: 'MaxPayload is set by firmware to the smallest value on the path; look for a PCIe MaxPayload setting in the BIOS (or boot with pci=pcie_bus_perf). Report only: this rarely limits a 10-40G NIC',
    }),
  },
  run({ facts, optional, options: opts, subject, report, notApplicable, unknown, source }) {
    const pcie = facts['pcie.link'];
    const nic = facts['net.device'];
    if (!pcie.present && !nic.pciAddress && !isSoftware(nic) && nic.kind !== 'paravirtual') {
      return unknown(
        `the capture does not give the PCI address of ${subject} (a ${nic.kind} interface), so its PCIe link cannot be read`,
        `ethtool -i ${subject} (bus-info), then lspci -vv -s <bus-info>`,
      );
    }
    const examined = examinedLink(pcie, subject);
    if (typeof examined === 'string') return notApplicable(examined);
    const { address, link } = examined;
    const path = measurePath(examined, opts.transactionEfficiency);
    if (!path) {
      return unknown(
        `the PCIe link state of ${address} could not be read (speed ${link.speedGts ?? 'unknown'}, width x${link.width ?? '?'})`,
        `check with: lspci -vv -s ${address} | grep -E "LnkCap|LnkSta"`,
      );
    }
    const device = facts['net.device'];
    const portGbps = device.speedMbps !== null ? device.speedMbps / 1000 : null;
    const evidence = pathEvidence(examined, path, device, source('net.device', '/speed'));
    const common = linkFields(examined, path, portGbps);

    const belowPort = portGbps !== null && path.ceiling < portGbps;
    if (belowPort) report('pcie-bandwidth-below-port', belowPortFinding(examined, path, { ...common, portGbps }, evidence, opts));
    // Below the port, the critical finding already names the capability; this is the milder case.
    if (!belowPort && isBelow(link)) report('pcie-link-downgraded', downgradedFinding(link, path, common, evidence));
    if (path.limiting) report('upstream-port-limits', upstreamFinding(path.limiting, common, evidence));
    if (!belowPort && portGbps !== null && optional.interfaces.ok) {
      const shared = sharedLinkFinding(optional.interfaces.value, path, common, evidence, opts);
      if (shared) report('pcie-shared-link-below-ports', shared);
    }
    const payload = opts.reportMaxPayload ? maxPayloadFinding(examined) : null;
    if (payload) report('pcie-max-payload-small', payload);
    const aspm = aspmFinding(examined);
    if (aspm) report('aspm-enabled', aspm);
    return undefined;
  },
});

// The steps of run(), in order.

type Present = Extract<PcieLink, { present: true }>;
/** A function with a physical PCIe link of its own to judge. */
type Examined = Present & { link: PcieLinkReading };

/** The function and its link, or why there is no link of its own to judge. */
function examinedLink(pcie: PcieLink, subject: string): Examined | string {
  if (!pcie.present) return `${pcie.reason}: no PCIe link to examine`;
  if (pcie.virtualFunction) {
    return `${subject} (${pcie.address}) is an SR-IOV virtual function${pcie.physicalFunction ? ` of ${pcie.physicalFunction}` : ''}: a VF has no PCIe link of its own (its link registers read "unknown"); check the physical function`;
  }
  const integrated = integratedFunction(pcie.vendorId, pcie.deviceId);
  if (integrated) return `${subject} (${pcie.address}) is an ${integrated.name}: ${integrated.why}`;
  if (!pcie.link) return `${subject}: ${pcie.linkUnavailable ?? 'no PCIe link registers'}`;
  return { ...pcie, link: pcie.link };
}

interface Limiting {
  address: string;
  reading: PcieLinkReading;
  usable: number;
}

interface LinkPath {
  /** Usable Gb/s of the NIC's link now, and at its capability. */
  current: number;
  capability: number | null;
  /** The narrowest bridge above the NIC, when it is narrower than the NIC's own link. */
  limiting: Limiting | undefined;
  ceiling: number;
  ceilingReading: PcieLinkReading;
}

/** The NIC's link and the narrowest link above it; null when the NIC's own state is unreadable. */
function measurePath(pcie: Examined, efficiency: number): LinkPath | null {
  const { link } = pcie;
  const current = linkBandwidth(link, efficiency);
  if (current === null) return null;
  // A missing capability half (an old capture) falls back to the current value: it cannot be lower.
  const capability = usableGbps(link.maxSpeedGts ?? link.speedGts!, link.maxWidth || link.width!, efficiency);
  // The narrowest link on the path limits the NIC, like the kernel's pcie_bandwidth_available().
  let limiting: Limiting | undefined;
  for (const bridge of pcie.upstream) {
    const bandwidth = bridge.link ? linkBandwidth(bridge.link, efficiency) : null;
    if (bridge.link && bandwidth !== null && bandwidth < (limiting?.usable ?? current))
      limiting = { address: bridge.address, reading: bridge.link, usable: bandwidth };
  }
  return { current, capability, limiting, ceiling: limiting?.usable ?? current, ceilingReading: limiting?.reading ?? link };
}

interface PathEvidence {
  link: Evidence;
  port: Evidence[];
  upstream: Evidence[];
}

function pathEvidence(pcie: Examined, path: LinkPath, device: NetDevice, speedSource: Source | undefined): PathEvidence {
  const { link } = pcie;
  const { limiting } = path;
  return {
    link: {
      label: `PCIe link of ${pcie.address} (current)`,
      observed: `${link.speedGts} GT/s x${link.width}`,
      ...(link.maxSpeedGts !== null && link.maxWidth !== null ? { expected: `${link.maxSpeedGts} GT/s x${link.maxWidth}` } : {}),
      source: link.source,
    },
    port:
      device.speedMbps !== null
        ? [{ label: 'port speed', observed: device.speedMbps, unit: 'Mb/s', ...(speedSource ? { source: speedSource } : {}) }]
        : [],
    upstream: limiting
      ? [
          {
            label: `PCIe link of bridge ${limiting.address}`,
            observed: `${limiting.reading.speedGts} GT/s x${limiting.reading.width}`,
            source: limiting.reading.source,
          },
        ]
      : [],
  };
}

function linkFields(pcie: Examined, path: LinkPath, portGbps: number | null): z.input<typeof linkData> {
  const { link } = pcie;
  return {
    address: pcie.address,
    currentGts: link.speedGts!,
    currentWidth: link.width!,
    maxGts: link.maxSpeedGts,
    maxWidth: link.maxWidth,
    currentLink: linkLabel(link.speedGts!, link.width!),
    usableGbps: round(path.current),
    ceilingGbps: round(path.ceiling),
    portGbps,
  };
}

function belowPortFinding(
  pcie: Examined,
  path: LinkPath,
  common: z.input<typeof linkData> & { portGbps: number },
  evidence: PathEvidence,
  opts: Options,
) {
  const { ceilingReading, limiting } = path;
  return {
    evidence: [
      evidence.link,
      ...evidence.upstream,
      { label: 'usable PCIe bandwidth', observed: round(path.ceiling), expected: common.portGbps, unit: 'Gb/s' },
      ...evidence.port,
    ],
    data: {
      ...common,
      ceilingLink: linkLabel(ceilingReading.speedGts!, ceilingReading.width!),
      limitedAt: limiting ? ('bridge' as const) : isBelow(pcie.link) ? ('card' as const) : ('link' as const),
      limitingAddress: limiting?.address ?? pcie.address,
      minimumLink: describeMinimumLink(common.portGbps, opts.transactionEfficiency),
    },
  };
}

function downgradedFinding(link: PcieLinkReading, path: LinkPath, common: z.input<typeof linkData>, evidence: PathEvidence) {
  const { capability } = path;
  return {
    evidence: [
      evidence.link,
      ...(capability !== null
        ? [{ label: 'usable PCIe bandwidth', observed: round(path.current), expected: round(capability), unit: 'Gb/s' }]
        : []),
      ...evidence.port,
    ],
    data: {
      ...common,
      maxLink: linkLabel(link.maxSpeedGts ?? link.speedGts!, link.maxWidth || link.width!),
      maxUsableGbps: capability !== null ? round(capability) : null,
    },
  };
}

function upstreamFinding(limiting: Limiting, common: z.input<typeof linkData>, evidence: PathEvidence) {
  return {
    evidence: [...evidence.upstream, evidence.link],
    data: {
      ...common,
      limitingAddress: limiting.address,
      limitingLink: linkLabel(limiting.reading.speedGts!, limiting.reading.width!),
      limitingUsableGbps: round(limiting.usable),
    },
  };
}

/** Several ports of one card whose line rates together exceed the link they share; null otherwise. */
function sharedLinkFinding(
  interfaces: Parameters<typeof sharingPorts>[0],
  path: LinkPath,
  common: z.input<typeof linkData>,
  evidence: PathEvidence,
  opts: Options,
) {
  const siblings = sharingPorts(interfaces, common.address);
  const sumGbps = siblings.reduce((sum, port) => sum + port.speedMbps / 1000, 0);
  if (siblings.length <= 1 || sumGbps <= path.ceiling) return null;
  return {
    evidence: [
      evidence.link,
      { label: 'line rate of the ports sharing the link', observed: sumGbps, expected: round(path.ceiling), unit: 'Gb/s' },
    ],
    data: {
      ...common,
      ports: siblings.length,
      portNames: siblings.map((port) => port.name).join(', '),
      sumGbps,
      minimumLink: describeMinimumLink(sumGbps, opts.transactionEfficiency),
    },
  };
}

/** DevCtl MaxPayload below DevCap (cause 20); null when it is at the maximum or unknown. */
function maxPayloadFinding(pcie: Examined) {
  const payload = pcie.payload;
  if (!payload || payload.configuredBytes === null || payload.supportedBytes === null || payload.configuredBytes >= payload.supportedBytes)
    return null;
  return {
    evidence: [
      {
        label: 'DevCtl MaxPayload',
        observed: payload.configuredBytes,
        expected: payload.supportedBytes,
        unit: 'bytes',
        source: payload.source,
      },
    ],
    data: {
      address: pcie.address,
      configuredBytes: payload.configuredBytes,
      supportedBytes: payload.supportedBytes,
      maxReadRequestBytes: payload.maxReadRequestBytes,
    },
  };
}

/** A note by itself (most links idle in L1 harmlessly); with drops on the same port it is a cause (rule pcie-aspm-l1). */
function aspmFinding(pcie: Examined) {
  if (!pcie.aspm || pcie.aspm === 'disabled') return null;
  return {
    evidence: [
      {
        label: 'LnkCtl ASPM',
        observed: `${pcie.aspm} Enabled`,
        expected: 'Disabled',
        source: { kind: 'command' as const, argv: ['lspci', '-vv', '-s', pcie.address] },
      },
    ],
    data: { address: pcie.address, aspm: pcie.aspm },
  };
}

/** Usable Gb/s of a reading, or null when its speed or width is unknown (VF, link down). */
function linkBandwidth(reading: PcieLinkReading, efficiency: number): number | null {
  if (reading.speedGts === null || !reading.width) return null;
  return usableGbps(reading.speedGts, reading.width, efficiency);
}

/** Running below capability in speed or width (lspci's own "(downgraded)" agrees on new versions). */
function isBelow(link: PcieLinkReading): boolean {
  return (
    (link.maxSpeedGts !== null && link.speedGts !== null && link.speedGts < link.maxSpeedGts) ||
    (link.maxWidth !== null && link.width !== null && link.width < link.maxWidth)
  );
}

/** Interfaces on other functions of the same card (same domain:bus:device), with a known speed. */
function sharingPorts(
  interfaces: ReadonlyArray<{ name: string; pciAddress: string | null; speedMbps: number | null; driver: string | null }>,
  address: string,
) {
  const slot = address.replace(/\.[0-7]$/, '');
  return interfaces.filter(
    (candidate): candidate is { name: string; pciAddress: string; speedMbps: number; driver: string | null } =>
      candidate.pciAddress !== null &&
      candidate.pciAddress.replace(/\.[0-7]$/, '') === slot &&
      candidate.speedMbps !== null &&
      // VF netdevs (ixgbevf, iavf, ...) report the PF's speed but add no traffic of their own.
      !/vf$/.test(candidate.driver ?? ''),
  );
}

function formatPort(gbps: number): string {
  return `${Number.isInteger(gbps) ? gbps : gbps.toFixed(1)}G`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
