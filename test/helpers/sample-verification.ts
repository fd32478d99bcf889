/** A verification record as `fix --apply --verify` writes it: one step reverted, one kept. */
import type { Verification, VerificationMeasurement } from '../../src/report/verification-schema.js';

const GBIT = 1e9;

function measured(samples: number[], retransmits: number, cpuPercent: number): VerificationMeasurement {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const stdDev = Math.sqrt(samples.reduce((total, value) => total + (value - mean) ** 2, 0) / (samples.length - 1));
  return {
    runs: samples.length,
    bitsPerSecond: mean * GBIT,
    stdDevBitsPerSecond: stdDev * GBIT,
    samplesBitsPerSecond: samples.map((value) => value * GBIT),
    retransmits,
    cpuPercent,
  };
}

export function sampleVerification(): Verification {
  const baseline = measured([2.8, 2.6, 3.0], 29, 14);
  const channels = measured([2.7, 2.9, 2.6], 47, 11);
  const offloads = measured([6.4, 6.1, 6.6], 3, 18);
  return {
    mode: 'peer',
    peer: '10.0.0.2',
    interface: 'enp65s0f0',
    processes: 2,
    streamsPerProcess: 1,
    durationSeconds: 5,
    ceilingBitsPerSecond: 9.41 * GBIT,
    keepAll: false,
    allowDisruptive: false,
    steps: [
      {
        ruleId: 'rss-single-queue',
        operations: ['ethtool -L enp65s0f0 rx 2 tx 2'],
        disruptive: false,
        before: baseline,
        after: channels,
        differenceBitsPerSecond: channels.bitsPerSecond - baseline.bitsPerSecond,
        marginBitsPerSecond: 0.5 * GBIT,
        outcome: 'same',
        verdict: 'reverted',
        reason: 'no gain beyond the noise: throughput −0.07 Gb/s (the noise allows ±0.50 Gb/s)',
      },
      {
        ruleId: 'offloads-off',
        operations: ['ethtool -K enp65s0f0 tso on gso on'],
        disruptive: false,
        before: baseline,
        after: offloads,
        differenceBitsPerSecond: offloads.bitsPerSecond - baseline.bitsPerSecond,
        marginBitsPerSecond: 0.6 * GBIT,
        outcome: 'better',
        verdict: 'kept',
        reason: 'throughput +3.57 Gb/s, beyond the noise (the noise allows ±0.60 Gb/s)',
      },
    ],
    final: offloads,
    stopReason: 'every step was measured',
    complete: true,
    notes: [
      'not applied: ethtool -G enp65s0f0 rx 4096 tx 4096 (rings-below-max): disruptive (the link may reset); --allow-disruptive runs it',
    ],
    persistent: [
      {
        file: '/etc/systemd/network/10-nicdoctor-enp65s0f0.link',
        content: '[Match]\nOriginalName=enp65s0f0\n[Link]\nTCPSegmentationOffload=yes\n',
      },
    ],
  };
}
