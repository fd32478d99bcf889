import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import type { SettingCure, TriedSetting } from '../parsers/prose-remedies.js';
import type { StatedDownshift } from '../parsers/prose-symptoms.js';
import type { FramesCut } from '../parsers/tcpdump-truncation.js';
import type { ToolAtOneCore } from '../parsers/process-cpu.js';
import type { PinnedTest } from '../parsers/cpu-pinning.js';
import type { SlotLimit } from '../parsers/pcie-slot.js';

/**
 * What a pasted ticket reports in its own words and runs: the best iperf3 rate (its pasted runs
 * or its words), the best iperf 2 rate, whether the poster says iperf 2 goes faster, the link
 * speed the text states, and the change the poster says cured the problem. The `iperf3` check
 * reads it to tell a single-threaded iperf3 that is the ceiling from one that is only a note;
 * `flow-control` and its rules read what the poster says turning pause frames on did.
 */
export interface TicketReports {
  iperf3BestMbps: number | null;
  iperf2BestMbps: number | null;
  iperf2Faster: boolean;
  /** The best rate the text gives another benchmark with one thread or process per stream (netperf, nuttcp), and its name. */
  benchBestMbps: number | null;
  benchTool: string | null;
  /** That benchmark's best rate over iperf3's on the same hosts; null when the text lacks either. */
  benchOverIperf3: number | null;
  /** The link speed the text states ("10GbE", "a 40G network"), null when it states none. */
  statedLinkMbps: number | null;
  /** The poster says turning flow control (pause frames) on cured the problem. */
  flowControlCured: boolean;
  /** The poster's words point at the frame size: an MTU or MSS change cured it, or jumbo frames do not pass. */
  mtuEvidence: boolean;
  /** The settings the poster says they changed as a test that moved nothing ("tried disabling TSO ..., but no luck"). */
  triedWithoutEffect: Record<TriedSetting, boolean>;
  /** A test or capture tool a pasted pidstat or top table shows at one core's worth of CPU (null: none shown). */
  toolAtOneCore: ToolAtOneCore | null;
  /**
   * The text's test command confined to one CPU (`taskset -c 0 ...`) on a link of 10G or more
   * (`linkMbps`, stated or shown), when no rate in the text reaches 60 % of that link; null otherwise.
   */
  testPinnedToOneCpu: (PinnedTest & { linkMbps: number }) | null;
  /**
   * The PCIe slot the ticket says the NIC sits in (`dmidecode -t slot`, "a PCIe 2.0 x4 slot") carries
   * less than the port's speed; `interface` is the text's only one (null: several or none).
   */
  slotBelowPort: (SlotLimit & { interface: string | null }) | null;
  /** A pasted tcpdump run shows packets that arrived cut short on the path (null: none shown). */
  framesCut: FramesCut | null;
  /** The poster's words point at CPU power management: faster with the CPUs kept busy, or a governor change cured it. */
  cpuFrequencyEvidence: boolean;
  /** The poster says every received packet lands on one receive queue. */
  singleQueueReported: boolean;
  /** The poster's own test: turning an offload (scatter-gather, TSO/GSO, checksums) on or off moved the throughput a lot. */
  offloadEffectReported: boolean;
  /** The interface that test was on: the text's only interface; null when it shows several or none. */
  offloadEffectInterface: string | null;
  /** The poster says the receive interrupts or softirq work land on one CPU ("all NIC interrupts on cpu0", "ksoftirqd/3 at 100 %"). */
  interruptsOnOneCpuReported: boolean;
  /** The interface those words are about: the text's only interface; null when it shows several or none. */
  interruptsOnOneCpuInterface: string | null;
  /** The settings the poster says raising cured it: the input backlog, socket buffers, receive queues. */
  settingCures: Record<SettingCure, boolean>;
  /** The poster says raising the rings cured it, with the interfaces its `ethtool -G` commands name (empty: the host's); null when not said. */
  ringCure: { interfaces: string[] } | null;
  /** The poster says the logged messages keep coming ("huge amount of AER error spam"): the pasted lines are an excerpt. */
  logRepeatsReported: boolean;
  /** The poster says the link goes down and comes back (flaps), about `interface` when the text shows exactly one; null when not said. */
  linkFlapping: { interface: string | null } | null;
  /**
   * The poster says the link comes up below what the port or its partner can do (negotiated and
   * capable Mb/s), about `interface` when the text shows exactly one; null when not said.
   */
  linkDownshift: (StatedDownshift & { interface: string | null }) | null;
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'ticket.reports': TicketReports;
  }
}

/** Provided by text analysis (FactStore.provide); a live host or a capture has no ticket to read. */
export const ticketReportsCollector = defineCollector({
  id: 'ticket.reports',
  scope: 'host',
  description:
    'What a pasted ticket reports: iperf3 and iperf 2 rates, the link speed it states, the change that cured it (text input only)',
  reads: {
    ask: null,
    never: {
      sosreport: 'what a ticket reports in words or pasted runs: only pasted text has it',
      script: 'what a ticket reports in words or pasted runs: only pasted text has it',
    },
  },
  async collect() {
    throw new FactCollectionError('not-found', 'no ticket text: test results are only read from pasted text');
  },
});
