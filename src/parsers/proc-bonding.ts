import { ParseError } from './parse-error.js';
import { lines } from './text.js';

/**
 * /proc/net/bonding/<bond>: the bonding driver's own view of a bond and each member.
 *
 *   Bonding Mode: IEEE 802.3ad Dynamic link aggregation
 *   Transmit Hash Policy: layer2 (0)
 *   Currently Active Slave: eth0                  (active-backup)
 *   Active Aggregator Info: / Aggregator ID: 2    (802.3ad; "bond bond0 has no active aggregator")
 *   Slave Interface: enp7s0
 *   MII Status: up / Speed: 1000 Mbps / Link Failure Count: 0 / Aggregator ID: 1
 *   Actor Churn State: churned / Partner Churn State: churned
 *   details partner lacp pdu: / system mac address: 00:00:00:00:00:00
 *
 * Newer kernels say "Slave Interface" still (the file format is ABI); both "N/A" and "Unknown"
 * mean the driver has no value.
 */
export type BondMode = 'balance-rr' | 'active-backup' | 'balance-xor' | 'broadcast' | '802.3ad' | 'balance-tlb' | 'balance-alb' | 'unknown';

export interface BondMember {
  name: string;
  miiUp: boolean | null;
  speedMbps: number | null;
  duplex: 'full' | 'half' | null;
  linkFailures: number | null;
  /** 802.3ad: the aggregator this member joined (null: "N/A" or not shown). */
  aggregatorId: number | null;
  actorChurned: boolean | null;
  partnerChurned: boolean | null;
  /** 802.3ad: the partner system's MAC (all zeros: no LACP partner answered). */
  partnerMac: string | null;
}

export interface BondStatus {
  name: string;
  mode: BondMode;
  /** "layer2", "layer2+3", "layer3+4", "encap2+3", "encap3+4", "vlan+srcmac", or null when not shown. */
  hashPolicy: string | null;
  miiUp: boolean | null;
  activeMember: string | null;
  /** 802.3ad: the active aggregator's id; null when the bond has none or the mode has none. */
  activeAggregatorId: number | null;
  /** 802.3ad: "bond bond0 has no active aggregator". */
  noActiveAggregator: boolean;
  members: BondMember[];
}

const MODES: ReadonlyArray<readonly [string, BondMode]> = [
  ['round-robin', 'balance-rr'],
  ['active-backup', 'active-backup'],
  ['xor', 'balance-xor'],
  ['broadcast', 'broadcast'],
  ['802.3ad', '802.3ad'],
  ['transmit load balancing', 'balance-tlb'],
  ['adaptive load balancing', 'balance-alb'],
];
/** Members read at most: a bond has at most a few dozen. */
const MAX_MEMBERS = 256;

function modeOf(text: string): BondMode {
  const lower = text.toLowerCase();
  for (const [phrase, mode] of MODES) if (lower.includes(phrase)) return mode;
  return 'unknown';
}

function countOf(value: string): number | null {
  return /^\d{1,12}$/.test(value) ? Number(value) : null;
}

function upOf(value: string): boolean | null {
  return value === 'up' ? true : value === 'down' || value === 'going down' ? false : null;
}

export function parseProcBonding(name: string, text: string): BondStatus {
  const bond: BondStatus = {
    name,
    mode: 'unknown',
    hashPolicy: null,
    miiUp: null,
    activeMember: null,
    activeAggregatorId: null,
    noActiveAggregator: false,
    members: [],
  };
  let member: BondMember | null = null;
  let inActiveAggregator = false;
  let inPartnerDetails = false;
  let sawMode = false;
  for (const raw of lines(text)) {
    const line = raw.trim();
    if (/^bond \S{1,15} has no active aggregator$/.test(line)) {
      bond.noActiveAggregator = true;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    switch (key) {
      case 'Bonding Mode':
        bond.mode = modeOf(value);
        sawMode = true;
        continue;
      case 'Transmit Hash Policy':
        bond.hashPolicy = /^([\w+-]{1,20})/.exec(value)?.[1] ?? null;
        continue;
      case 'Currently Active Slave':
        bond.activeMember = value === 'None' ? null : value;
        continue;
      case 'Active Aggregator Info':
        inActiveAggregator = true;
        continue;
      case 'Slave Interface':
        if (bond.members.length >= MAX_MEMBERS) throw new ParseError(`/proc/net/bonding/${name}: more than ${MAX_MEMBERS} members`);
        member = {
          name: value,
          miiUp: null,
          speedMbps: null,
          duplex: null,
          linkFailures: null,
          aggregatorId: null,
          actorChurned: null,
          partnerChurned: null,
          partnerMac: null,
        };
        bond.members.push(member);
        inActiveAggregator = false;
        inPartnerDetails = false;
        continue;
      default:
        break;
    }
    if (key === 'details partner lacp pdu') {
      inPartnerDetails = true;
      continue;
    }
    if (key === 'details actor lacp pdu') {
      inPartnerDetails = false;
      continue;
    }
    if (!member) {
      if (key === 'MII Status') bond.miiUp = upOf(value);
      else if (key === 'Aggregator ID' && inActiveAggregator) bond.activeAggregatorId = countOf(value);
      continue;
    }
    if (key === 'MII Status') member.miiUp = upOf(value);
    else if (key === 'Speed') member.speedMbps = /^(\d{1,7}) Mbps$/.exec(value) ? Number(value.split(' ')[0]) : null;
    else if (key === 'Duplex') member.duplex = value === 'full' || value === 'half' ? value : null;
    else if (key === 'Link Failure Count') member.linkFailures = countOf(value);
    else if (key === 'Aggregator ID') member.aggregatorId = countOf(value);
    else if (key === 'Actor Churn State') member.actorChurned = value === 'churned';
    else if (key === 'Partner Churn State') member.partnerChurned = value === 'churned';
    else if (key === 'system mac address' && inPartnerDetails) member.partnerMac = value.toLowerCase();
  }
  if (!sawMode) throw new ParseError(`/proc/net/bonding/${name}: no "Bonding Mode:" line (not a bonding status file)`);
  return bond;
}
