import { z } from 'zod';
import type { PcieLinkReading } from '../src/collectors/pcie-link.js';
import { defineCheck } from '../src/engine/check.js';
import type { Evidence } from '../src/report/schema.js';
import {
  PCIE_TRANSACTION_EFFICIENCY,
  describeMinimumLink,
  integratedFunction,
  linkLabel,
  usableGbps,
} from '../src/domain/pcie.js';

const options = z.object({
  /** Share of the encoded PCIe rate left for NIC DMA after TLP/DLLP overhead (CAUSES.md cause 1). */
  transactionEfficiency: z.number().gt(0).lte(1).default(PCIE_TRANSACTION_EFFICIENCY),
  /** Report DevCtl MaxPayload below DevCap (cause 20): informational only. */
  reportMaxPayload: z.boolean().default(true),
});

const MOVE_CARD =
  'move the card to an electrically x8/x16 slot wired to the CPU (not a chipset slot; the board manual lists which slots are CPU-attached), set that slot\'s width/generation in the BIOS (e.g. Supermicro "IIO ... PCIe Port" Auto → x16) and reseat the card; verify with: lspci -vv -s {address} | grep -E "LnkCap|LnkSta"';

export default defineCheck({
  id: 'pcie-link',
  title: 'PCIe link carries the port speed',
  failureTitle: 'PCIe link too slow or narrower than it should be',
  description:
    'Reads the NIC\'s PCIe link (sysfs current/max_link_speed/width, else lspci LnkCap/LnkSta) and the links of the bridges above it. Usable bandwidth ≈ 0.89 x the kernel\'s encoded rate; below the port speed the NIC cannot reach line rate (critical). A link below its capability that still carries line rate, or a narrower upstream bridge, is a warning; DevCtl MaxPayload below DevCap is reported as info.',
  scope: 'interface',
  appliesTo: (iface) =>
    !iface.pciAddress ? `${iface.name} is not a PCI device (${iface.kind}): no PCIe link to examine` : iface.kind === 'paravirtual' ? `${iface.name} is a paravirtual NIC (${iface.driver ?? 'virtual device'}): its PCI function has no physical link to examine` : null,
  requires: ['pcie.link', 'net.device'],
  optionalFacts: ['interfaces'],
  options,
  symptoms: {
    'pcie-bandwidth-below-port': {
      severity: 'critical',
      message:
        '{portLabel} port on PCIe {ceilingLink}{limitedBy}: ceiling ≈ {ceilingGbps} Gb/s, below the {portGbps} Gb/s line rate (one port needs {minimumLink})',
      fix: 'The narrowest link is at {limitingAddress}: ' + MOVE_CARD,
    },
    'pcie-link-downgraded': {
      severity: 'warning',
      message:
        'PCIe link of {subject} ({address}) runs at {currentLink}, below its capability {maxLink}: {usableGbps} of {maxUsableGbps} Gb/s usable; {carries}',
      fix: 'A card faster than its slot (e.g. Gen4 in a Gen3 slot) is harmless while the link carries line rate; otherwise ' + MOVE_CARD,
    },
    'upstream-port-limits': {
      severity: 'warning',
      message:
        'The PCIe link at bridge {limitingAddress} above {subject} runs at {limitingLink} ({limitingUsableGbps} Gb/s usable), narrower than {subject}\'s own {currentLink} ({usableGbps} Gb/s)',
      fix: 'The bottleneck is upstream of the card (a chipset or PCIe switch uplink at {limitingAddress}): move the card to a slot wired directly to the CPU, or check the BIOS width/generation settings of the port at {limitingAddress}; verify with: lspci -vv -s {limitingAddress} | grep -E "LnkCap|LnkSta"',
    },
    'pcie-shared-link-below-ports': {
      severity: 'info',
      message:
        '{ports} ports ({portNames}) share the PCIe link {currentLink} of {address} ({ceilingGbps} Gb/s usable): below the {sumGbps} Gb/s they need when all run at line rate at once',
      fix: 'Expected for multi-port cards sized for one busy port; if all ports must run at line rate together, use a card with a wider/faster link ({minimumLink}) or spread the ports over two cards',
    },
    'aspm-enabled': {
      severity: 'info',
      message:
        '{subject} ({address}) has PCIe ASPM {aspm} enabled on its link: every exit from the low-power state costs microseconds, during which the NIC cannot write received packets to memory',
      fix: 'Turn ASPM off for this link: in the BIOS, or at runtime with echo 0 > /sys/bus/pci/devices/{address}/link/l1_aspm (kernel 5.5+), or for the whole host with pcie_aspm=off on the kernel command line',
    },
    'pcie-max-payload-small': {
      severity: 'info',
      message:
        '{subject} ({address}) uses PCIe MaxPayload {configuredBytes} bytes of the {supportedBytes} it supports (MaxReadReq {maxReadRequestBytes} bytes): slightly lower PCIe efficiency',
      fix: 'MaxPayload is set by firmware to the smallest value on the path; look for a PCIe MaxPayload setting in the BIOS (or boot with pci=pcie_bus_perf). Report only: this rarely limits a 10-40G NIC',
    },
  },
  run({ facts, optional, options: opts, subject, report, notApplicable, unknown, source }) {
    const device = facts['net.device'];
    const pcie = facts['pcie.link'];
    if (!pcie.present) return notApplicable(`${pcie.reason}: no PCIe link to examine`);
    if (pcie.virtualFunction) {
      return notApplicable(`${subject} (${pcie.address}) is an SR-IOV virtual function${pcie.physicalFunction ? ` of ${pcie.physicalFunction}` : ''}: a VF has no PCIe link of its own (its link registers read "unknown"); check the physical function`);
    }
    const integrated = integratedFunction(pcie.vendorId, pcie.deviceId);
    if (integrated) return notApplicable(`${subject} (${pcie.address}) is an ${integrated.name}: ${integrated.why}`);
    if (!pcie.link) return notApplicable(`${subject}: ${pcie.linkUnavailable ?? 'no PCIe link registers'}`);

    const link = pcie.link;
    const efficiency = opts.transactionEfficiency;
    const current = linkBandwidth(link, efficiency);
    if (current === null) {
      return unknown(
        `the PCIe link state of ${pcie.address} could not be read (speed ${link.speedGts ?? 'unknown'}, width x${link.width ?? '?'})`,
        `check with: lspci -vv -s ${pcie.address} | grep -E "LnkCap|LnkSta"`,
      );
    }
    // A missing capability half (an old capture) falls back to the current value: it cannot be lower.
    const capability = usableGbps(link.maxSpeedGts ?? link.speedGts!, link.maxWidth || link.width!, efficiency);

    // The narrowest link on the path limits the NIC, like the kernel's pcie_bandwidth_available().
    let limiting: { address: string; reading: PcieLinkReading; usable: number } | undefined;
    for (const bridge of pcie.upstream) {
      const bandwidth = bridge.link ? linkBandwidth(bridge.link, efficiency) : null;
      if (bridge.link && bandwidth !== null && bandwidth < (limiting?.usable ?? current)) limiting = { address: bridge.address, reading: bridge.link, usable: bandwidth };
    }
    const ceiling = limiting?.usable ?? current;
    const ceilingReading = limiting?.reading ?? link;
    const portGbps = device.speedMbps !== null ? device.speedMbps / 1000 : null;

    const linkEvidence: Evidence = {
      label: `PCIe link of ${pcie.address} (current)`,
      observed: `${link.speedGts} GT/s x${link.width}`,
      ...(link.maxSpeedGts !== null && link.maxWidth !== null ? { expected: `${link.maxSpeedGts} GT/s x${link.maxWidth}` } : {}),
      source: link.source,
    };
    const speedSource = source('net.device', '/speed');
    const portEvidence: Evidence[] =
      device.speedMbps !== null ? [{ label: 'port speed', observed: device.speedMbps, unit: 'Mb/s', ...(speedSource ? { source: speedSource } : {}) }] : [];
    const upstreamEvidence: Evidence[] = limiting
      ? [{ label: `PCIe link of bridge ${limiting.address}`, observed: `${limiting.reading.speedGts} GT/s x${limiting.reading.width}`, source: limiting.reading.source }]
      : [];
    const common = {
      address: pcie.address,
      currentGts: link.speedGts,
      currentWidth: link.width,
      maxGts: link.maxSpeedGts,
      maxWidth: link.maxWidth,
      currentLink: linkLabel(link.speedGts!, link.width!),
      usableGbps: round(current),
      ceilingGbps: round(ceiling),
      portGbps,
    };

    const belowPort = portGbps !== null && ceiling < portGbps;
    if (belowPort) {
      report('pcie-bandwidth-below-port', {
        evidence: [
          linkEvidence,
          ...upstreamEvidence,
          { label: 'usable PCIe bandwidth', observed: round(ceiling), expected: portGbps, unit: 'Gb/s' },
          ...portEvidence,
        ],
        data: {
          ...common,
          portLabel: formatPort(portGbps),
          ceilingLink: linkLabel(ceilingReading.speedGts!, ceilingReading.width!),
          limitedBy: limiting
            ? ` at bridge ${limiting.address}`
            : isBelow(link)
              ? ` of a ${linkLabel(link.maxSpeedGts ?? link.speedGts!, link.maxWidth || link.width!, false)} card`
              : '',
          limitingAddress: limiting?.address ?? pcie.address,
          minimumLink: describeMinimumLink(portGbps, efficiency),
        },
      });
    }

    // Below the port, the critical finding already names the capability; this is the milder case.
    if (isBelow(link) && !belowPort) {
      report('pcie-link-downgraded', {
        evidence: [linkEvidence, ...(capability !== null ? [{ label: 'usable PCIe bandwidth', observed: round(current), expected: round(capability), unit: 'Gb/s' }] : []), ...portEvidence],
        data: {
          ...common,
          maxLink: linkLabel(link.maxSpeedGts ?? link.speedGts!, link.maxWidth || link.width!),
          maxUsableGbps: capability !== null ? round(capability) : null,
          carries:
            portGbps === null
              ? 'the port speed is unknown (link down?), so whether it carries line rate cannot be told'
              : `it still carries the ${formatPort(portGbps)} port (ceiling ≈ ${round(ceiling)} Gb/s)`,
        },
      });
    }

    if (limiting) {
      report('upstream-port-limits', {
        evidence: [...upstreamEvidence, linkEvidence],
        data: {
          ...common,
          limitingAddress: limiting.address,
          limitingLink: linkLabel(limiting.reading.speedGts!, limiting.reading.width!),
          limitingUsableGbps: round(limiting.usable),
        },
      });
    }

    if (!belowPort && portGbps !== null && optional.interfaces.ok) {
      const siblings = sharingPorts(optional.interfaces.value, pcie.address);
      const sumGbps = siblings.reduce((sum, port) => sum + port.speedMbps / 1000, 0);
      if (siblings.length > 1 && sumGbps > ceiling) {
        report('pcie-shared-link-below-ports', {
          evidence: [linkEvidence, { label: 'line rate of the ports sharing the link', observed: sumGbps, expected: round(ceiling), unit: 'Gb/s' }],
          data: {
            ...common,
            ports: siblings.length,
            portNames: siblings.map((port) => port.name).join(', '),
            sumGbps,
            minimumLink: describeMinimumLink(sumGbps, efficiency),
          },
        });
      }
    }

    const payload = pcie.payload;
    if (opts.reportMaxPayload && payload && payload.configuredBytes !== null && payload.supportedBytes !== null && payload.configuredBytes < payload.supportedBytes) {
      report('pcie-max-payload-small', {
        evidence: [{ label: 'DevCtl MaxPayload', observed: payload.configuredBytes, expected: payload.supportedBytes, unit: 'bytes', source: payload.source }],
        data: {
          address: pcie.address,
          configuredBytes: payload.configuredBytes,
          supportedBytes: payload.supportedBytes,
          maxReadRequestBytes: payload.maxReadRequestBytes,
        },
      });
    }

    // A note by itself (most links idle in L1 harmlessly); with drops on the same port it is a cause (rule pcie-aspm-l1).
    if (pcie.aspm && pcie.aspm !== 'disabled') {
      report('aspm-enabled', {
        evidence: [{ label: 'LnkCtl ASPM', observed: `${pcie.aspm} Enabled`, expected: 'Disabled', source: { kind: 'command', argv: ['lspci', '-vv', '-s', pcie.address] } }],
        data: { address: pcie.address, aspm: pcie.aspm },
      });
    }
    return undefined;
  },
});

/** Usable Gb/s of a reading, or null when its speed or width is unknown (VF, link down). */
function linkBandwidth(reading: PcieLinkReading, efficiency: number): number | null {
  if (reading.speedGts === null || !reading.width) return null;
  return usableGbps(reading.speedGts, reading.width, efficiency);
}

/** Running below capability in speed or width (lspci's own "(downgraded)" agrees on new versions). */
function isBelow(link: PcieLinkReading): boolean {
  return (link.maxSpeedGts !== null && link.speedGts !== null && link.speedGts < link.maxSpeedGts) || (link.maxWidth !== null && link.width !== null && link.width < link.maxWidth);
}

/** Interfaces on other functions of the same card (same domain:bus:device), with a known speed. */
function sharingPorts(interfaces: ReadonlyArray<{ name: string; pciAddress: string | null; speedMbps: number | null; driver: string | null }>, address: string) {
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
