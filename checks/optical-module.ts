import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import { bestLinkMode } from '../src/domain/link-modes.js';
import { moduleSpeedMbps } from '../src/domain/module-rate.js';
import {
  MODULE_UNITS,
  type EthtoolModule,
  type ModuleLevel,
  type ModuleQuantity,
  type ModuleReading,
  type ModuleSide,
} from '../src/parsers/ethtool-module.js';
import type { Evidence } from '../src/report/schema.js';

const quantitySchema = z.enum(['bias', 'txPower', 'rxPower', 'temperature', 'voltage']);

const QUANTITY_WORDS: Readonly<Record<ModuleQuantity, string>> = {
  bias: 'laser bias current',
  txPower: 'transmit power',
  rxPower: 'receive power',
  temperature: 'module temperature',
  voltage: 'module supply voltage',
};

/** What each excursion usually means, for the explanation a rule gives. */
const OUT_OF_RANGE_MEANING: Readonly<Record<`${ModuleQuantity}/${ModuleSide}`, string>> = {
  'rxPower/low':
    'too little light reaches the receiver: a dirty or damaged connector or fibre, a patch too long or with too many joins, a far-end laser that is off or failing, or optics of mismatched wavelength or reach',
  'rxPower/high': 'the receiver is overloaded: a long-reach optic on a short fibre needs an attenuator',
  'txPower/low': "the module's own laser emits too little light: an ageing or failing transmitter",
  'txPower/high': "the module's own laser emits more light than its limit: a failing transmitter",
  'bias/high': 'the laser needs more drive current than its limit to keep its power: a worn laser near the end of its life',
  'bias/low': 'the laser draws less current than its limit: a transmitter that is failing or shut down',
  'temperature/high':
    'the module runs hotter than its limit: poor airflow through the cage or a module drawing more power than the port cools',
  'temperature/low': 'the module runs colder than its limit',
  'voltage/high': "the port supplies the module more voltage than its limit: the host's module power",
  'voltage/low':
    "the port supplies the module less voltage than its limit: the host's module power, or a module drawing more than the port gives",
};

/** Who the module is, in every finding: the part is what gets replaced. */
const moduleIdentity = {
  identifier: z.string().nullable(),
  vendor: z.string().nullable(),
  partNumber: z.string().nullable(),
};

function milliwattsToDbm(mw: number): string {
  return mw > 0 ? `${(10 * Math.log10(mw)).toFixed(2)} dBm` : 'no light';
}

function shown(quantity: ModuleQuantity, value: number): string {
  const unit = MODULE_UNITS[quantity];
  return quantity === 'txPower' || quantity === 'rxPower' ? `${value} mW (${milliwattsToDbm(value)})` : `${value} ${unit}`;
}

const identityPhrases = {
  moduleName: (d: { identifier: string | null; vendor: string | null; partNumber: string | null }) =>
    [d.identifier ?? 'module', d.vendor, d.partNumber].filter(Boolean).join(' '),
};

export default defineCheck({
  id: 'optical-module',
  title: 'Pluggable module (SFP/QSFP) and its light levels',
  description:
    "Reads ethtool -m on physical ports: the module's type, vendor, part and nominal rate against the port's fastest mode, and its digital diagnostics (receive and transmit power, laser bias, temperature, voltage) against the alarm and warning thresholds the module itself stores, and the flags it raised. A module without diagnostics cannot be judged (unknown). Ports with no module cage (BASE-T, virtual NICs) do not apply.",
  scope: 'interface',
  appliesTo: (iface) => (iface.kind === 'physical' ? null : `${iface.name} is a ${iface.kind} interface: it has no pluggable module`),
  requires: ['net.device'],
  optionalFacts: ['ethtool.module', 'ethtool.settings'],
  options: z.object({}),
  symptoms: {
    'module-out-of-range': symptom({
      severity: 'warning',
      data: z.object({
        quantity: quantitySchema,
        side: z.enum(['high', 'low']),
        level: z.enum(['alarm', 'warning']),
        /** The lane of a multi-lane module; null for a module-wide value. */
        channel: z.number().int().nonnegative().nullable(),
        /** The reading (mA, mW, degrees C, V); null when only the module's flag says so. */
        value: z.number().nullable(),
        /** The module's own threshold crossed; null when only its flag is known. */
        threshold: z.number().nullable(),
        unit: z.string(),
        ...moduleIdentity,
      }),
      phrases: {
        ...identityPhrases,
        what: (d) => QUANTITY_WORDS[d.quantity],
        lane: (d) => (d.channel === null ? '' : ` on lane ${d.channel}`),
        reading: (d) => (d.value === null ? 'flagged by the module' : shown(d.quantity, d.value)),
        meaning: (d) => OUT_OF_RANGE_MEANING[`${d.quantity}/${d.side}`],
        limit: (d) =>
          d.threshold === null
            ? `the module raised its ${d.side} ${d.level} flag`
            : `${d.side === 'low' ? 'below' : 'above'} its ${d.side} ${d.level} threshold of ${shown(d.quantity, d.threshold)}`,
      },
      message: '{subject}: {what}{lane} of the {moduleName} is {reading}, {limit}',
      fix: "Check the fibre and both ends' modules: clean the connectors, try a known-good patch cord and module, and read the far end's transmit power; replace the module if its own readings stay outside its limits.",
    }),
    'module-slower-than-port': symptom({
      severity: 'info',
      data: z.object({
        moduleMbps: z.number().positive(),
        portMaxMbps: z.number().positive(),
        negotiatedMbps: z.number().nullable(),
        /** "BR, Nominal" per lane, as the EEPROM gives it. */
        nominalMbps: z.number().positive(),
        transceiverType: z.string().nullable(),
        ...moduleIdentity,
      }),
      phrases: {
        ...identityPhrases,
        moduleGbps: (d) => String(d.moduleMbps / 1000),
        portGbps: (d) => String(d.portMaxMbps / 1000),
        typeNote: (d) => (d.transceiverType ? ` (${d.transceiverType})` : ''),
      },
      message:
        '{subject}: the {moduleName}{typeNote} is a {moduleGbps} Gb/s module in a port that supports {portGbps} Gb/s: the link cannot run faster than the module',
      fix: 'Fit a module rated for the port speed (and one the switch port accepts) if the link should run at {portGbps} Gb/s; a slower module is fine when the far end is that slow too.',
    }),
  },
  run(ctx) {
    const { facts, optional, report, notApplicable, unknown, source } = ctx;
    const device = facts['net.device'];
    if (device.kind !== 'physical') return notApplicable(`${device.kind} interface: it has no pluggable module`);
    const result = optional['ethtool.module'];
    if (!result.ok) {
      return skipForFailedFact(ctx, result.error, {
        unsupported: (message) =>
          `no module EEPROM to read: a port without a cage (BASE-T, on-board) or a driver that does not expose it (${message})`,
        command: `ethtool -m ${device.name}`,
      });
    }
    const module = result.value;
    const from = source('ethtool.module', '-m');
    const withSource = (item: Evidence): Evidence => ({ ...item, ...(from ? { source: from } : {}) });
    const identity = { identifier: module.identifier, vendor: module.vendor, partNumber: module.partNumber };
    const identityEvidence = withSource({
      label: 'module',
      observed: [module.identifier, module.vendor, module.partNumber].filter(Boolean).join(' ') || 'unnamed',
    });

    const settings = optional['ethtool.settings'];
    const portBest = settings.ok ? bestLinkMode(settings.value.supportedLinkModes ?? []) : null;
    const moduleMbps = moduleSpeedMbps(module);
    if (moduleMbps !== null && portBest !== null && module.nominalMbps !== null && moduleMbps < portBest.speedMbps) {
      const negotiatedMbps = device.speedMbps;
      // A slower module matters only where the link runs at its rate, not above it (a wrong decode).
      if (negotiatedMbps === null || negotiatedMbps <= moduleMbps) {
        report('module-slower-than-port', {
          evidence: [
            identityEvidence,
            withSource({ label: 'module nominal rate', observed: module.nominalMbps, unit: 'Mb/s per lane' }),
            { label: 'port fastest mode', observed: portBest.mode, expected: `a module of ${portBest.speedMbps / 1000} Gb/s` },
          ],
          data: {
            moduleMbps,
            portMaxMbps: portBest.speedMbps,
            negotiatedMbps,
            nominalMbps: module.nominalMbps,
            transceiverType: module.transceiverTypes[0] ?? null,
            ...identity,
          },
        });
      }
    }

    if (module.diagnostics === false) {
      return unknown(`the ${identityEvidence.observed} module has no digital diagnostics: its light levels and temperature cannot be read`);
    }
    if (module.diagnostics === null) {
      return unknown(
        'ethtool -m says the module has diagnostics but printed no readings (a driver that returns only the first EEPROM page)',
      );
    }
    const judged = judgeDiagnostics(module);
    if (judged.transmitterOff) {
      return unknown(
        'the module has its transmitter off (bias 0 mA on every lane): the port is down or the driver disabled the module, so there is no light level to judge',
      );
    }
    for (const finding of judged.findings) {
      report('module-out-of-range', {
        ...(finding.level === 'alarm' ? { severity: 'critical' as const } : {}),
        evidence: [
          identityEvidence,
          withSource({
            label: `${QUANTITY_WORDS[finding.quantity]}${finding.channel === null ? '' : ` (lane ${finding.channel})`}`,
            observed: finding.value ?? `${finding.side} ${finding.level} flag on`,
            ...(finding.threshold !== null ? { expected: `${finding.side === 'low' ? '>' : '<'} ${finding.threshold}` } : {}),
            unit: MODULE_UNITS[finding.quantity],
          }),
        ],
        data: { ...finding, unit: MODULE_UNITS[finding.quantity], ...identity },
      });
    }
    if (judged.findings.length === 0 && !judged.anyLimits) {
      return unknown('the module reports its readings but no alarm or warning thresholds or flags: nothing to judge them against');
    }
    return undefined;
  },
});

interface OutOfRange {
  quantity: ModuleQuantity;
  side: ModuleSide;
  level: ModuleLevel;
  channel: number | null;
  value: number | null;
  threshold: number | null;
}

/**
 * Lanes whose transmitter is off (bias and transmit power 0) carry nothing: a QSFP used for
 * one lane, a port that is down, or a module the driver refused (Rx/Tx disabled). Their zeros,
 * and the no-light alarms that follow, are not a fibre fault. An SFP is one lane (channel null).
 */
function idleLanes(readings: readonly ModuleReading[]): Set<number | null> {
  const idle = new Set<number | null>();
  const lanes = new Set(readings.map((r) => r.channel));
  for (const lane of lanes) {
    const onLane = readings.filter((r) => r.channel === lane && (r.quantity === 'bias' || r.quantity === 'txPower'));
    if (onLane.length > 0 && onLane.every((r) => r.value === 0)) idle.add(lane);
  }
  return idle;
}

const LEVEL_ORDER: readonly ModuleLevel[] = ['alarm', 'warning'];

/** The worst limit a reading crosses, alarm before warning. */
function crossed(reading: ModuleReading, module: EthtoolModule): OutOfRange | null {
  const limits = module.thresholds[reading.quantity];
  if (!limits) return null;
  for (const level of LEVEL_ORDER) {
    const suffix = level === 'alarm' ? 'Alarm' : 'Warning';
    let low = limits[`low${suffix}`];
    let high = limits[`high${suffix}`];
    // Some modules store zeros (or nonsense) for limits they do not implement: a pair whose high
    // is not above its low limits nothing.
    if (low !== undefined && high !== undefined && high <= low) low = high = undefined;
    const base = { quantity: reading.quantity, level, channel: reading.channel, value: reading.value };
    if (low !== undefined && reading.value < low) return { ...base, side: 'low', threshold: low };
    if (high !== undefined && reading.value > high) return { ...base, side: 'high', threshold: high };
  }
  return null;
}

/** Readings against thresholds, then the module's own flags for what the numbers do not show. */
function judgeDiagnostics(module: EthtoolModule): { findings: OutOfRange[]; transmitterOff: boolean; anyLimits: boolean } {
  const idle = idleLanes(module.readings);
  // A dark SFP (module-wide bias 0) idles the whole module but for its temperature and voltage.
  const moduleIdle = idle.has(null);
  const active = module.readings.filter((r) =>
    r.channel === null ? !moduleIdle || r.quantity === 'temperature' || r.quantity === 'voltage' : !idle.has(r.channel),
  );
  const findings = new Map<string, OutOfRange>();
  const key = (f: { quantity: ModuleQuantity; channel: number | null }) => `${f.quantity}/${f.channel ?? '-'}`;
  for (const reading of active) {
    const finding = crossed(reading, module);
    if (finding) findings.set(key(finding), finding);
  }
  for (const flag of module.flagsOn) {
    if (idle.has(flag.channel) && flag.quantity !== 'temperature' && flag.quantity !== 'voltage') continue;
    const existing = findings.get(key(flag));
    if (existing && LEVEL_ORDER.indexOf(existing.level) <= LEVEL_ORDER.indexOf(flag.level)) continue;
    const reading = active.find((r) => r.quantity === flag.quantity && r.channel === flag.channel);
    const threshold = module.thresholds[flag.quantity]?.[`${flag.side}${flag.level === 'alarm' ? 'Alarm' : 'Warning'}`];
    findings.set(key(flag), { ...flag, value: reading?.value ?? null, threshold: threshold ?? null });
  }
  const anyLimits = Object.keys(module.thresholds).length > 0 || module.flagsImplemented === true;
  const transmitterOff = active.every((r) => r.quantity === 'temperature' || r.quantity === 'voltage');
  return { findings: [...findings.values()], transmitterOff, anyLimits };
}
