import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import type { Bench } from '../report/schema.js';

/** What the bench measured; the `throughput` check judges it. */
export type BenchMeasurement = Omit<Bench, 'findings'>;

declare module '../contracts/facts.js' {
  interface FactTypes {
    'bench.result': BenchMeasurement;
  }
}

/**
 * The bench result is measured by the bench runner and handed to the fact store
 * (FactStore.provide); when no bench ran, this says how to run one.
 */
export const benchResultCollector = defineCollector({
  id: 'bench.result',
  scope: 'host',
  description: 'Result of the calibrated multi-process iperf3 bench (nicdoctor bench / scan --peer)',
  reads: {
    ask: null,
    never: {
      sosreport: 'measured by nicdoctor bench, not read from the host',
      script: 'measured by nicdoctor bench, not read from the host',
    },
  },
  async collect() {
    throw new FactCollectionError('not-found', 'no bench was run', 'add --peer HOST (nicdoctor serve on the far end) or --loopback');
  },
});
