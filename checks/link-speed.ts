import { z } from 'zod';
import { defineCheck, symptom, type PhraseContext } from '../src/contracts/check.js';
import { isSoftware } from '../src/domain/interface-kinds.js';
import { bestLinkMode, parseLinkMode, type LinkMode } from '../src/domain/link-modes.js';
import type { Evidence } from '../src/report/schema.js';

const options = z.object({
  /** A link at or below this fraction of its best mode is critical (1G on a 10G NIC). */
  criticalRatio: z.number().positive().max(1).default(0.1),
  /** carrier_changes at or above this is flapping; it counts down and up, so 10 = 5 flaps. */
  carrierChangesThreshold: z.number().int().positive().default(10),
  /**
   * Speeds outside the IEEE standards that only link with the same vendor's switch (Mellanox's
   * 56GbE): a port that does not advertise them is configured as expected, not restricted.
   */
  vendorOnlySpeedsMbps: z.array(z.number().positive()).default([56000]),
});

// Software interfaces report a nominal speed (veth says 10000Mb/s) and no modes: nothing to compare.
const SOFTWARE_KINDS = new Set(['virtual', 'bridge', 'vlan', 'other']);

const belowCapability = z.object({
  negotiatedMbps: z.number(),
  bestMbps: z.number(),
  /** The fastest mode the NIC supports and advertises ("10000baseT/Full"). */
  bestMode: z.string(),
  /** The driver shows what the link partner advertises. */
  partnerShown: z.boolean(),
  partnerBestMode: z.string().nullable(),
  partnerBestMbps: z.number().nullable(),
  /** The fastest mode both ends advertise. */
  commonBestMode: z.string().nullable(),
  commonBestMbps: z.number().nullable(),
  /** ethtool -i, when it could be read (null: not captured). */
  driver: z.string().nullable(),
  driverVersion: z.string().nullable(),
  firmwareVersion: z.string().nullable(),
  driverInfo: z.boolean(),
});
type BelowCapability = z.output<typeof belowCapability>;

export default defineCheck({
  id: 'link-speed',
  title: 'Link state, speed and duplex',
  description:
    'Compares the speed and duplex negotiated (`ethtool <if>`) with the fastest mode that the NIC both supports and advertises and, when shown, the fastest mode the link partner advertises too; flags a link that is down while the interface is up, and carrier changes (/sys/class/net/<if>/carrier_changes) that show a flapping link.',
  scope: 'interface',
  appliesTo: (iface) =>
    iface.kind !== 'bond' && isSoftware(iface)
      ? `${iface.name} is a ${iface.kind} interface: its speed is nominal (no link modes to compare); the physical NICs below it are checked`
      : null,
  requires: ['ethtool.settings', 'net.device'],
  optionalFacts: ['ethtool.driver'],
  options,
  symptoms: {
    'below-capability': symptom({
      severity: 'warning',
      data: belowCapability,
      phrases: {
        limit: (d) => explainLimit(d).limit,
        remedy: (d, finding) => explainLimit(d, finding).remedy,
        firmware: (d, finding) =>
          d.driverInfo
            ? `${[d.driver, d.driverVersion].filter(Boolean).join(' ')}, firmware ${d.firmwareVersion ?? 'not reported'}`
            : `see ethtool -i ${finding.subject}`,
      },
      message: '{subject} negotiated {negotiatedMbps} Mb/s, but the NIC supports and advertises {bestMode} ({bestMbps} Mb/s): {limit}',
      fix: '{remedy}; check the cable (all four pairs for BASE-T) or the optic and its rating, and the switch port configuration; keep autonegotiation on at both ends (ethtool -s {subject} autoneg on) or force the same mode on both; update the NIC firmware ({firmware}) if the module is not recognised',
    }),
    'advertises-below-supported': symptom({
      severity: 'warning',
      data: z.object({
        /** The fastest mode the NIC supports, and the fastest it advertises. */
        supportedBestMode: z.string(),
        supportedBestMbps: z.number(),
        advertisedBestMode: z.string(),
        advertisedBestMbps: z.number(),
        negotiatedMbps: z.number().nullable(),
        /** ethtool "Auto-negotiation": null when not printed. */
        autoneg: z.boolean().nullable(),
        /** The link partner's advertisement offers the faster mode (null: not shown). */
        partnerOffersFaster: z.boolean().nullable(),
      }),
      phrases: {
        how: (d) =>
          d.autoneg === false
            ? 'autonegotiation is off, so the port stays at the forced speed'
            : 'the advertisement was restricted (ethtool -s advertise, a driver or firmware default)',
        negotiatedText: (d) => (d.negotiatedMbps === null ? '' : ` and runs at ${d.negotiatedMbps} Mb/s`),
      },
      message:
        '{subject} supports {supportedBestMode} ({supportedBestMbps} Mb/s) but advertises at most {advertisedBestMode} ({advertisedBestMbps} Mb/s){negotiatedText}: {how}',
      fix: 'Advertise every supported mode and renegotiate: ethtool -s {subject} autoneg on speed {supportedBestMbps} (or ethtool -s {subject} advertise with the supported modes), and make sure the switch port, cable or optic are rated for {supportedBestMode}',
    }),
    'half-duplex': symptom({
      severity: 'critical',
      data: z.object({ negotiatedMbps: z.number().nullable(), duplex: z.enum(['half', 'full']) }),
      message:
        '{subject} runs at half duplex ({negotiatedMbps} Mb/s): collisions and a throughput far below line rate, usually a duplex mismatch',
      fix: 'Use autonegotiation at both ends (ethtool -s {subject} autoneg on, and on the switch port); a port forced to a speed on one side and autonegotiating on the other falls back to half duplex',
    }),
    'no-carrier': symptom({
      severity: 'warning',
      data: z.object({
        operstate: z.string().nullable(),
        /** The fastest mode the NIC supports and advertises, null when it reports none. */
        bestLinkMode: z.string().nullable(),
        bestMbps: z.number().nullable(),
        /** IFF_UP from sysfs flags or `ip link`; null when neither was captured. */
        adminUp: z.boolean().nullable(),
      }),
      phrases: {
        bestMode: (d) => d.bestLinkMode ?? 'its speed',
        upState: (d) => (d.adminUp === true ? 'is administratively up but ' : ''),
      },
      message: '{subject} {upState}has no link (no carrier)',
      fix: 'Check the cable or optic (seated, rated for {bestMode}), that the switch port is enabled and configured for the same speed, and the port LEDs; `ethtool {subject}` shows "Link detected: yes" once it is up',
    }),
    'carrier-flapping': symptom({
      severity: 'warning',
      data: z.object({ carrierChanges: z.number().int(), flaps: z.number().int(), threshold: z.number().int() }),
      message:
        '{subject} lost and regained its link about {flaps} times (carrier_changes {carrierChanges}, threshold {threshold}): each drop stalls TCP',
      fix: 'carrier_changes counts up by 2 for each down/up cycle (a few at boot are normal); replace the cable or optic, check the switch port error counters and `ethtool -S {subject}` CRC/symbol errors, and the kernel log for link up/down messages',
    }),
  },
  run({ facts, optional, options: opts, subject, report, notApplicable, unknown, source }) {
    const settings = facts['ethtool.settings'];
    const device = facts['net.device'];
    const driverInfo = optional['ethtool.driver'];
    const ethtoolSource = source('ethtool.settings');
    const withEthtool = (evidence: Evidence): Evidence => (ethtoolSource ? { ...evidence, source: ethtoolSource } : evidence);
    let reported = false;

    if (SOFTWARE_KINDS.has(device.kind)) {
      return notApplicable(
        `${subject} is a ${device.kind} interface: its speed is nominal (no link modes to compare); the physical NICs below it are checked`,
      );
    }
    // Reading carrier fails on an interface that is administratively down; one set down on purpose
    // (no IFF_UP) has no link by design, whatever ethtool says of its carrier.
    if ((device.carrier === null && device.operstate === 'down') || (device.adminUp === false && device.operstate !== 'up')) {
      return notApplicable(`${subject} is administratively down (ip link set dev ${subject} up to use it)`);
    }

    // Modes by name, so that only modes both sides can use count.
    const supported = settings.supportedLinkModes ?? [];
    const advertised = settings.advertisedLinkModes ?? [];
    const ownModes = advertised.length > 0 ? supported.filter((mode) => advertised.includes(mode)) : supported;
    const best = bestLinkMode(ownModes.length > 0 ? ownModes : supported);
    const partnerModes = settings.linkPartnerAdvertisedLinkModes ?? [];
    const partnerBest = bestLinkMode(partnerModes);
    const commonBest = partnerModes.length > 0 ? bestLinkMode(ownModes.filter((mode) => partnerModes.includes(mode))) : null;

    const changes = device.carrierChanges;
    if (changes !== null && changes >= opts.carrierChangesThreshold) {
      reported = true;
      const changesSource = source('net.device', '/carrier_changes');
      report('carrier-flapping', {
        evidence: [
          {
            label: 'carrier_changes',
            observed: changes,
            expected: `< ${opts.carrierChangesThreshold}`,
            ...(changesSource ? { source: changesSource } : {}),
          },
        ],
        data: { carrierChanges: changes, flaps: Math.floor(changes / 2), threshold: opts.carrierChangesThreshold },
      });
    }

    if (settings.linkDetected === false || device.carrier === false) {
      const carrierSource = source('net.device', '/carrier');
      report('no-carrier', {
        evidence: [
          withEthtool({
            label: 'Link detected',
            observed: settings.linkDetected === null ? null : settings.linkDetected ? 'yes' : 'no',
            expected: 'yes',
          }),
          {
            label: 'carrier',
            observed: device.carrier === null ? null : device.carrier ? 1 : 0,
            expected: 1,
            ...(carrierSource ? { source: carrierSource } : {}),
          },
          { label: 'operstate', observed: device.operstate },
        ],
        data: { operstate: device.operstate, bestLinkMode: best?.mode ?? null, bestMbps: best?.speedMbps ?? null, adminUp: device.adminUp },
      });
      // The speed ethtool prints for a down link is stale (rtl83xx reports 1000Mb/s): do not judge it.
      return undefined;
    }
    // "Speed: Unknown!" under the partner's advertisement: the PHY heard the partner, yet no link came
    // up (a copper SFP+ that negotiated on the cable but not with the host, an autonegotiation that
    // never finished). Without the partner's modes an unknown speed says nothing (virtio prints it).
    if (settings.speedUnknown && partnerModes.length > 0 && settings.linkDetected !== true && device.carrier !== true) {
      report('no-carrier', {
        evidence: [
          withEthtool({ label: 'Speed', observed: 'Unknown!', expected: 'a speed' }),
          withEthtool({ label: 'Link partner advertised link modes', observed: partnerModes.join(' ') }),
        ],
        data: { operstate: device.operstate, bestLinkMode: best?.mode ?? null, bestMbps: best?.speedMbps ?? null, adminUp: device.adminUp },
      });
      return undefined;
    }

    const negotiated = settings.speedMbps ?? device.speedMbps;
    const duplex = settings.duplex ?? (device.duplex === 'half' || device.duplex === 'full' ? device.duplex : null);

    if (duplex === 'half') {
      reported = true;
      report('half-duplex', {
        evidence: [withEthtool({ label: 'Duplex', observed: 'half', expected: 'full' })],
        data: { negotiatedMbps: negotiated, duplex },
      });
    }

    if (!best) {
      if (reported) return undefined;
      return notApplicable(
        `${subject} reports no link modes (${device.driver ?? device.kind} NIC): there is no capability to compare its ${negotiated === null ? 'unreported' : `nominal ${negotiated} Mb/s`} speed with`,
      );
    }
    const standardSupported = supported.filter((mode) => !opts.vendorOnlySpeedsMbps.includes(parseLinkMode(mode)?.speedMbps ?? 0));
    const restricted = restrictedAdvertisement(standardSupported, advertised, partnerModes);
    if (restricted && (negotiated === null || negotiated < restricted.supportedBest.speedMbps)) {
      reported = true;
      report('advertises-below-supported', {
        // A partner that offers nothing faster than what is advertised caps the link anyway.
        ...(restricted.partnerOffersFaster === false ? { severity: 'info' as const } : {}),
        evidence: [
          withEthtool({ label: 'Best supported link mode', observed: restricted.supportedBest.mode }),
          withEthtool({
            label: 'Best advertised link mode',
            observed: restricted.advertisedBest.mode,
            expected: restricted.supportedBest.mode,
          }),
          ...(settings.autoNegotiation !== null
            ? [withEthtool({ label: 'Auto-negotiation', observed: settings.autoNegotiation ? 'on' : 'off' })]
            : []),
        ],
        data: {
          supportedBestMode: restricted.supportedBest.mode,
          supportedBestMbps: restricted.supportedBest.speedMbps,
          advertisedBestMode: restricted.advertisedBest.mode,
          advertisedBestMbps: restricted.advertisedBest.speedMbps,
          negotiatedMbps: negotiated,
          autoneg: settings.autoNegotiation,
          partnerOffersFaster: restricted.partnerOffersFaster,
        },
      });
    }

    if (negotiated === null) {
      if (reported) return undefined;
      return unknown(
        `${subject} has a link but no negotiated speed could be read: the ethtool output gives none and sysfs speed was not read`,
      );
    }

    if (negotiated < best.speedMbps) {
      // Both advertisements shown and nothing faster in common: the partner sets the speed and the
      // link negotiated correctly; a note on the partner, not a fault of this host.
      const partnerLimits = partnerModes.length > 0 && (commonBest === null || commonBest.speedMbps <= negotiated);
      report('below-capability', {
        severity: partnerLimits ? 'info' : negotiated <= best.speedMbps * opts.criticalRatio ? 'critical' : 'warning',
        evidence: [
          withEthtool({ label: 'Speed', observed: negotiated, expected: best.speedMbps, unit: 'Mb/s' }),
          withEthtool({ label: 'Best mode supported and advertised', observed: best.mode }),
          ...(partnerModes.length > 0
            ? [withEthtool({ label: 'Best mode the link partner advertises', observed: partnerBest?.mode ?? partnerModes.join(' ') })]
            : []),
        ],
        data: {
          negotiatedMbps: negotiated,
          bestMbps: best.speedMbps,
          bestMode: best.mode,
          partnerShown: partnerModes.length > 0,
          partnerBestMode: partnerBest?.mode ?? null,
          partnerBestMbps: partnerBest?.speedMbps ?? null,
          commonBestMode: commonBest?.mode ?? null,
          commonBestMbps: commonBest?.speedMbps ?? null,
          driver: driverInfo.ok ? driverInfo.value.driver : null,
          driverVersion: driverInfo.ok ? driverInfo.value.version : null,
          firmwareVersion: driverInfo.ok ? driverInfo.value.firmwareVersion : null,
          driverInfo: driverInfo.ok,
        },
      });
    }
    return undefined;
  },
});

/** Who holds the link back: the partner advertises nothing faster, or both could go faster. */
function explainLimit(d: BelowCapability, finding?: PhraseContext): { limit: string; remedy: string } {
  if (!d.partnerShown) {
    return {
      limit: 'the driver does not show what the link partner advertises, so the cable, optic or switch port may hold it back',
      remedy: `Find which end limits the link: the switch port's configured and supported speeds, and the cable or optic rating for ${d.bestMode}`,
    };
  }
  if (d.commonBestMode && d.commonBestMbps !== null && d.commonBestMbps > d.negotiatedMbps) {
    return {
      limit: `both ends advertise ${d.commonBestMode}, yet the link came up slower: a cable, optic or autonegotiation fault`,
      remedy: `Both ends offer ${d.commonBestMode}: replace the cable or optic, then renegotiate (ethtool -r ${finding?.subject})`,
    };
  }
  return {
    limit: `the link partner advertises at most ${d.partnerBestMode ?? 'nothing the NIC supports'}`,
    remedy: `The link partner limits the link: configure the switch port to advertise ${d.bestMode} (or use a port, cable or optic that supports it)`,
  };
}

/**
 * The fastest supported mode when the port advertises only slower ones (autoneg off, a restricted
 * or default advertisement): supported and advertised are compared, not only their intersection.
 * Null when nothing is advertised (the list was not printed) or the best supported is advertised.
 */
function restrictedAdvertisement(
  supported: readonly string[],
  advertised: readonly string[],
  partner: readonly string[],
): { supportedBest: LinkMode; advertisedBest: LinkMode; partnerOffersFaster: boolean | null } | null {
  const supportedBest = bestLinkMode(supported);
  const advertisedBest = bestLinkMode(advertised);
  if (!supportedBest || !advertisedBest || supportedBest.speedMbps <= advertisedBest.speedMbps) return null;
  const partnerBest = bestLinkMode(partner);
  return { supportedBest, advertisedBest, partnerOffersFaster: partnerBest ? partnerBest.speedMbps > advertisedBest.speedMbps : null };
}
