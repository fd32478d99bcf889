import type { AnyCheck } from '../src/engine/check.js';
import mtu from './mtu.js';

/**
 * The check registry, in report order: cheap local checks first. One line per check; the
 * conformance test verifies that every file in checks/ is listed and has a test.
 */
export const checks: readonly AnyCheck[] = [
  mtu,
];
