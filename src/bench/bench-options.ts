import type { Logger } from 'pino';
import type { FactStore } from '../contracts/collector.js';
import type { HostIO } from '../hostio/types.js';
import type { Direction } from './iperf3-client.js';

export interface BenchOptions {
  io: HostIO;
  log: Logger;
  /** Facts already collected by the scan the bench runs in (reused for the plan). */
  store: FactStore;
  /**
   * A new, empty fact store over the same host, for the counters read before and after the
   * traffic (nothing memoised between the two readings). The pipeline owns the collector
   * registry; the bench only asks for facts.
   */
  freshStore: () => FactStore;
  peer: string | null; // null = loopback
  ports: number[];
  controlPort: number;
  durationSeconds: number;
  stepSeconds: number;
  omitSeconds: number;
  maxProcesses?: number;
  direction: Direction;
  udpRate?: string;
  /** Overrides the link speed used for the goodput ceiling (e.g. a tbf-capped lab link). */
  linkSpeedMbps?: number;
  onProgress?: (text: string) => void;
}

export const LOOPBACK = '127.0.0.1';
