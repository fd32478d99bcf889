/** The before/after chart of `fix --apply --verify`: one pair of bars per step, kept steps outlined. */
import type { Verification } from '../report/verification-schema.js';
import type { ChartOutcome } from './bench-charts.js';
import { barChart } from './svg-charts.js';

const gb = (value: number) => String(Number(value.toFixed(value >= 10 ? 1 : 2)));

export function verificationChart(verification: Verification): ChartOutcome {
  const measured = verification.steps.filter((step) => step.before && step.after);
  if (measured.length === 0) return { svg: null, missing: 'No step was measured before and after.' };
  const bars = measured.flatMap((step, index) => [
    { label: `${index + 1} before`, value: step.before!.bitsPerSecond / 1e9 },
    { label: `${index + 1} after`, value: step.after!.bitsPerSecond / 1e9, marked: step.verdict === 'kept' },
  ]);
  const svg = barChart({
    id: 'chart-verification',
    title: 'Throughput before and after each fix',
    description: measured
      .map(
        (step, index) =>
          `step ${index + 1} (${step.operations.join('; ')}): ${gb(step.before!.bitsPerSecond / 1e9)} → ${gb(step.after!.bitsPerSecond / 1e9)} Gb/s, ${step.verdict}`,
      )
      .join('; '),
    xLabel: 'step',
    yLabel: 'Gb/s received (mean of runs)',
    bars,
    formatValue: gb,
    markedLabel: 'kept (measured better than the noise)',
  });
  return {
    svg,
    caption: 'Each pair is one step: the mean of the runs before the change and after it; outlined bars are the changes kept.',
  };
}
