import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence } from '../src/report/schema.js';
import type { KernelPcieReport } from '../src/parsers/kernel-log.js';

const options = z.object({
  /** Share of the encoded PCIe rate a NIC moves as packet data (CAUSES.md: ≈ 0.89, TLP overhead). */
  efficiency: z.number().gt(0).lte(1).default(0.89),
  /** The slowest port each driver drives, for a line that names no interface with a known speed (Gb/s). */
  driverMinPortGbps: z.record(z.string(), z.number().positive()).default({
    ixgbe: 10,
    ixgbevf: 10,
    i40e: 10,
    iavf: 10,
    ice: 10,
    mlx4_core: 10,
    mlx4_en: 10,
    mlx5_core: 10,
    bnxt_en: 10,
    bnx2x: 10,
    qede: 10,
    sfc: 10,
    nfp: 10,
    be2net: 10,
    cxgb4: 10,
    igc: 2.5,
    atlantic: 2.5,
    igb: 1,
    e1000e: 1,
    tg3: 1,
    r8169: 1,
  }),
});

export default defineCheck({
  id: 'kernel-pcie',
  title: 'PCIe bandwidth the kernel logged for each NIC',
  description:
    'Reads the PCIe bandwidth lines drivers log at probe time (dmesg, or the journal\'s kernel messages): "X Gb/s available PCIe bandwidth, limited by <speed> x<width> link at <BDF> (capable of Y Gb/s ...)", ixgbe\'s "PCI Express bandwidth of N GT/s available", igb\'s "(PCIe:2.5Gb/s:Width x1)". The kernel names the limiting device, which may be a bridge above the NIC. Works on a capture that holds the log but no sysfs or lspci.',
  scope: 'host',
  requires: ['kernel.pcie'],
  options,
  symptoms: {
    'pcie-bandwidth-limited': symptom({
      severity: 'critical',
      data: z.object({
        driver: z.string(),
        address: z.string(),
        /** The selected interface at that address (or named on the line), if any. */
        interfaceName: z.string().nullable(),
        availableGbps: z.number(),
        ceilingGbps: z.number(),
        /** The port speed judged against: the interface's, or (portFromInterface false) the slowest port of the driver. */
        portGbps: z.number().nullable(),
        portFromInterface: z.boolean(),
        /** The link as the kernel printed it ("8.0 GT/s PCIe x8"), when it says no "limited by". */
        link: z.string().nullable(),
        limitedByLink: z.string().nullable(),
        limitedByAddress: z.string().nullable(),
        capableGbps: z.number().nullable(),
        capableLink: z.string().nullable(),
        limitingAddress: z.string(),
        /** What the driver says the card's ports need together (ixgbe), null when it does not say. */
        requiredGbps: z.number().nullable(),
        /**
         * Whether the ceiling carries the port: no (a fault), shared (one port, but not what the driver
         * says all its ports need together: a fault under load on every port), yes (a note), unknown
         * (no port speed: a note asking for it).
         */
        carriesPort: z.enum(['no', 'shared', 'yes', 'unknown']),
      }),
      phrases: {
        device: (d) => `${d.driver} ${d.address}${d.interfaceName ? ` (${d.interfaceName})` : ''}`,
        limitedNote: (d) =>
          d.limitedByLink
            ? `, limited by a ${d.limitedByLink} link at ${d.limitedByAddress}${d.capableGbps !== null ? ` (capable of ${d.capableGbps} Gb/s with ${d.capableLink})` : ''}`
            : d.link
              ? ` (${d.link})`
              : '',
        verdict: (d) =>
          d.carriesPort === 'no'
            ? `below the ${d.portGbps} Gb/s ${d.portFromInterface ? 'of the port' : `of the slowest ${d.driver} port`}: the slot, not the network, sets the ceiling`
            : d.carriesPort === 'shared'
              ? `enough for one port, but the driver says the card's ports need ${d.requiredGbps} Gb/s together: with traffic on every port, the slot, not the network, sets the ceiling`
              : d.carriesPort === 'yes'
                ? `enough for the ${d.portGbps} Gb/s port, though below what the card can do`
                : `below what the card can do${d.capableGbps !== null ? ` (${d.capableGbps} Gb/s)` : ''}; whether it caps the port depends on the port speed, which the capture does not show`,
        ask: (d) =>
          d.carriesPort === 'unknown'
            ? `Give the port speed to judge it: ethtool ${d.interfaceName ?? '<interface>'} (Speed:) or cat /sys/class/net/${d.interfaceName ?? '<interface>'}/speed. `
            : '',
      },
      message:
        '{device}: the kernel reports {availableGbps} Gb/s of PCIe bandwidth{limitedNote}: about {ceilingGbps} Gb/s of NIC traffic, {verdict}',
      fix: '{ask}Move the card to an electrically wider, CPU-attached slot or set that slot\'s width/generation in the BIOS, then check: lspci -vv -s {limitingAddress} | grep -E "LnkCap|LnkSta"',
    }),
  },
  run({ facts, interfaces, options: opts, report, source, notApplicable }) {
    const reports = facts['kernel.pcie'];
    if (reports.length === 0)
      return notApplicable(
        'the kernel log holds no PCIe bandwidth line for a NIC (drivers print it at probe time; the log may have rotated)',
      );
    const from = source('kernel.pcie');
    for (const entry of reports) {
      if (entry.availableGbps === null) continue;
      const iface = interfaces.find((candidate) => candidate.pciAddress === entry.address || candidate.name === entry.interface);
      const portGbps = iface?.speedMbps ? iface.speedMbps / 1000 : null;
      const classGbps = opts.driverMinPortGbps[entry.driver] ?? null;
      const ceilingGbps = Number((entry.availableGbps * opts.efficiency).toFixed(2));
      const judgedGbps = portGbps ?? classGbps;
      const belowPort = judgedGbps !== null && ceilingGbps < judgedGbps;
      // The driver's own verdict ("This is not sufficient for optimal performance"): what it needs
      // for every port of the card at line rate, against what the slot gives.
      const belowCard = entry.requiredGbps !== null && entry.availableGbps < entry.requiredGbps;
      // "limited by": the link trained below what the device can do. Whether that caps the port
      // depends on the port's speed: below it (or below the driver's slowest port) is a fault;
      // carried, a note; with no port speed from any source, a warning that asks for the speed
      // (rule pcie-link-downgraded, low confidence), never "cannot carry the port".
      if (!belowPort && !belowCard && !entry.limitedBy) continue;
      const carriesPort = belowPort ? 'no' : belowCard ? 'shared' : portGbps !== null ? 'yes' : 'unknown';
      const severity = belowPort ? 'critical' : carriesPort === 'shared' || carriesPort === 'unknown' ? 'warning' : 'info';
      const evidence: Evidence[] = [
        {
          label: `${entry.address} available PCIe bandwidth`,
          observed: entry.availableGbps,
          ...(entry.capableGbps !== null
            ? { expected: entry.capableGbps }
            : belowCard
              ? { expected: `≥ ${entry.requiredGbps}` }
              : judgedGbps !== null
                ? { expected: `≥ ${(judgedGbps / opts.efficiency).toFixed(1)}` }
                : {}),
          unit: 'Gb/s',
          ...(from ? { source: from } : {}),
        },
        { label: 'kernel log', observed: entry.line },
      ];
      report('pcie-bandwidth-limited', {
        subject: iface?.name ?? 'host',
        severity,
        evidence,
        data: {
          driver: entry.driver,
          address: entry.address,
          interfaceName: iface?.name ?? null,
          availableGbps: entry.availableGbps,
          ceilingGbps,
          portGbps: judgedGbps,
          portFromInterface: portGbps !== null,
          link: entry.link,
          limitedByLink: entry.limitedBy?.link ?? null,
          limitedByAddress: entry.limitedBy?.address ?? null,
          capableGbps: entry.capableGbps,
          capableLink: entry.capableLink,
          limitingAddress: entry.limitedBy?.address ?? entry.address,
          requiredGbps: entry.requiredGbps,
          carriesPort,
        },
      });
    }
    return undefined;
  },
});

export type { KernelPcieReport };
