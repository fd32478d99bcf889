import type { Collector } from '../engine/collector.js';
import { interfacesCollector } from './interfaces.js';
import { netDeviceCollector } from './net-device.js';

/** Every fact collector. One line per collector; the conformance test checks that each is used. */
export const collectors: readonly Collector[] = [
  interfacesCollector,
  netDeviceCollector,
] as Collector[];
