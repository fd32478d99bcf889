import type { TicketReports } from '../../src/collectors/ticket-reports.js';

/** A ticket that reports nothing, with the fields a test sets. */
export function ticketReports(over: Partial<TicketReports> = {}): TicketReports {
  return {
    iperf3BestMbps: null,
    iperf2BestMbps: null,
    iperf2Faster: false,
    statedLinkMbps: null,
    flowControlCured: false,
    mtuEvidence: false,
    framesCut: null,
    toolAtOneCore: null,
    testPinnedToOneCpu: null,
    slotBelowPort: null,
    triedWithoutEffect: { offloads: false, rings: false, flowControl: false, mtu: false },
    cpuFrequencyEvidence: false,
    singleQueueReported: false,
    offloadEffectReported: false,
    offloadEffectInterface: null,
    interruptsOnOneCpuReported: false,
    interruptsOnOneCpuInterface: null,
    linkDownshift: null,
    linkFlapping: null,
    ringCure: null,
    settingCures: { backlog: false, socketBuffers: false, queues: false },
    logRepeatsReported: false,
    benchBestMbps: null,
    benchTool: null,
    benchOverIperf3: null,
    ...over,
  };
}
