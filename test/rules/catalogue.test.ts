import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { collectors } from '../../src/collectors/index.js';
import { references } from '../../src/rules/conditions.js';
import { ruleReferences } from '../../src/rules/engine.js';
import { bench, catalogue, run, type BenchInput, type Facts } from './helpers.js';
import * as x from './fixtures.js';
import { eventCases, txTimeouts } from './event-fixtures.js';

interface Case {
  findings: x.Finding[];
  facts?: Facts;
  bench?: BenchInput;
  physicalCores?: number;
}

/** For every rule: a small report that fires it, and a near miss that must not. */

/** A ticket whose poster says raising these settings cured it. */
function cured(...settings: Array<'backlog' | 'socketBuffers' | 'queues'>) {
  const settingCures = { backlog: false, socketBuffers: false, queues: false };
  for (const setting of settings) settingCures[setting] = true;
  return { findings: [], facts: { 'ticket.reports': { settingCures } } };
}

/** tcpdump's "truncated-ip - 7502 bytes missing! (..., length 9000)" on the receiver. */
const cut = { packets: 1, packetBytes: 9000, deliveredBytes: 1498, captureBytes: 262144 };
const slot = { lanes: 4, gen: 2, slotGbps: 16, portMbps: 40_000, line: 'Type: x4 PCI Express 2', interface: null };
const pinned = { tool: 'benchmark', cpu: 0, interface: null, linkMbps: 40000 };

const table: Record<string, { fires: Case; quiet: Case }> = {
  // Kernel-log events and bonds (rules/events.yaml).
  ...eventCases,
  'pcie-aspm-l1': { fires: { findings: [x.aspm, x.nicDrops] }, quiet: { findings: [x.aspm] } },
  'pcie-bandwidth-below-port': { fires: { findings: [x.pcieBelow] }, quiet: { findings: [x.pcieDowngraded] } },
  'pcie-slot-below-port-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { slotBelowPort: slot } } },
    // lspci's own link reading speaks instead (rule pcie-bandwidth-below-port).
    quiet: { findings: [x.pcieBelow], facts: { 'ticket.reports': { slotBelowPort: slot } } },
  },
  'pcie-upstream-port-limits': { fires: { findings: [x.upstream] }, quiet: { findings: [x.upstream, x.pcieBelow] } },
  'pcie-shared-link-below-ports': { fires: { findings: [x.shared] }, quiet: { findings: [x.pcieDowngraded] } },
  'pcie-link-downgraded': { fires: { findings: [x.pcieDowngraded] }, quiet: { findings: [x.upstream] } },
  'pcie-bound-measured': { fires: { findings: [x.pcieBound()], bench: {} }, quiet: { findings: [x.pcieBound(), x.pcieBelow], bench: {} } },
  'pcie-max-payload-small': { fires: { findings: [x.payload] }, quiet: { findings: [x.pcieDowngraded] } },
  'tool-single-threaded-version': { fires: { findings: [x.singleThreaded] }, quiet: { findings: [x.affinityThreads] } },
  'tool-single-core-bound': {
    fires: { findings: [x.singleCore], bench: {} },
    quiet: { findings: [x.singleCore], bench: {}, facts: { 'iperf3.version': { version: '3.17' } } },
  },
  'tool-affinity-threads': {
    fires: { findings: [x.singleCore], bench: {}, facts: { 'iperf3.version': { version: '3.17' } } },
    quiet: { findings: [x.singleCore], bench: {}, facts: { 'iperf3.version': { version: '3.12' } } },
  },
  'peer-iperf3-single-threaded': { fires: { findings: [], bench: { server: '3.12' } }, quiet: { findings: [], bench: { server: '3.16' } } },
  'harness-version-skew': { fires: { findings: [x.versionSkew], bench: {} }, quiet: { findings: [x.serverBusy], bench: {} } },
  'harness-server-busy': { fires: { findings: [x.serverBusy], bench: {} }, quiet: { findings: [x.versionSkew], bench: {} } },
  'rings-small-with-drops': { fires: { findings: [x.rxRingBelow, x.nicDrops] }, quiet: { findings: [x.rxRingBelow] } },
  'rings-below-max': { fires: { findings: [x.rxRingBelow] }, quiet: { findings: [x.rxRingBelow, x.nicDrops] } },
  'ring-max-small': { fires: { findings: [x.ringMaxSmall] }, quiet: { findings: [x.rxRingBelow] } },
  'nic-drops': { fires: { findings: [x.nicDrops] }, quiet: { findings: [x.nicDrops, x.rxRingBelow] } },
  'coalescing-per-packet': { fires: { findings: [x.perPacket] }, quiet: { findings: [x.adaptiveOn] } },
  'coalescing-profile-mismatch': { fires: { findings: [x.adaptiveOn] }, quiet: { findings: [x.perPacket] } },
  'offloads-off': { fires: { findings: [x.offloadOff()] }, quiet: { findings: [x.offloadOff('measurement')] } },
  'offloads-fixed-off': { fires: { findings: [x.offloadFixed] }, quiet: { findings: [x.offloadOff()] } },
  'transfer-stalled': {
    fires: { findings: [x.stalled], bench: {} },
    quiet: { findings: [x.stalled, txTimeouts], bench: {} },
  },
  'offload-collapse': { fires: { findings: [x.collapse], bench: {} }, quiet: { findings: [x.unstable], bench: {} } },
  'flow-control-cure-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { flowControlCured: true } } },
    quiet: { findings: [x.pauseOff], facts: { 'ticket.reports': { flowControlCured: true } } },
  },
  'mtu-path-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { mtuEvidence: true } } },
    // The cut frames tcpdump shows say it with numbers (rule frames-cut-in-path).
    quiet: { findings: [], facts: { 'ticket.reports': { mtuEvidence: true, framesCut: cut } } },
  },
  'frames-cut-in-path': {
    fires: { findings: [], facts: { 'ticket.reports': { framesCut: cut } } },
    quiet: { findings: [], facts: { 'ticket.reports': { framesCut: null, mtuEvidence: true } } },
  },
  'tool-at-one-core': {
    fires: { findings: [], facts: { 'ticket.reports': { toolAtOneCore: { tool: 'xdpdump', cpuPercent: 101 } } } },
    quiet: { findings: [x.singleThreaded], facts: { 'ticket.reports': { toolAtOneCore: { tool: 'iperf3', cpuPercent: 100 } } } },
  },
  'test-pinned-to-one-cpu': {
    fires: { findings: [], facts: { 'ticket.reports': { testPinnedToOneCpu: pinned } } },
    quiet: { findings: [x.singleThreaded], facts: { 'ticket.reports': { testPinnedToOneCpu: pinned } } },
  },
  'rx-drops-most-arrivals': { fires: { findings: [x.rxPathStuck] }, quiet: { findings: [x.nicDrops] } },
  'jumbo-transfer-never-starts': {
    fires: { findings: [x.stalledFromStart], bench: { mtu: 9000 } },
    quiet: { findings: [x.stalledFromStart], bench: { mtu: 9000 }, facts: { 'ticket.reports': { framesCut: cut } } },
  },
  'rx-queue-single-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { singleQueueReported: true } } },
    quiet: { findings: [x.queueImbalance], facts: { 'ticket.reports': { singleQueueReported: true } } },
  },
  'offload-effect-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { offloadEffectReported: true } } },
    quiet: { findings: [x.offloadOff()], facts: { 'ticket.reports': { offloadEffectReported: true } } },
  },
  'tool-slower-than-benchmark': {
    fires: { findings: [], facts: { 'ticket.reports': { benchOverIperf3: 12.9, benchTool: 'netperf' } } },
    quiet: { findings: [x.singleThreaded], facts: { 'ticket.reports': { benchOverIperf3: 12.9, benchTool: 'netperf' } } },
  },
  'cpu-frequency-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { cpuFrequencyEvidence: true } } },
    quiet: { findings: [], facts: { 'ticket.reports': { cpuFrequencyEvidence: false } } },
  },
  'flow-control-off': { fires: { findings: [x.pauseOff] }, quiet: { findings: [x.nicDrops] } },
  'link-below-capability': { fires: { findings: [x.belowCapability] }, quiet: { findings: [x.flapping] } },
  'irq-concentration-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { interruptsOnOneCpuReported: true } } },
    quiet: { findings: [x.queueImbalance], facts: { 'ticket.reports': { interruptsOnOneCpuReported: true } } },
  },
  'backlog-cure-reported': { fires: cured('backlog'), quiet: cured('socketBuffers', 'queues') },
  'socket-buffer-cure-reported': { fires: cured('socketBuffers'), quiet: cured('backlog') },
  'queue-cure-reported': { fires: cured('queues'), quiet: cured('backlog') },
  'rings-cure-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { ringCure: { interfaces: [] } } } },
    quiet: { findings: [x.rxRingBelow], facts: { 'ticket.reports': { ringCure: { interfaces: [] } } } },
  },
  'link-flapping-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { linkFlapping: { interface: null } } } },
    quiet: { findings: [x.flapping], facts: { 'ticket.reports': { linkFlapping: { interface: null } } } },
  },
  'link-downshift-reported': {
    fires: { findings: [], facts: { 'ticket.reports': { linkDownshift: { negotiatedMbps: 1000, capableMbps: 2500 } } } },
    quiet: { findings: [x.belowCapability], facts: { 'ticket.reports': { linkDownshift: { negotiatedMbps: 1000, capableMbps: 2500 } } } },
  },
  'egress-shaped-below-link': { fires: { findings: [x.egressShaped()] }, quiet: { findings: [x.qdiscDrops] } },
  'link-physical-errors': { fires: { findings: [x.physicalErrors] }, quiet: { findings: [x.belowCapability] } },
  'numa-irqs-off-node': { fires: { findings: [x.irqsOffNode] }, quiet: { findings: [x.irqsOneCpu] } },
  'numa-node-memoryless': { fires: { findings: [x.numaMemoryless] }, quiet: { findings: [x.numaNode] } },
  'numa-node-unknown': { fires: { findings: [x.numaUnknown] }, quiet: { findings: [x.numaNode] } },
  'irq-concentration': { fires: { findings: [x.concentration] }, quiet: { findings: [x.irqsOffNode] } },
  'irqbalance-conflict': { fires: { findings: [x.irqbalanceOverrides] }, quiet: { findings: [x.irqsOneCpu] } },
  'rss-single-queue': { fires: { findings: [x.allToOne] }, quiet: { findings: [x.queuesBelowMax] } },
  'rss-queues-below-max': { fires: { findings: [x.queuesBelowMax] }, quiet: { findings: [x.queuesBelowMax, x.singleQueue] } },
  'cpu-governor': { fires: { findings: [x.governor] }, quiet: { findings: [x.freqBelowMax] } },
  'cpu-frequency-capped': { fires: { findings: [x.freqCapped] }, quiet: { findings: [x.governor] } },
  'smt-oversubscribed': {
    fires: { findings: [x.smt], bench: { processes: 12 }, physicalCores: 8 },
    quiet: { findings: [x.smt], bench: { processes: 4 }, physicalCores: 8 },
  },
  'smt-active': { fires: { findings: [x.smt] }, quiet: { findings: [x.smt], bench: { processes: 12 }, physicalCores: 8 } },
  'rx-queue-imbalance': { fires: { findings: [x.queueImbalance] }, quiet: { findings: [x.queuesBelowMax] } },
  'udp-socket-buffer-drops': { fires: { findings: [x.udpBufferErrors] }, quiet: { findings: [x.listenDrops] } },
  'tcp-retransmits-since-boot': { fires: { findings: [x.tcpRetransmits] }, quiet: { findings: [x.socketBacklog] } },
  'socket-backlog-drops': { fires: { findings: [x.socketBacklog] }, quiet: { findings: [x.tcpRetransmits] } },
  'softnet-backlog-drops': { fires: { findings: [x.backlogDrops] }, quiet: { findings: [x.budgetExhausted] } },
  'softnet-budget-exhausted': { fires: { findings: [x.budgetExhausted] }, quiet: { findings: [x.backlogDrops] } },
  'socket-buffers-small': { fires: { findings: [x.tcpRmem] }, quiet: { findings: [x.windowScalingOff] } },
  'window-scaling-off': { fires: { findings: [x.windowScalingOff] }, quiet: { findings: [x.rmemMax] } },
  'mtu-standard-fast-link': { fires: { findings: [x.standardMtu] }, quiet: { findings: [x.mtuBelowStandard] } },
  'mtu-below-standard': { fires: { findings: [x.mtuBelowStandard] }, quiet: { findings: [x.standardMtu] } },
  'mtu-mismatch': { fires: { findings: [x.bondMismatch] }, quiet: { findings: [x.mtuProbingOff] } },
  'mtu-probing-off': { fires: { findings: [x.mtuProbingOff] }, quiet: { findings: [x.standardMtu] } },
  'unpaced-streams-retransmits': {
    fires: { findings: [x.retransmits, x.qdiscNotFq], bench: {} },
    quiet: { findings: [x.retransmits, x.qdiscNotFq, x.nicDrops], bench: {} },
  },
  'retransmits-reordered': { fires: { findings: [x.retransmitsReordered], bench: {} }, quiet: { findings: [x.retransmits], bench: {} } },
  'retransmits-path-loss': { fires: { findings: [x.retransmits], bench: {} }, quiet: { findings: [x.retransmits, x.pauseOff], bench: {} } },
  'link-speed-nominal': { fires: { findings: [x.exceedsLinkSpeed], bench: {} }, quiet: { findings: [x.atCeiling], bench: {} } },
  'not-the-network': { fires: { findings: [x.atCeiling], bench: {} }, quiet: { findings: [x.below(8.9)], bench: {} } },
  'chronic-6-7-on-10g': {
    fires: { findings: [x.below(6.5)], bench: { resultGbps: 6.5 } },
    quiet: { findings: [x.below(6.5), x.offloadOff()], bench: { resultGbps: 6.5 } },
  },
  'plateau-near-3-5-on-10g': {
    fires: { findings: [x.below(3.5)], bench: { resultGbps: 3.5 } },
    quiet: { findings: [x.below(3.5), x.pcieBelow], bench: { resultGbps: 3.5 } },
  },
  'fast-link-plateau': {
    fires: { findings: [x.below(28, { linkGbps: 40, ceilingGbps: 37.7, percent: 74 })], bench: { resultGbps: 28, linkMbps: 40_000 } },
    quiet: {
      findings: [x.below(28, { linkGbps: 40, ceilingGbps: 37.7, percent: 74 }), x.pcieBound(28, 31.5)],
      bench: { resultGbps: 28, linkMbps: 40_000 },
    },
  },
  'multi-process-sum-below': {
    fires: { findings: [x.below(8.1)], bench: { resultGbps: 8.1, processes: 4 } },
    quiet: { findings: [x.below(8.1)], bench: { resultGbps: 8.1, processes: 1 } },
  },
  'results-fluctuate': { fires: { findings: [x.unstable], bench: {} }, quiet: { findings: [x.collapse], bench: {} } },
  'bidir-asymmetry': { fires: { findings: [x.bidir], bench: {} }, quiet: { findings: [x.unstable], bench: {} } },
  'optical-receive-power-out-of-range': { fires: { findings: [x.rxNoLight] }, quiet: { findings: [x.moduleHot] } },
  'optical-module-out-of-range': { fires: { findings: [x.moduleHot] }, quiet: { findings: [x.rxNoLight] } },
  'optical-module-slower-than-port': { fires: { findings: [x.moduleSlower] }, quiet: { findings: [x.rxNoLight] } },
  'listen-queue-overflows': { fires: { findings: [x.listenOverflows] }, quiet: { findings: [x.socketBacklog] } },
  'socket-memory-exhausted': { fires: { findings: [x.socketMemoryPressure] }, quiet: { findings: [x.listenOverflows] } },
  'conntrack-table-near-full': { fires: { findings: [x.conntrackFull] }, quiet: { findings: [x.socketMemoryPressure] } },
  'mbuf-pool-exhausted': { fires: { findings: [x.mbufPoolFull] }, quiet: { findings: [x.mbufsDenied] } },
  'mbuf-requests-denied': { fires: { findings: [x.mbufsDenied] }, quiet: { findings: [x.mbufPoolFull] } },
  'corrupted-packets-received': { fires: { findings: [x.checksumErrors] }, quiet: { findings: [x.zeroWindow] } },
  'receivers-not-reading': { fires: { findings: [x.zeroWindow] }, quiet: { findings: [x.checksumErrors] } },
  'sysctl-differs-from-disk': { fires: { findings: [x.sysctlDiffers] }, quiet: { findings: [x.conntrackFull] } },
};

function diagnosesOf(input: Case) {
  return run({
    findings: input.findings,
    ...(input.facts ? { facts: input.facts } : {}),
    ...(input.bench ? { bench: bench(input.bench) } : {}),
    ...(input.physicalCores ? { physicalCores: input.physicalCores } : {}),
  });
}

describe('the catalogue: every rule fires on its evidence and not on a near miss', () => {
  it('has a case for every rule, and no case for a rule that does not exist', () => {
    expect(Object.keys(table).sort()).toEqual(catalogue.map((rule) => rule.id).sort());
  });

  it.each(catalogue.map((rule) => [rule.id] as const))('%s', (id) => {
    const cases = table[id]!;
    const fired = diagnosesOf(cases.fires).filter((diagnosis) => diagnosis.ruleId === id);
    expect(fired.length, `${id} should fire`).toBeGreaterThan(0);
    for (const diagnosis of fired) {
      // Rendered with real values: no placeholder survives anywhere.
      expect(diagnosis.explanation).not.toMatch(/\{[A-Za-z][\w./-]*\}/);
      expect(diagnosis.explanation.length).toBeGreaterThan(20);
      for (const fix of diagnosis.fixes) {
        expect(fix.text).not.toMatch(/\{[A-Za-z][\w./-]*\}/);
        for (const command of fix.commands) expect(command).not.toMatch(/\{[A-Za-z][\w./-]*\}/);
        if (fix.persistent) expect(fix.persistent.content + fix.persistent.file).not.toMatch(/\{[A-Za-z][\w./-]*\}/);
      }
      for (const line of diagnosis.ruledOut) expect(line).not.toMatch(/\{[A-Za-z][\w./-]*\}/);
      expect(diagnosis.evidence.length).toBeGreaterThan(0);
    }
    expect(
      diagnosesOf(cases.quiet).map((diagnosis) => diagnosis.ruleId),
      `${id} should not fire`,
    ).not.toContain(id);
  });
});

describe('conformance: rules reference what the checks and collectors declare', () => {
  const declared = new Set(checks.flatMap((check) => Object.keys(check.symptoms).map((symptom) => `${check.id}/${symptom}`)));
  const factIds = new Set(collectors.map((collector) => collector.id));
  const checkIds = new Set(checks.map((check) => check.id));

  it.each(catalogue.map((rule) => [rule.id, rule] as const))('%s uses declared symptoms, facts and checks', (_, rule) => {
    const refs = ruleReferences(rule);
    for (const symptom of refs.symptoms)
      expect(declared, `${rule.file}: rule ${rule.id} uses ${symptom}, which no check declares`).toContain(symptom);
    for (const fact of refs.facts)
      expect(factIds, `${rule.file}: rule ${rule.id} reads fact ${fact}, which no collector provides`).toContain(fact);
    for (const check of refs.checks) expect(checkIds, `${rule.file}: rule ${rule.id} names check ${check}`).toContain(check);
  });

  it('has at least one rule for every cause 1–20 of CAUSES.md', () => {
    const causes = new Set(catalogue.map((rule) => rule.cause));
    for (let cause = 1; cause <= 20; cause += 1) expect(causes, `no rule for cause ${cause}`).toContain(cause);
  });

  it('fires on every bench symptom of the throughput check', () => {
    const used = new Set<string>();
    for (const rule of catalogue) {
      const refs = { symptoms: new Set<string>(), facts: new Set<string>(), checks: new Set<string>() };
      references(rule.when, refs);
      for (const symptom of refs.symptoms) used.add(symptom);
    }
    const throughput = checks.find((check) => check.id === 'throughput')!;
    for (const symptom of Object.keys(throughput.symptoms))
      expect(used, `no rule fires on throughput/${symptom}`).toContain(`throughput/${symptom}`);
  });
});
