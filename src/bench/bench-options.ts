import type { Logger } from 'pino';
import type { FactStore } from '../engine/collector.js';
import type { HostIO } from '../hostio/types.js';
import type { Direction } from './iperf3-client.js';

export interface BenchOptions {
  io: HostIO;
  log: Logger;
  /** Facts already collected by a scan (reused); a fresh store otherwise. */
  store?: FactStore;
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
