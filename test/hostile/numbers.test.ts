/**
 * Issue 19 item 5: a 400-digit number in an output (an `ethtool -S` counter, a sysfs
 * numa_node, an iperf3 interval) was Number() = Infinity, and the report's schema then aborted
 * the whole run (exit 3, a 50-line dump). Now the parser refuses it: that fact is `unknown` with
 * the reason, and the report is produced. A report part that still breaks the schema turns its
 * check into an `error` instead of losing the report.
 */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { parseIntOrNull } from '../../src/hostio/sysfs-read.js';
import { parseEthtoolStats } from '../../src/parsers/ethtool-stats.js';
import { parseIperf3Text } from '../../src/parsers/iperf3-text.js';
import { numberInRange } from '../../src/parsers/numbers.js';
import { ParseError } from '../../src/parsers/parse-error.js';
import { parseOptionalNumber } from '../../src/parsers/text.js';
import { scan } from '../../src/pipeline/scan.js';
import { validateReport } from '../../src/pipeline/validate-report.js';
import { silentLogger } from '../../src/util/log.js';
import { HOSTS_DIR, scanScenario } from '../helpers/scenario-reports.js';
import { tempDir } from './helpers.js';

const HUGE = '9'.repeat(400);
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function copyScenario(name: string): Promise<string> {
  const dir = await tempDir();
  temps.push(dir);
  const root = path.join(dir, name);
  await cp(path.join(HOSTS_DIR, name), root, { recursive: true, verbatimSymlinks: true });
  return root;
}

describe('numbers in outputs are finite and in range', () => {
  it('the shared helper refuses non-finite and out-of-range numbers, naming what it read', () => {
    expect(numberInRange('42', 'x')).toBe(42);
    expect(() => numberInRange(HUGE, 'ethtool -S rx_packets')).toThrow(
      /ethtool -S rx_packets: 999999999999… \(400 characters\) is not a finite number/,
    );
    expect(() => numberInRange('1e30', 'x')).toThrow(ParseError);
    expect(() => numberInRange('5', 'x', { min: 0, max: 4 })).toThrow(/outside 0\.\.4/);
  });

  it('ethtool -S: a 400-digit counter is a ParseError, not Infinity', () => {
    expect(() => parseEthtoolStats(`NIC statistics:\n     rx_packets: ${HUGE}\n`)).toThrow(ParseError);
    expect(parseEthtoolStats('NIC statistics:\n     rx_packets: 18446744073709551615\n').counters[0]!.value).toBe(2 ** 64);
  });

  it('sysfs integers and ethtool counts: 400 digits are refused', () => {
    expect(() => parseIntOrNull(HUGE)).toThrow(ParseError);
    expect(parseIntOrNull('-1')).toBe(-1);
    expect(() => parseOptionalNumber(HUGE)).toThrow(ParseError);
  });

  it('iperf3: a 400-digit interval is refused', () => {
    const row = (start: string) =>
      `Connecting to host 10.0.0.2, port 5201\n[  5] local 10.0.0.1 port 1 connected to 10.0.0.2 port 5201\n[ ID] Interval           Transfer     Bitrate         Retr\n[  5]   ${start}-1.00   sec  1.10 GBytes  9.41 Gbits/sec    0\n`;
    expect(parseIperf3Text(row('0.00')).intervals.length).toBeGreaterThan(0);
    expect(() => parseIperf3Text(row(`${HUGE}.00`))).toThrow(/iperf3 interval start/);
  });

  it('a snapshot with a 400-digit ethtool -S counter gives a report with that fact unknown (was: exit 3, schema dump)', async () => {
    const root = await copyScenario('i40e-small-rings-drops');
    const file = path.join(root, 'cmd', 'ethtool_-S_eth0');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/rx_dropped: \d+/, `rx_dropped: ${HUGE}`));
    const { report } = await scan({ io: await SnapshotHostIO.open(root), checks, log: silentLogger(), sourcePath: root });
    const stats = report.collectors.find((run) => run.fact === 'ethtool.stats');
    expect(stats?.ok).toBe(false);
    expect(stats?.error?.message).toMatch(/ethtool -S rx_dropped: .*400 characters.*not a finite number/);
  });

  it('a snapshot with a 400-digit numa_node gives a report (the device fact unknown with the reason)', async () => {
    const root = await copyScenario('ice-e810-pcie-ok-link-down');
    await writeFile(path.join(root, 'fs/sys/devices/pci0000:a2/0000:a2:00.0/numa_node'), `${HUGE}\n`);
    const { report } = await scan({ io: await SnapshotHostIO.open(root), checks, log: silentLogger(), sourcePath: root });
    const failed = report.collectors.filter((run) => !run.ok && /sysfs integer/.test(run.error?.message ?? ''));
    expect(failed.length).toBeGreaterThan(0);
  });
});

describe("a schema failure of nicdoctor's own report", () => {
  it('drops the offending finding and makes its check an error with the reason, instead of aborting', async () => {
    const { report } = await scanScenario('i40e-small-rings-drops');
    const check = report.checks.find((result) => result.findings.length > 0)!;
    const finding = check.findings[0]!;
    const broken = structuredClone(report);
    const target = broken.checks.find((result) => result.id === check.id)!;
    target.findings[0] = { ...finding, data: { ...finding.data, value: Infinity }, severity: 'bogus' as never };
    const valid = validateReport(broken, (fixed) => {
      fixed.summary.error = fixed.checks.filter((result) => result.status === 'error').length;
    });
    const after = valid.checks.find((result) => result.id === check.id)!;
    expect(after.status).toBe('error');
    expect(after.reason).toMatch(new RegExp(`a ${finding.symptom} finding \\(${finding.subject}\\) was dropped: (severity|data)`));
    expect(after.findings).toHaveLength(check.findings.length - 1);
    expect(valid.summary.error).toBeGreaterThan(0);
  });

  it('still refuses, in one line, a failure outside the checks and diagnoses', async () => {
    const { report } = await scanScenario('i40e-small-rings-drops');
    const broken = structuredClone(report);
    (broken.host as { logicalCpus: unknown }).logicalCpus = 'many';
    expect(() => validateReport(broken, () => undefined)).toThrow(
      /^the report does not match its schema \(a bug in nicdoctor\): host\.logicalCpus: /,
    );
  });
});
