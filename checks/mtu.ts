import { z } from 'zod';
import { defineCheck, symptom } from '../src/engine/check.js';
import { formatGbps, tcpGoodputMbps } from '../src/domain/goodput.js';

const options = z.object({
  /** Links at or above this speed gain from jumbo frames (CAUSES.md cause 11). */
  fastLinkMbps: z.number().positive().default(10_000),
  jumboMtu: z.number().int().positive().default(9000),
  standardMtu: z.number().int().positive().default(1500),
});

export default defineCheck({
  id: 'mtu',
  title: 'MTU suits the link',
  failureTitle: 'MTU differs between a bond and its members',
  description:
    'Reads /sys/class/net/<if>/mtu. A standard MTU on a 10G+ link lowers the TCP goodput ceiling and costs CPU per Gb/s (info: jumbo frames must be configured end to end); bond members whose MTU differs from the bond are a warning.',
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
    'mtu-below-standard': symptom({
      severity: 'info',
      data: z.object({ mtu: z.number().int(), standardMtu: z.number().int() }),
      message:
        '{subject} uses MTU {mtu}, below the Ethernet standard {standardMtu} (normal for tunnels and some clouds; lowers goodput slightly)',
    }),
  },
  run({ facts, options: opts, subject, report, unknown, source }) {
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
