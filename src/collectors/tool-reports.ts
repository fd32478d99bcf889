import { defineCollector } from '../engine/collector.js';
import { FactCollectionError } from '../engine/facts.js';

/**
 * What a pasted ticket reports of its own throughput tests: the best iperf3 rate (its pasted runs
 * or its words), the best iperf 2 rate, whether the poster says iperf 2 goes faster, and the link
 * speed the text states. The `iperf3` check reads it to tell a single-threaded iperf3 that is the
 * ceiling from one that is only a note.
 */
export interface ToolReports {
  iperf3BestMbps: number | null;
  iperf2BestMbps: number | null;
  iperf2Faster: boolean;
  /** The link speed the text states ("10GbE", "a 40G network"), null when it states none. */
  statedLinkMbps: number | null;
}

declare module '../engine/facts.js' {
  interface FactTypes {
    'tool.reports': ToolReports;
  }
}

/** Provided by text analysis (FactStore.provide); a live host or a capture has no ticket to read. */
export const toolReportsCollector = defineCollector({
  id: 'tool.reports',
  scope: 'host',
  description: 'Throughput a pasted ticket reports for iperf3 and iperf 2, and the link speed it states (text input only)',
  async collect() {
    throw new FactCollectionError('not-found', 'no ticket text: test results are only read from pasted text');
  },
});
