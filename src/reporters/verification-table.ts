/**
 * The `verification` section of a report (fix --apply --verify) as rows every format prints:
 * each step's changes, the bench before and after (Gb/s with its spread, retransmits, CPU),
 * and the verdict with its reason.
 */
import type { Report } from '../report/schema.js';
import type { VerificationMeasurement } from '../report/verification-schema.js';

export interface VerificationTable {
  heading: string;
  columns: string[];
  rows: string[][];
  /** Why the loop stopped, what it left alone, what to install for the kept changes. */
  lines: string[];
}

const gbps = (bits: number) => (bits / 1e9).toFixed(2);

function rate(measurement: VerificationMeasurement | null): string {
  return measurement ? `${gbps(measurement.bitsPerSecond)} ± ${gbps(measurement.stdDevBitsPerSecond)} (${measurement.runs} runs)` : '—';
}

const retransmits = (measurement: VerificationMeasurement | null) => (measurement ? measurement.retransmits.toFixed(0) : '—');
const cpu = (measurement: VerificationMeasurement | null) =>
  measurement?.cpuPercent === null || measurement?.cpuPercent === undefined ? '—' : `${measurement.cpuPercent.toFixed(0)} %`;

export function verificationTable(report: Report): VerificationTable | null {
  const verification = report.verification;
  if (!verification) return null;
  const where =
    verification.mode === 'loopback'
      ? 'loopback'
      : `peer ${verification.peer}${verification.interface ? ` via ${verification.interface}` : ''}`;
  const heading = `Verified fixes: each step benched before and after against ${where}, ${verification.processes} process(es) x ${verification.streamsPerProcess} stream(s) x ${verification.durationSeconds} s per run; kept only when better than the measured noise${verification.keepAll ? ' (--keep-all: every step kept)' : ''}.`;
  const columns = ['#', 'change', 'before Gb/s', 'after Gb/s', 'retransmits', 'CPU', 'verdict', 'why'];
  const rows = verification.steps.map((step, index) => [
    String(index + 1),
    `${step.operations.join('; ')}${step.disruptive ? ' (disruptive)' : ''}`,
    rate(step.before),
    rate(step.after),
    `${retransmits(step.before)} → ${retransmits(step.after)}`,
    `${cpu(step.before)} → ${cpu(step.after)}`,
    step.verdict,
    step.reason,
  ]);
  const lines = [
    `${verification.complete ? 'Finished' : 'Stopped early'}: ${verification.stopReason}.`,
    ...(verification.final ? [`Now: ${rate(verification.final)} Gb/s.`] : []),
    ...verification.notes,
    ...verification.persistent.map((file) => `To keep the kept changes across reboots, install ${file.file} (content in the JSON report).`),
  ];
  return { heading, columns, rows, lines };
}

/** The terminal form (long and one-screen reports): one block per step. */
export function verificationLines(report: Report, paint: (color: 'bold' | 'green' | 'yellow' | 'red', text: string) => string): string[] {
  const table = verificationTable(report);
  if (!table) return [];
  const lines = ['', paint('bold', table.heading)];
  for (const [index, change, before, after, retransmits, cpu, verdict, why] of table.rows) {
    lines.push(`  ${index}. ${change}: ${paint(verdict === 'kept' ? 'green' : verdict === 'reverted' ? 'yellow' : 'red', verdict!)}`);
    lines.push(`     ${before} → ${after} Gb/s, retransmits ${retransmits}, CPU ${cpu}`);
    lines.push(`     ${why}`);
  }
  lines.push(...table.lines.map((line) => `  ${line}`));
  return lines;
}
