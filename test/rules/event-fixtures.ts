import type { Finding } from '../../src/report/schema.js';
import { IF, typedFinding } from './helpers.js';

/**
 * Findings of the kernel-events and bonding checks, with the data those checks report (typed and
 * validated by their schemas), for the rule tables. The values are those the checks produce on
 * the real captures in fixtures/real/kernel-events and fixtures/real/bonding.
 */
const event = {
  driver: 'ixgbe',
  address: '0000:41:00.0',
  interfaceName: IF,
  detail: null,
  count: 4,
  firstAt: '1356.29693 s after boot',
  lastAt: '28094.903314 s after boot',
  clock: 'uptime' as const,
  ageSeconds: 1854,
  recent: true,
};

export const txTimeouts = typedFinding('kernel-events/tx-timeouts', IF, { ...event, kind: 'tx-timeout', detail: 'watchdog' });
export const moduleRejected = typedFinding(
  'kernel-events/module-rejected',
  IF,
  {
    ...event,
    kind: 'module-rejected',
    detail: 'unsupported',
    count: 1,
    firstAt: null,
    lastAt: null,
    ageSeconds: null,
    recent: false,
    linkUpAfter: false,
  },
  'critical',
);
export const moduleReplaced = typedFinding(
  'kernel-events/module-rejected',
  IF,
  { ...event, kind: 'module-rejected', detail: 'unsupported', count: 1, linkUpAfter: true },
  'info',
);
export const firmwareEvents = typedFinding('kernel-events/firmware-events', IF, { ...event, kind: 'mdd', driver: 'ice', count: 1 });
export const aerErrors = typedFinding('kernel-events/pcie-aer-errors', IF, { ...event, kind: 'aer-corrected', count: 300, onNic: true });
export const linkFlapping = typedFinding('kernel-events/link-flapping', IF, { ...event, kind: 'link-flap', count: 3 });
const hostEvent = { ...event, driver: null, address: null, interfaceName: null };
export const conntrackFull = typedFinding('kernel-events/conntrack-full', 'host', { ...hostEvent, kind: 'conntrack-full', count: 5 });
export const socketMemory = typedFinding('kernel-events/socket-memory-exhausted', 'host', {
  ...hostEvent,
  kind: 'socket-memory',
  detail: 'tcp-mem',
  count: 7,
});
export const pageAllocation = typedFinding('kernel-events/page-allocation-failures', 'host', {
  ...hostEvent,
  kind: 'page-alloc-failure',
  count: 2,
});
export const overMtu = typedFinding('kernel-events/over-mtu-drops', 'host', {
  ...hostEvent,
  kind: 'over-mtu',
  interfaceName: 'tap0e778df8-ca',
  count: 3,
  packetBytes: 8950,
  mtuBytes: 1450,
});

const bond = { bond: 'bond0', mode: '802.3ad' as const, members: 2 };
export const memberDown = typedFinding('bonding/member-down', 'bond0', { ...bond, member: 'eno2', membersUp: 1 });
export const memberSlower = typedFinding('bonding/member-slower', 'bond0', {
  ...bond,
  member: 'eno2',
  speedMbps: 10_000,
  fastestMbps: 25_000,
});
export const notAggregated = typedFinding('bonding/member-not-aggregated', 'bond0', {
  ...bond,
  member: 'enp7s0',
  aggregatorId: 1,
  activeAggregatorId: 2,
  churned: true,
  noPartner: false,
});
export const linkFailures = typedFinding('bonding/member-link-failures', 'bond0', { ...bond, member: 'eno2', linkFailures: 7 }, 'warning');
export const layer2Hash = typedFinding('bonding/layer2-hash', 'bond0', { ...bond, hashPolicy: 'layer2' }, 'info');

/** For each new rule: findings that fire it, and a near miss that must not. */
export const eventCases: Record<string, { fires: { findings: Finding[] }; quiet: { findings: Finding[] } }> = {
  'module-rejected': { fires: { findings: [moduleRejected] }, quiet: { findings: [linkFlapping] } },
  'tx-timeouts-resets': { fires: { findings: [txTimeouts] }, quiet: { findings: [firmwareEvents] } },
  'nic-firmware-events': { fires: { findings: [firmwareEvents] }, quiet: { findings: [txTimeouts] } },
  'pcie-aer-errors': { fires: { findings: [aerErrors] }, quiet: { findings: [txTimeouts] } },
  'link-flapping-events': { fires: { findings: [linkFlapping] }, quiet: { findings: [moduleRejected] } },
  'conntrack-table-full': { fires: { findings: [conntrackFull] }, quiet: { findings: [pageAllocation] } },
  'tcp-socket-memory-exhausted': { fires: { findings: [socketMemory] }, quiet: { findings: [conntrackFull] } },
  'rx-page-allocation-failures': { fires: { findings: [pageAllocation] }, quiet: { findings: [conntrackFull] } },
  'ovs-over-mtu-drops': { fires: { findings: [overMtu] }, quiet: { findings: [conntrackFull] } },
  'bond-member-down': { fires: { findings: [memberDown] }, quiet: { findings: [memberSlower] } },
  'bond-member-slower': { fires: { findings: [memberSlower] }, quiet: { findings: [memberDown] } },
  'bond-member-not-aggregated': { fires: { findings: [notAggregated] }, quiet: { findings: [layer2Hash] } },
  'bond-member-link-failures': { fires: { findings: [linkFailures] }, quiet: { findings: [notAggregated] } },
  'bond-layer2-hash': { fires: { findings: [layer2Hash] }, quiet: { findings: [linkFailures] } },
};
