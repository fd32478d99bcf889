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

export function hostLine(report: Report): string {
  const host = report.host;
  const virt = host.virtualization ? `, ${host.virtualization}` : '';
  return `${host.hostname} — ${host.os}, kernel ${host.kernel}, ${host.cpuModel}, ${host.logicalCpus} CPUs${virt}${host.root ? '' : ', not root'}`;
}

export function interfaceLine(iface: Report['interfaces'][number]): string {
  const parts: string[] = [iface.kind];
  if (iface.driver) parts.push(iface.driver);
  if (iface.pciAddress) parts.push(iface.pciAddress);
  parts.push(iface.speedMbps ? `${iface.speedMbps} Mb/s` : 'speed unknown');
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
