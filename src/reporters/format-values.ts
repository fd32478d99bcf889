import type { CheckResult, Evidence, Report, Source } from '../report/schema.js';

export function formatSource(source: Source | undefined): string {
  if (!source) return '';
  switch (source.kind) {
    case 'file':
      return source.path;
    case 'command':
      return source.argv.join(' ');
    case 'inventory':
      return `inventory: ${source.field}`;
  }
}

export function formatValue(value: Evidence['observed'] | undefined, unit?: string): string {
  if (value === undefined) return '';
  if (value === null) return 'n/a';
  return unit ? `${value} ${unit}` : String(value);
}

export function formatEvidence(evidence: Evidence): string {
  const expected = evidence.expected !== undefined ? ` (expected ${formatValue(evidence.expected, evidence.unit)})` : '';
  return `${evidence.label}: ${formatValue(evidence.observed, evidence.unit)}${expected}`;
}

export const STATUS_LABEL: Record<CheckResult['status'], string> = {
  pass: 'pass',
  fail: 'fail',
  'not-applicable': 'n/a',
  unknown: 'unknown',
  error: 'error',
};

/** What a capture does not say is left out, never printed as "unknown" or "0 CPUs". */
const known = (value: string | null | undefined): value is string => !!value && value !== 'unknown';

export function hostLine(report: Report): string {
  const host = report.host;
  const parts = [
    known(host.os) ? host.os : null,
    known(host.kernel) ? `kernel ${host.kernel}` : null,
    known(host.cpuModel) ? host.cpuModel : null,
    host.logicalCpus > 0 ? `${host.logicalCpus} CPUs` : null,
    host.virtualization ?? null,
    host.root ? null : 'not root',
  ].filter((part): part is string => part !== null);
  const name = known(host.hostname) ? host.hostname : 'host name not shown';
  return parts.length ? `${name} — ${parts.join(', ')}` : `${name} — OS, kernel and CPUs not shown`;
}

export function interfaceLine(iface: Report['interfaces'][number]): string {
  const parts: string[] = [iface.kind];
  if (iface.driver) parts.push(iface.driver);
  if (iface.pciAddress) parts.push(iface.pciAddress);
  // A speed a capture did not read from sysfs or ethtool says where it came from: "25000 Mb/s (kernel log)".
  const derived = iface.speedSource && !['sysfs', 'ethtool'].includes(iface.speedSource) ? ` (${iface.speedSource})` : '';
  parts.push(iface.speedMbps ? `${iface.speedMbps} Mb/s${derived}` : 'speed unknown');
  if (iface.mtu !== null) parts.push(`MTU ${iface.mtu}`);
  if (iface.operstate) parts.push(iface.operstate);
  if (iface.numaNode !== null) parts.push(`NUMA ${iface.numaNode}`);
  if (iface.master) parts.push(`member of ${iface.master}`);
  return `${iface.name} (${parts.join(', ')})`;
}

export function summaryLine(report: Report): string {
  const s = report.summary;
  return `${s.pass} passed, ${s.fail} failed, ${s.unknown} unknown, ${s.notApplicable} not applicable, ${s.error} errors — findings: ${s.critical} critical, ${s.warning} warning, ${s.info} info`;
}

const gbps = (bps: number | null) => (bps === null ? 'n/a' : `${(bps / 1e9).toFixed(2)} Gb/s`);

export interface BenchTable {
  heading: string;
  columns: string[];
  rows: string[][];
  result: string[];
}

/** The bench's ramp and result as a table, shared by the terminal and Markdown reporters. */
export function benchTable(report: Report): BenchTable | null {
  const bench = report.bench;
  if (!bench) return null;
  const where =
    bench.mode === 'loopback'
      ? "loopback (127.0.0.1): this host's memory-to-memory ceiling"
      : `peer ${bench.peer}${bench.interface ? ` via ${bench.interface}` : ''}`;
  const versions = `iperf3 ${bench.iperf3.client ?? '?'}${bench.iperf3.server && bench.iperf3.server !== bench.iperf3.client ? ` / server ${bench.iperf3.server}` : ''}`;
  const rows = bench.steps.map((step) => {
    const cpus = step.perProcess.map((p) =>
      (p.measuredCpuPercent ?? p.hostCpuPercent) === null
        ? '?'
        : `${Math.round((p.measuredCpuPercent ?? p.hostCpuPercent)!)}%${p.cpuQuotaPercent !== null ? `/${Math.round(p.cpuQuotaPercent)}%` : ''}`,
    );
    return [String(step.processes), String(step.streamsPerProcess), gbps(step.bitsPerSecond), String(step.retransmits), cpus.join(' ')];
  });
  const result: string[] = [];
  if (bench.result) {
    result.push(
      `Result: ${gbps(bench.result.bitsPerSecond)} received (${gbps(bench.result.senderBitsPerSecond)} sent) with ${bench.result.processes} process(es) x ${bench.result.streamsPerProcess} stream(s) over ${bench.result.durationSeconds} s, ${bench.result.retransmits} retransmits`,
    );
    if (bench.result.reverseBitsPerSecond !== null) result.push(`Reverse direction: ${gbps(bench.result.reverseBitsPerSecond)}`);
  }
  if (bench.ceilingBitsPerSecond !== null)
    result.push(`Link goodput ceiling: ${gbps(bench.ceilingBitsPerSecond)} (${bench.linkSpeedMbps} Mb/s, MTU ${bench.mtu ?? 1500})`);
  if (bench.pcieBitsPerSecond !== null) result.push(`PCIe budget: ${gbps(bench.pcieBitsPerSecond)}`);
  if (bench.stopReason) result.push(`Ramp stopped: ${bench.stopReason}`);
  if (!bench.complete) result.push(`INCOMPLETE: ${bench.error ?? 'stopped early'} (partial results above)`);
  return {
    heading: `Bench: ${where}, ${bench.direction}, ${bench.protocol.toUpperCase()}, ${versions}`,
    columns: ['processes', 'streams', 'received', 'retransmits', 'CPU per process (of one core / quota)'],
    rows,
    result,
  };
}

export type Diagnosis = Report['diagnoses'][number];

/** "confirmed by the bench", "static: predicted from facts", ... */
export function diagnosisModeLabel(diagnosis: Diagnosis): string {
  switch (diagnosis.mode) {
    case 'confirmed':
      return 'confirmed by the bench';
    case 'not-confirmed':
      return 'not confirmed by the bench';
    case 'static':
      return 'predicted (no bench run)';
    case 'refuted':
      return 'refuted by the bench';
  }
}

export function diagnosisHeading(diagnosis: Diagnosis, rank: number): string {
  return `${rank}. ${diagnosis.title} — ${diagnosis.subject}, cause ${diagnosis.cause}, ${diagnosis.confidence} confidence, ${diagnosisModeLabel(diagnosis)}`;
}

/** One line per note: low-confidence causes, then info findings no note already covers (all of them with `all`). */
export function noteLines(report: Report, all: boolean): string[] {
  const lines = report.notes.map((note) => `${note.title} (${note.subject}): ${note.explanation}`);
  if (all) return lines;
  const covered = new Set(
    report.notes.flatMap((note) =>
      note.evidence.flatMap((item) => ('check' in item ? [`${item.check}/${item.symptom}@${item.subject}`] : [])),
    ),
  );
  for (const finding of report.checks.flatMap((check) => check.findings)) {
    if (finding.severity !== 'info' || covered.has(`${finding.check}/${finding.symptom}@${finding.subject}`)) continue;
    lines.push(`${finding.subject === 'host' ? '' : `${finding.subject}: `}${finding.message}`.replace(/^(\S+): \1 /, '$1 '));
  }
  return lines;
}
