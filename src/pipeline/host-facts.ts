import type { Logger } from 'pino';
import { collectors } from '../collectors/index.js';
import { FactStore } from '../contracts/collector.js';
import type { HostIO } from '../hostio/types.js';

/**
 * A fact store over every registered collector. Only the pipeline knows the registry: the bench
 * and `serve` ask for facts through a store they are given.
 */
export function hostFactStore(io: HostIO, log: Logger): FactStore {
  return new FactStore(io, collectors, log);
}
