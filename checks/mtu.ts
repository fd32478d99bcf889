import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { formatGbps, tcpGoodputMbps } from '../src/domain/goodput.js';
import { tunnelOf } from '../src/domain/tunnels.js';
import type { InterfaceSummary } from '../src/report/schema.js';

/** Devices that put frames on a wire (or a guest's virtual one): the underlay an overlay rides on. */
const UNDERLAY_KINDS: ReadonlySet<InterfaceSummary['kind']> = new Set(['physical', 'paravirtual', 'bond', 'vlan']);

const options = z.object({
  /** Links at or above this speed gain from jumbo frames (CAUSES.md cause 11). */
  fastLinkMbps: z.number().positive().default(10_000),
  jumboMtu: z.number().int().positive().default(9000),
  standardMtu: z.number().int().positive().default(1500),
});

export default defineCheck({
  id: 'mtu',
  title: 'MTU sizes',
  description:
    'Reads /sys/class/net/<if>/mtu. A standard MTU on a 10G+ link lowers the TCP goodput ceiling and costs CPU per Gb/s (info: jumbo frames must be configured end to end); bond members whose MTU differs from the bond are a warning. Overlays (VXLAN, Geneve, GRE, flannel, OVS tunnel ports) and guest devices (tap, vnet) are judged by their encapsulation overhead against the largest underlay MTU.',
  scope: 'interface',
  requires: ['net.device', 'interfaces'],
  options,
  symptoms: {
    'standard-mtu-fast-link': symptom({
      severity: 'info',
      data: z.object({ mtu: z.number().int(), linkGbps: z.number(), jumboMtu: z.number().int(), probeSize: z.number().int() }),
      phrases: {
        /** The TCP goodput ceilings at this MTU and with jumbo frames ("9.41 Gb/s"). */
        ceiling: (d) => formatGbps(tcpGoodputMbps(d.linkGbps * 1000, d.mtu)),
        jumboCeiling: (d) => formatGbps(tcpGoodputMbps(d.linkGbps * 1000, d.jumboMtu)),
      },
      message:
        '{subject} uses MTU {mtu} on a {linkGbps} Gb/s link: TCP goodput ceiling {ceiling} ({jumboCeiling} with MTU {jumboMtu}); more packets per second cost more CPU',
      fix: 'Jumbo frames help weak CPUs but must match end to end (host, switch, peer): ip link set dev {subject} mtu {jumboMtu}, then check the path with ping -M do -s {probeSize} <peer>; set net.ipv4.tcp_mtu_probing=1',
    }),
    'bond-member-mtu-mismatch': symptom({
      severity: 'warning',
      data: z.object({ mtu: z.number().int(), master: z.string(), masterMtu: z.number().int() }),
      message: '{subject} is a member of {master} with MTU {mtu}, but {master} has MTU {masterMtu}',
      fix: 'Set the MTU on the bond, not on its members (ip link set dev {master} mtu {masterMtu}); the bond propagates it',
    }),
    'overlay-mtu-exceeds-underlay': symptom({
      severity: 'warning',
      data: z.object({
        mtu: z.number().int(),
        /** vxlan, geneve, gretap, ipip, wireguard, ... */
        tunnel: z.string(),
        overheadBytes: z.number().int().nonnegative(),
        /** The largest MTU of the host's wire-facing interfaces, and which one it is. */
        underlayMtu: z.number().int(),
        underlay: z.string(),
        fittingMtu: z.number().int(),
      }),
      phrases: {
        overhead: (d) => `${d.tunnel} adds ${d.overheadBytes} bytes`,
      },
      message:
        '{subject} ({tunnel}) uses MTU {mtu}, but {overhead} and the largest underlay MTU is {underlayMtu} ({underlay}): full-size packets are fragmented or dropped on the way out',
      fix: 'Lower the MTU of {subject} to {fittingMtu} (ip link set dev {subject} mtu {fittingMtu}, and in the CNI or hypervisor configuration), or raise the MTU of {underlay} and the path to at least {mtu} plus {overheadBytes}',
    }),
    'mtu-below-standard': symptom({
      severity: 'info',
      data: z.object({ mtu: z.number().int(), standardMtu: z.number().int() }),
      message:
        '{subject} uses MTU {mtu}, below the Ethernet standard {standardMtu} (normal for tunnels and some clouds; lowers goodput slightly)',
    }),
  },
  run({ facts, options: opts, subject, report, unknown, notApplicable, source }) {
    const device = facts['net.device'];
    if (device.mtu === null) return unknown(`/sys/class/net/${subject}/mtu could not be read`);
    const mtuSource = source('net.device', '/mtu');
    const mtuEvidence = { label: 'MTU', observed: device.mtu, unit: 'bytes', ...(mtuSource ? { source: mtuSource } : {}) };

    if (device.master) {
      const master = facts.interfaces.find((candidate) => candidate.name === device.master);
      if (master?.kind === 'bond' && master.mtu !== null && master.mtu !== device.mtu) {
        report('bond-member-mtu-mismatch', {
          evidence: [{ ...mtuEvidence, expected: master.mtu }],
          data: { mtu: device.mtu, master: master.name, masterMtu: master.mtu },
        });
      }
    }

    // An overlay or a guest device is judged by what it adds on its underlay, not by the standard.
    const tunnel = tunnelOf(device.name, device.softwareType);
    if (tunnel?.overheadBytes === null) return notApplicable(`${subject} is ${tunnel.unjudged}`);
    if (tunnel) {
      const underlay = largestUnderlay(facts.interfaces);
      const overhead = tunnel.overheadBytes;
      if (underlay && device.mtu + overhead > underlay.mtu) {
        report('overlay-mtu-exceeds-underlay', {
          evidence: [
            { ...mtuEvidence, expected: `≤ ${underlay.mtu - overhead}` },
            { label: `${underlay.name} MTU (underlay)`, observed: underlay.mtu, unit: 'bytes' },
          ],
          data: {
            mtu: device.mtu,
            tunnel: tunnel.type,
            overheadBytes: overhead,
            underlayMtu: underlay.mtu,
            underlay: underlay.name,
            fittingMtu: underlay.mtu - overhead,
          },
        });
      }
      return undefined;
    }

    if (device.mtu < opts.standardMtu && device.linkType === 1) {
      report('mtu-below-standard', {
        evidence: [{ ...mtuEvidence, expected: opts.standardMtu }],
        data: { mtu: device.mtu, standardMtu: opts.standardMtu },
      });
    } else if (device.mtu < opts.jumboMtu && device.speedMbps !== null && device.speedMbps >= opts.fastLinkMbps) {
      report('standard-mtu-fast-link', {
        evidence: [
          { ...mtuEvidence, expected: opts.jumboMtu },
          {
            label: 'link speed',
            observed: device.speedMbps,
            unit: 'Mb/s',
            source: { kind: 'file', path: `/sys/class/net/${subject}/speed` },
          },
        ],
        data: {
          mtu: device.mtu,
          linkGbps: device.speedMbps / 1000,
          jumboMtu: opts.jumboMtu,
          probeSize: opts.jumboMtu - 28,
        },
      });
    }
    return undefined;
  },
});

/** The wire-facing interface with the largest MTU: the most an overlay's packets can grow to. */
function largestUnderlay(interfaces: ReadonlyArray<Pick<InterfaceSummary, 'name' | 'kind' | 'mtu'>>): { name: string; mtu: number } | null {
  let best: { name: string; mtu: number } | null = null;
  for (const iface of interfaces) {
    if (!UNDERLAY_KINDS.has(iface.kind) || iface.mtu === null) continue;
    if (!best || iface.mtu > best.mtu) best = { name: iface.name, mtu: iface.mtu };
  }
  return best;
}
