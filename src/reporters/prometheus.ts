import type { PolicyResult } from '../policy/evaluate.js';
import { checkStatusSchema, severitySchema, type Report } from '../report/schema.js';

/**
 * node_exporter textfile-collector metrics (Prometheus text exposition format 0.0.4): write the
 * output to <collector.textfile.directory>/nicdoctor.prom (atomically: the collector may read at
 * any moment). No sample timestamps: the textfile collector rejects them. Pure.
 */

type Labels = Record<string, string>;
interface Family {
  name: string;
  help: string;
  samples: Array<{ labels: Labels; value: number }>;
}

/** Label values: backslash, double quote and newline escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function renderFamily(family: Family): string[] {
  if (family.samples.length === 0) return [];
  const lines = [`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} gauge`];
  const seen = new Set<string>();
  for (const sample of family.samples) {
    const labels = Object.entries(sample.labels)
      .map(([key, value]) => `${key}="${escapeLabelValue(value)}"`)
      .join(',');
    const line = `${family.name}${labels ? `{${labels}}` : ''} ${formatNumber(sample.value)}`;
    // Two identical series make the whole file unreadable for node_exporter: keep the first.
    const key = line.slice(0, line.lastIndexOf(' '));
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(line);
  }
  return lines;
}

export function renderPrometheus(report: Report, policy?: PolicyResult): string {
  const families: Family[] = [];
  const add = (name: string, help: string, samples: Family['samples']) => families.push({ name: `nicdoctor_${name}`, help, samples });

  add('info', 'nicdoctor version and scan parameters (always 1).', [
    {
      labels: {
        version: report.tool.version,
        profile: report.profile,
        hostname: report.host.hostname,
        kernel: report.host.kernel,
        source: report.source.mode,
      },
      value: 1,
    },
  ]);
  add('scan_timestamp_seconds', 'When the report was generated, in seconds since the Unix epoch.', [
    { labels: {}, value: Date.parse(report.generatedAt) / 1000 },
  ]);
  add('scan_duration_seconds', 'How long the scan took.', [{ labels: {}, value: report.durationMs / 1000 }]);

  // A state set: one series per possible state, 1 for the current one, so alerts can match on status="fail".
  add(
    'check_status',
    'State of each check per subject (interface or host): 1 for its current status, 0 for the others.',
    report.checks.flatMap((check) => {
      const subjects = check.subjects.length ? check.subjects : [{ subject: '', status: check.status }];
      return subjects.flatMap((subject) =>
        checkStatusSchema.options.map((status) => ({
          labels: { check: check.id, subject: subject.subject, status },
          value: subject.status === status ? 1 : 0,
        })),
      );
    }),
  );
  add(
    'findings',
    'Number of findings per check and severity.',
    report.checks.flatMap((check) =>
      severitySchema.options.map((severity) => ({
        labels: { check: check.id, severity },
        value: check.findings.filter((finding) => finding.severity === severity).length,
      })),
    ),
  );

  const withSpeed = report.interfaces.filter((iface) => iface.speedMbps !== null);
  add(
    'interface_speed_mbps',
    'Negotiated link speed of each interface (absent when the interface does not report it, e.g. link down).',
    withSpeed.map((iface) => ({ labels: { interface: iface.name }, value: iface.speedMbps! })),
  );
  const withMtu = report.interfaces.filter((iface) => iface.mtu !== null);
  add(
    'interface_mtu_bytes',
    'MTU of each interface.',
    withMtu.map((iface) => ({ labels: { interface: iface.name }, value: iface.mtu! })),
  );

  const bench = report.bench;
  if (bench) {
    const labels = {
      mode: bench.mode,
      peer: bench.peer,
      direction: bench.direction,
      protocol: bench.protocol,
      interface: bench.interface ?? '',
    };
    if (bench.result) {
      add('bench_bits_per_second', 'Throughput the bench measured (receiver side, all processes summed).', [
        { labels, value: bench.result.bitsPerSecond },
      ]);
      add('bench_retransmits', "TCP retransmits during the bench's measurement run.", [{ labels, value: bench.result.retransmits }]);
      add('bench_processes', "iperf3 client processes in the bench's measurement run.", [{ labels, value: bench.result.processes }]);
    }
    if (bench.ceilingBitsPerSecond !== null)
      add('bench_ceiling_bits_per_second', 'TCP goodput ceiling of the link at its speed and MTU.', [
        { labels, value: bench.ceilingBitsPerSecond },
      ]);
    if (bench.pcieBitsPerSecond !== null)
      add('bench_pcie_bits_per_second', "Usable PCIe bandwidth of the NIC's link.", [{ labels, value: bench.pcieBitsPerSecond }]);
    add('bench_complete', '1 when the bench finished, 0 when it stopped early (results partial).', [
      { labels, value: bench.complete ? 1 : 0 },
    ]);
  }

  if (policy) {
    add('policy_pass', '1 when the host meets the policy.', [{ labels: { policy: policy.name }, value: policy.pass ? 1 : 0 }]);
    add(
      'policy_item_pass',
      '1 when the policy item passed, 0 when it failed or could not be judged.',
      policy.items.map((item) => ({ labels: { policy: policy.name, item: item.id }, value: item.status === 'pass' ? 1 : 0 })),
    );
    add(
      'policy_item_status',
      'State of each policy item: 1 for its current status (pass, fail, unknown), 0 for the others.',
      policy.items.flatMap((item) =>
        (['pass', 'fail', 'unknown'] as const).map((status) => ({
          labels: { policy: policy.name, item: item.id, status },
          value: item.status === status ? 1 : 0,
        })),
      ),
    );
  }

  return families.flatMap(renderFamily).join('\n') + '\n';
}
