import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import type { OffloadFeature } from '../src/parsers/ethtool-features.js';
import type { Evidence, Profile, Severity } from '../src/report/schema.js';

/**
 * The offloads that cut CPU per Gb/s (CAUSES.md cause 9), by ethtool's long name, with the
 * short name `ethtool -K` takes. LRO is left out on purpose: off is the normal state, and
 * it must be off on a host that forwards or bridges.
 */
const OFFLOADS = [
  { name: 'rx-checksumming', label: 'rx-checksumming', toggle: 'rx' },
  { name: 'tx-checksumming', label: 'tx-checksumming', toggle: 'tx' },
  { name: 'scatter-gather', label: 'scatter-gather', toggle: 'sg' },
  { name: 'tcp-segmentation-offload', label: 'TSO', toggle: 'tso' },
  { name: 'generic-segmentation-offload', label: 'GSO', toggle: 'gso' },
  { name: 'generic-receive-offload', label: 'GRO', toggle: 'gro' },
] as const;

type Offload = (typeof OFFLOADS)[number];

const options = z.object({
  /** What a measurement (perfSONAR-style) host turns off on purpose: reported as info there. */
  measurementOffOnPurpose: z.array(z.string()).default(['tso', 'gso', 'gro']),
});

type State = 'on' | 'off' | 'fixed-off' | 'requested-but-off';

function stateOf(feature: OffloadFeature): State {
  if (feature.active) return 'on';
  if (feature.fixed === true) return 'fixed-off';
  if (feature.requested === true) return 'requested-but-off';
  return 'off';
}

/** The ethtool -K names of these offloads, comma-separated ("tso,gso"): what a fix turns on. */
function featureList(offloads: readonly Offload[]): string {
  return offloads.map((offload) => offload.toggle).join(',');
}

const TOGGLES: ReadonlySet<string> = new Set(OFFLOADS.map((offload) => offload.toggle));
const featuresSchema = z
  .string()
  .refine((list) => list.split(',').every((name) => TOGGLES.has(name)), 'ethtool -K offload names, comma-separated ("tso,gso")');
const profileSchema = z.enum(['throughput', 'latency', 'measurement']);

/** "tso,gso" → "TSO, GSO", the names people read. */
function labels(features: string): string {
  return features
    .split(',')
    .map((toggle) => OFFLOADS.find((offload) => offload.toggle === toggle)?.label ?? toggle)
    .join(', ');
}

/** "tso,gso" → "tso on gso on", the ethtool -K arguments. */
function toggles(features: string): string {
  return features
    .split(',')
    .map((toggle) => `${toggle} on`)
    .join(' ');
}

function profileNote(profile: Profile, onPurpose: boolean): string {
  if (profile === 'measurement' && onPurpose)
    return 'expected for a measurement host: perfSONAR-style hosts turn TSO/GSO/GRO off on purpose so that packets leave as the tool sent them';
  return `for a ${profile} host this raises CPU per Gb/s and lowers the throughput ceiling`;
}

export default defineCheck({
  id: 'offloads',
  title: 'Offloads (TSO, GSO, GRO, checksums)',
  description:
    'Reads ethtool -k: TSO, GSO, GRO, rx/tx checksumming and scatter-gather. Changeable offloads that are off are a warning on a throughput host (info for TSO/GSO/GRO on a measurement host, which turns them off on purpose); "off [fixed]" is info (the driver cannot do it); "off [requested on]" is a warning (the driver or the stack refused it). LRO off is normal and not reported.',
  scope: 'interface',
  requires: ['net.device'],
  optionalFacts: ['ethtool.features'],
  options,
  symptoms: {
    'offload-off': symptom({
      severity: 'warning',
      data: z.object({
        features: featuresSchema,
        count: z.number().int(),
        profile: profileSchema,
        /** A measurement host turns these off on purpose (options.measurementOffOnPurpose). */
        onPurpose: z.boolean(),
      }),
      phrases: {
        featureLabels: (d) => labels(d.features),
        toggles: (d) => toggles(d.features),
        note: (d) => profileNote(d.profile, d.onPurpose),
      },
      message: '{subject}: {featureLabels} off although the driver lets them be turned on; {note}',
      fix: { text: '{commands}', ops: [{ kind: 'ethtool-features', iface: '{subject}', on: '{features}' }] },
    }),
    'offload-fixed-off': symptom({
      severity: 'info',
      data: z.object({ features: featuresSchema, count: z.number().int() }),
      phrases: { featureLabels: (d) => labels(d.features) },
      message: '{subject}: {featureLabels} off and fixed by the driver: ethtool -K cannot turn them on; the CPU does this work',
      fix: 'Nothing to set on this interface: a NIC or driver (or firmware) that offers {features} would take this work off the CPU',
    }),
    'offload-requested-but-off': symptom({
      severity: 'warning',
      data: z.object({
        features: featuresSchema,
        count: z.number().int(),
        /** TSO/GSO was refused because scatter-gather, which it needs, is off. */
        needsScatterGather: z.boolean(),
        /** The interface kind (a bond or bridge offers only what all its members offer). */
        kind: z.string(),
      }),
      phrases: {
        featureLabels: (d) => labels(d.features),
        toggles: (d) => toggles(d.features),
        why: (d) =>
          d.needsScatterGather
            ? 'segmentation offload needs scatter-gather, which is off on this interface'
            : d.kind === 'bond' || d.kind === 'bridge'
              ? `a ${d.kind} offers only what all its members offer: a member lacks it`
              : 'the driver or the kernel refused it (a feature it depends on, a bond or bridge member, or the driver)',
      },
      message: '{subject}: {featureLabels} requested on but off: {why}',
      fix: {
        text: '{commands}, then ethtool -k {subject} | grep requested; if it stays off, look for the dependency or the bond/bridge member that refuses it (dmesg)',
        ops: [{ kind: 'ethtool-features', iface: '{subject}', on: '{features}' }],
      },
    }),
  },
  run(ctx) {
    const { facts, optional, options: opts, profile, report, unknown, source } = ctx;
    const device = facts['net.device'];
    const result = optional['ethtool.features'];
    if (!result.ok)
      return skipForFailedFact(ctx, result.error, { unsupported: (message) => `the driver reports no offload features (${message})` });
    const features = result.value.features;
    const commandSource = source('ethtool.features', result.value.format === 'json' ? '--json' : 'ethtool -k');
    const groups: Record<State, Offload[]> = { on: [], off: [], 'fixed-off': [], 'requested-but-off': [] };
    for (const offload of OFFLOADS) {
      const feature = features[offload.name];
      if (!feature) continue;
      const state = stateOf(feature);
      // veth and other software devices keep GRO off by default: that is the kernel's choice.
      if (state === 'off' && offload.toggle === 'gro' && device.kind === 'virtual') continue;
      groups[state].push(offload);
    }
    if (Object.values(groups).every((group) => group.length === 0)) {
      return unknown('ethtool -k listed none of TSO, GSO, GRO, checksumming or scatter-gather');
    }

    const evidence = (offloads: readonly Offload[], state: State): Evidence[] =>
      offloads.map((offload) => ({
        label: offload.name,
        observed: state === 'off' ? 'off' : state === 'fixed-off' ? 'off [fixed]' : 'off [requested on]',
        expected: 'on',
        ...(commandSource ? { source: commandSource } : {}),
      }));

    // On a measurement host, TSO/GSO/GRO off is intended: those go in their own info finding.
    const onPurpose =
      profile === 'measurement' ? groups.off.filter((offload) => opts.measurementOffOnPurpose.includes(offload.toggle)) : [];
    const unintended = groups.off.filter((offload) => !onPurpose.includes(offload));
    const offFindings: Array<[Offload[], Severity | undefined, boolean]> = [
      [unintended, undefined, false],
      [onPurpose, 'info', true],
    ];
    for (const [offloads, severity, intended] of offFindings) {
      if (offloads.length === 0) continue;
      report('offload-off', {
        ...(severity ? { severity } : {}),
        evidence: evidence(offloads, 'off'),
        data: { features: featureList(offloads), count: offloads.length, profile, onPurpose: intended },
      });
    }

    if (groups['requested-but-off'].length > 0) {
      const refused = groups['requested-but-off'];
      const needsSg = refused.some((offload) => offload.toggle === 'tso' || offload.toggle === 'gso');
      const sgOff = features['scatter-gather']?.active === false;
      report('offload-requested-but-off', {
        evidence: evidence(refused, 'requested-but-off'),
        data: { features: featureList(refused), count: refused.length, needsScatterGather: needsSg && sgOff, kind: device.kind },
      });
    }

    // What a software device or a hypervisor's NIC cannot offload is no tuning the host can do.
    if (groups['fixed-off'].length > 0 && device.kind === 'physical') {
      const fixedOff = groups['fixed-off'];
      report('offload-fixed-off', {
        evidence: evidence(fixedOff, 'fixed-off'),
        data: { features: featureList(fixedOff), count: fixedOff.length },
      });
    }
    return undefined;
  },
});
