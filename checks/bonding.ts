import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import type { Evidence } from '../src/report/schema.js';
import type { BondMember, BondStatus } from '../src/parsers/proc-bonding.js';

const options = z.object({
  /** Link failures since the bond was set up from which a member's churn is a warning (fewer: a note). */
  linkFailureWarningCount: z.number().int().positive().default(5),
});

const mode = z.enum(['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb', 'unknown']);
const bondData = { bond: z.string(), mode, members: z.number().int().nonnegative() };

/** Modes that spread flows over members by a hash of the headers (the policy decides how well). */
const HASHED_MODES = new Set(['balance-xor', '802.3ad']);

export default defineCheck({
  id: 'bonding',
  title: 'Bonds and their members',
  description:
    "Reads /proc/net/bonding/* (the bonding driver's own view): members whose MII status is down, members slower than the others, 802.3ad members outside the active aggregator or with no LACP partner, link failure counts, and a layer2 transmit hash, which sends all traffic between two hosts over one member.",
  scope: 'host',
  requires: ['bond.status'],
  options,
  symptoms: {
    'member-down': symptom({
      severity: 'warning',
      data: z.object({ ...bondData, member: z.string(), membersUp: z.number().int().nonnegative() }),
      message: '{bond} ({mode}): member {member} is down; {membersUp} of {members} members are up',
      fix: 'Bring {member} back (cable, module, switch port: ethtool {member}; ip link show {member}); until then the bond runs without redundancy or at part of its capacity.',
    }),
    'member-slower': symptom({
      severity: 'warning',
      data: z.object({ ...bondData, member: z.string(), speedMbps: z.number().int().positive(), fastestMbps: z.number().int().positive() }),
      message: '{bond} ({mode}): member {member} runs at {speedMbps} Mb/s while the fastest runs at {fastestMbps} Mb/s',
      fix: 'Find why {member} negotiated less (ethtool {member}: Speed, advertised and partner link modes; the cable or module); flows hashed onto it are capped at {speedMbps} Mb/s.',
    }),
    'member-not-aggregated': symptom({
      severity: 'warning',
      data: z.object({
        ...bondData,
        member: z.string(),
        aggregatorId: z.number().int().nullable(),
        activeAggregatorId: z.number().int().nullable(),
        churned: z.boolean(),
        noPartner: z.boolean(),
      }),
      phrases: {
        why: (d) =>
          (d.activeAggregatorId === null
            ? 'the bond has no active aggregator'
            : d.noPartner
              ? 'no LACP partner answered on it'
              : `it is in aggregator ${d.aggregatorId ?? 'none'}, not the active ${d.activeAggregatorId}`) +
          (d.churned ? ' (LACP churned)' : ''),
      },
      message: '{bond} (802.3ad): member {member} carries no traffic: {why}',
      fix: 'Configure the switch ports of {bond} as one LACP port-channel (same LAG, LACP active, same speed), then check that every member shows the same Aggregator ID: grep -E "Slave Interface|Aggregator ID|Churn" /proc/net/bonding/{bond}',
    }),
    'member-link-failures': symptom({
      severity: 'info',
      data: z.object({ ...bondData, member: z.string(), linkFailures: z.number().int().positive() }),
      message: '{bond}: member {member} lost its link {linkFailures} times since it joined the bond',
      fix: 'If the count grows between two readings (grep -A5 "Slave Interface: {member}" /proc/net/bonding/{bond}), check the cable, module and switch port of {member}.',
    }),
    'layer2-hash': symptom({
      severity: 'info',
      data: z.object({ ...bondData, hashPolicy: z.string() }),
      message:
        '{bond} ({mode}) hashes on MAC addresses ({hashPolicy}): all traffic between two hosts, or through one router, leaves over a single member',
      fix: {
        text: 'Hash on addresses and ports so that different flows spread over the members (the switch side should hash likewise): {commands}',
        ops: [{ kind: 'inspect', argv: ['cat', '/sys/class/net/{bond}/bonding/xmit_hash_policy'] }],
      },
    }),
  },
  run({ facts, options: opts, report, source, notApplicable }) {
    const bonds = facts['bond.status'];
    if (bonds.length === 0) return notApplicable('no bond on this host (/proc/net/bonding is absent or empty)');
    for (const bond of bonds)
      judgeBond(bond, opts.linkFailureWarningCount, report, source('bond.status', `/proc/net/bonding/${bond.name}`));
    return undefined;
  },
});

type Report = Parameters<Parameters<typeof defineCheck>[0]['run']>[0]['report'];

type Source = Evidence['source'];

function judgeBond(bond: BondStatus, warnFailures: number, report: Report, from: Source): void {
  const base = { bond: bond.name, mode: bond.mode, members: bond.members.length };
  const at = from ? { source: from } : {};
  const up = bond.members.filter((member) => member.miiUp === true);
  for (const member of bond.members) {
    if (member.miiUp !== false) continue;
    report('member-down', {
      subject: bond.name,
      // No member up: the bond carries nothing.
      ...(up.length === 0 ? { severity: 'critical' as const } : {}),
      evidence: [{ label: `${member.name} MII status`, observed: 'down', expected: 'up', ...at }],
      data: { ...base, member: member.name, membersUp: up.length },
    });
  }
  const fastest = Math.max(0, ...up.map((member) => member.speedMbps ?? 0));
  for (const member of up) {
    if (member.speedMbps === null || fastest === 0 || member.speedMbps >= fastest) continue;
    report('member-slower', {
      subject: bond.name,
      evidence: [{ label: `${member.name} speed`, observed: member.speedMbps, expected: fastest, unit: 'Mb/s', ...at }],
      data: { ...base, member: member.name, speedMbps: member.speedMbps, fastestMbps: fastest },
    });
  }
  if (bond.mode === '802.3ad') for (const member of up) notAggregated(bond, member, base, at, report);
  for (const member of bond.members) {
    if (!member.linkFailures) continue;
    report('member-link-failures', {
      subject: bond.name,
      ...(member.linkFailures >= warnFailures ? { severity: 'warning' as const } : {}),
      evidence: [{ label: `${member.name} Link Failure Count`, observed: member.linkFailures, expected: 0, ...at }],
      data: { ...base, member: member.name, linkFailures: member.linkFailures },
    });
  }
  if (bond.hashPolicy === 'layer2' && HASHED_MODES.has(bond.mode) && bond.members.length > 1) {
    report('layer2-hash', {
      subject: bond.name,
      evidence: [{ label: `${bond.name} Transmit Hash Policy`, observed: bond.hashPolicy, expected: 'layer3+4', ...at }],
      data: { ...base, hashPolicy: bond.hashPolicy },
    });
  }
}

function notAggregated(
  bond: BondStatus,
  member: BondMember,
  base: { bond: string; mode: BondStatus['mode']; members: number },
  at: { source?: Source },
  report: Report,
): void {
  const noPartner = member.partnerMac !== null && /^(?:00:){5}00$/.test(member.partnerMac);
  const outside = bond.activeAggregatorId !== null && member.aggregatorId !== null && member.aggregatorId !== bond.activeAggregatorId;
  const none = bond.noActiveAggregator;
  if (!noPartner && !outside && !none) return;
  const evidence: Evidence[] = [
    {
      label: `${member.name} Aggregator ID`,
      observed: member.aggregatorId ?? 'N/A',
      expected: bond.activeAggregatorId ?? 'the active aggregator',
      ...at,
    },
  ];
  report('member-not-aggregated', {
    subject: bond.name,
    evidence,
    data: {
      ...base,
      member: member.name,
      aggregatorId: member.aggregatorId,
      activeAggregatorId: bond.activeAggregatorId,
      churned: member.actorChurned === true || member.partnerChurned === true,
      noPartner,
    },
  });
}
