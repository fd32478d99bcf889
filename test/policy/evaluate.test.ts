import path from 'node:path';
import { describe, expect, it } from 'vitest';
import cpuFrequency from '../../checks/cpu-frequency.js';
import iperf3Check from '../../checks/iperf3.js';
import socketBuffers from '../../checks/socket-buffers.js';
import { evaluatePolicy, type PolicyItem, type PolicyResult } from '../../src/policy/evaluate.js';
import { collectPolicyFacts } from '../../src/policy/facts.js';
import { loadPolicy, parsePolicy, type Policy } from '../../src/policy/schema.js';
import { parseIperf3Version } from '../../src/parsers/iperf3-version.js';
import { parseSysctlAll, sysctlNetFrom, type SysctlNetKey } from '../../src/parsers/sysctl.js';
import type { CheckResult, Report } from '../../src/report/schema.js';
import { runCheckOn } from '../helpers/check-harness.js';
import { FIXTURES, realCapture } from '../helpers/fixtures.js';
import { scanScenario, syntheticBench } from '../helpers/scenario-reports.js';

const policy = (text: string): Policy => parsePolicy(text, 'test.yaml');
const example = (name: string) => loadPolicy(path.join(FIXTURES, '..', 'policies', `${name}.yaml`));
const item = (result: PolicyResult, id: string): PolicyItem => {
  const found = result.items.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no item ${id} in ${result.items.map((candidate) => candidate.id).join(', ')}`);
  return found;
};
/** A real scanned report with one check's result replaced by a real run of that check. */
const withCheck = (report: Report, result: CheckResult): Report => ({
  ...report,
  checks: report.checks.map((check) => (check.id === result.id ? result : check)),
});

describe('evaluatePolicy on real scenarios', () => {
  it('ixgbe on PCIe Gen1 x4 fails the 10G policy on the downgrade, and the bench is unknown without --peer', async () => {
    const { report } = await scanScenario('ixgbe-10g-pcie-degraded');
    const result = evaluatePolicy(await example('10g'), report);
    expect(item(result, 'no-pcie-downgrade:eth2')).toMatchObject({
      status: 'fail',
      subject: 'eth2',
      observed: expect.stringContaining('x4'),
      expected: expect.stringContaining('Gen'),
    });
    expect(item(result, 'no-pcie-downgrade:eth2').reason).toContain('pcie-bandwidth-below-port');
    expect(item(result, 'mtu:eth2')).toMatchObject({ status: 'pass', observed: 1500, expected: '>= 1500' });
    expect(item(result, 'mtu:eth2').reason).toContain('9.41 Gb/s');
    expect(item(result, 'min-bench-gbps')).toMatchObject({ status: 'unknown', observed: null });
    expect(item(result, 'min-bench-gbps').reason).toContain('--peer');
    expect(item(result, 'check:pcie-link')).toMatchObject({ status: 'fail', observed: 'fail' });
    expect(item(result, 'min-iperf3')).toMatchObject({ status: 'unknown' });
    expect(item(result, 'min-iperf3').reason).toContain('iperf3 -v');
    expect(result.pass).toBe(false);
    expect(result.counts.fail).toBeGreaterThanOrEqual(2);
    expect(result.counts.pass + result.counts.fail + result.counts.unknown).toBe(result.items.length);
  });

  it('judges the bench result of a peer run: below the minimum fails, above passes, loopback and partial runs are unknown', async () => {
    const ten = await example('10g');
    const slow = (await scanScenario('ixgbe-10g-pcie-degraded', syntheticBench({ processes: 4, perProcessGbps: 1.75, interface: 'eth2' })))
      .report;
    expect(item(evaluatePolicy(ten, slow), 'min-bench-gbps')).toMatchObject({ status: 'fail', observed: 7, expected: '>= 9 Gb/s' });
    expect(item(evaluatePolicy(ten, slow), 'min-bench-gbps').reason).toMatch(/4 process\(es\).*ceiling is 9\.41 Gb\/s/);

    const fast = (await scanScenario('ixgbe-10g-pcie-degraded', syntheticBench({ processes: 4, perProcessGbps: 2.35, interface: 'eth2' })))
      .report;
    expect(item(evaluatePolicy(ten, fast), 'min-bench-gbps')).toMatchObject({ status: 'pass', observed: 9.4 });

    const loopback: Report = { ...fast, bench: { ...fast.bench!, mode: 'loopback', peer: '127.0.0.1' } };
    expect(item(evaluatePolicy(ten, loopback), 'min-bench-gbps')).toMatchObject({ status: 'unknown' });
    expect(item(evaluatePolicy(ten, loopback), 'min-bench-gbps').reason).toContain('--peer');

    const partial = (await scanScenario('ixgbe-10g-pcie-degraded', syntheticBench({ processes: 1, perProcessGbps: 3, complete: false })))
      .report;
    expect(item(evaluatePolicy(ten, partial), 'min-bench-gbps')).toMatchObject({ status: 'unknown', observed: 3 });
    const failedRun: Report = { ...partial, bench: { ...partial.bench!, result: null, error: 'peer 192.0.2.7 unreachable' } };
    expect(item(evaluatePolicy(ten, failedRun), 'min-bench-gbps').reason).toContain('unreachable');
  });

  it('i40e with rings below the maximum fails ringsAtMax with the real sizes, even though the finding is only info', async () => {
    const { report } = await scanScenario('i40e-small-rings-drops');
    const result = evaluatePolicy(policy('name: rings\nringsAtMax: true\nchecksMustPass: [nic-drops, mtu]\n'), report);
    expect(item(result, 'rings-at-max:eth0')).toMatchObject({ status: 'fail', observed: 'rx 2048, tx 512', expected: 'rx 4096, tx 4096' });
    // 179160 drops in 4.4e11 packets are negligible: the drops check passes with a note.
    expect(item(result, 'check:nic-drops')).toMatchObject({ status: 'pass' });
    expect(item(result, 'check:mtu')).toMatchObject({ status: 'pass' });
    expect(result.pass).toBe(false);
  });

  it("mlx5 with rings at 8192 passes ringsAtMax; the store's facts give the observed sizes", async () => {
    const { report, store } = await scanScenario('mlx5-irq-concentration');
    const rings = policy('name: rings\nringsAtMax: true\n');
    expect(item(evaluatePolicy(rings, report), 'rings-at-max:p3p1')).toMatchObject({ status: 'pass', observed: 'at maximum' });
    const facts = await collectPolicyFacts(store, report);
    expect(facts.rings?.p3p1).toMatchObject({ rxCurrent: 8192, rxMax: 8192 });
    const result = evaluatePolicy(rings, report, facts);
    expect(item(result, 'rings-at-max:p3p1')).toMatchObject({ status: 'pass', observed: expect.stringContaining('rx 8192') });
    expect(result).toMatchObject({ name: 'rings', pass: true, counts: { pass: 1, fail: 0, unknown: 0 } });
  });

  it('a virtio VM: no PCIe link passes noPcieDowngrade, the hypervisor-owned governor is unknown, MTU 9000 fails', async () => {
    const { report } = await scanScenario('virtio-vm-single-queue');
    const result = evaluatePolicy(
      policy('name: vm\nnoPcieDowngrade: true\ngovernor: performance\nmtu: 9000\nringsAtMax: true\nchecksMustPass: [rss-indirection]\n'),
      report,
    );
    expect(item(result, 'no-pcie-downgrade:eth0')).toMatchObject({ status: 'pass', observed: 'no PCIe link' });
    expect(item(result, 'governor')).toMatchObject({ status: 'unknown' });
    expect(item(result, 'governor').reason).toContain('no cpufreq');
    expect(item(result, 'mtu:eth0')).toMatchObject({ status: 'fail', observed: 1500, expected: 9000 });
    // ring-max-small is not "below max": the rings are at the (small) maximum.
    expect(item(result, 'rings-at-max:eth0')).toMatchObject({ status: 'pass' });
    expect(item(result, 'check:rss-indirection')).toMatchObject({ status: 'pass', observed: 'not-applicable' });
  });

  it('a host without the expected interfaces fails the interfaces item and cannot judge per-interface items', async () => {
    const { report } = await scanScenario('softnet-drops-squeeze');
    const result = evaluatePolicy(policy('name: x\ninterfaces: ["enp*"]\nmtu: { min: 9000 }\nchecksMustPass: [softnet]\n'), report);
    expect(item(result, 'interfaces')).toMatchObject({ status: 'fail', expected: 'enp*' });
    expect(item(result, 'interfaces').reason).toContain('nothing matches enp*');
    expect(item(result, 'mtu')).toMatchObject({ status: 'unknown' });
    expect(item(result, 'check:softnet')).toMatchObject({ status: 'fail' });
  });

  it('interface patterns select by name', async () => {
    const { report } = await scanScenario('ice-e810-pcie-ok-link-down');
    const result = evaluatePolicy(policy('name: x\ninterfaces: ["enp162s0f?np0"]\nmtu: 1500\nnoPcieDowngrade: true\n'), report);
    expect(item(result, 'interfaces')).toMatchObject({ status: 'pass', observed: 'enp162s0f0np0' });
    expect(item(result, 'mtu:enp162s0f0np0').status).toBe('pass');
    expect(item(result, 'no-pcie-downgrade:enp162s0f0np0')).toMatchObject({ status: 'pass', observed: 'no downgrade' });
    expect(result.pass).toBe(true);
  });

  it('onUnknown decides whether an unjudged item fails the policy', async () => {
    const { report } = await scanScenario('ice-e810-pcie-ok-link-down');
    const strict = evaluatePolicy(policy('name: x\nmtu: 1500\nminIperf3: "3.16"\n'), report);
    expect(strict).toMatchObject({ pass: false, unknownFails: true, counts: { pass: 1, fail: 0, unknown: 1 } });
    const lenient = evaluatePolicy(policy('name: x\nmtu: 1500\nminIperf3: "3.16"\nonUnknown: ignore\n'), report);
    expect(lenient).toMatchObject({ pass: true, unknownFails: false });
  });
});

describe('evaluatePolicy with real check results spliced into a real report', () => {
  it("minIperf3 from the iperf3 check's finding on the real Debian 12 build (3.12)", async () => {
    const { report } = await scanScenario('mlx5-irq-concentration');
    const iperf3 = await runCheckOn(iperf3Check, { 'iperf3.version': parseIperf3Version(realCapture('iperf3/version-3.12-debian12.txt')) });
    const result = evaluatePolicy(policy('name: x\nminIperf3: "3.16"\n'), withCheck(report, iperf3));
    expect(item(result, 'min-iperf3')).toMatchObject({ status: 'fail', observed: '3.12', expected: '>= 3.16' });
    expect(item(result, 'min-iperf3').reason).toContain('one core');
    // Facts win over the report; a version from the bench is used when nothing else has one.
    expect(item(evaluatePolicy(policy('name: x\nminIperf3: "3.16"\n'), report, { iperf3Version: '3.17.1' }), 'min-iperf3')).toMatchObject({
      status: 'pass',
      observed: '3.17.1',
    });
    const benched = (await scanScenario('mlx5-irq-concentration', syntheticBench({ processes: 2, perProcessGbps: 4 }))).report;
    expect(item(evaluatePolicy(policy('name: x\nminIperf3: "3.16"\n'), benched), 'min-iperf3').reason).toContain('from the bench');
  });

  it('a passing iperf3 check proves 3.16 but not a newer minimum', async () => {
    const { report } = await scanScenario('mlx5-irq-concentration');
    const noFinding: CheckResult = {
      id: 'iperf3',
      title: 'iperf3',
      status: 'pass',
      durationMs: 0,
      subjects: [{ subject: 'host', status: 'pass' }],
      findings: [],
    };
    expect(item(evaluatePolicy(policy('name: x\nminIperf3: "3.16"\n'), withCheck(report, noFinding)), 'min-iperf3')).toMatchObject({
      status: 'pass',
      observed: '>= 3.16',
    });
    expect(item(evaluatePolicy(policy('name: x\nminIperf3: "3.19.1"\n'), withCheck(report, noFinding)), 'min-iperf3').status).toBe(
      'unknown',
    );
  });

  it('governor from the cpu-frequency check (finding counts) and from facts', async () => {
    const { report } = await scanScenario('i40e-small-rings-drops');
    const freq = (governors: string[]) => ({
      present: true,
      driver: 'intel_pstate',
      cpus: governors.map((governor, cpu) => ({ cpu, governor, curKHz: 3_400_000, scalingMaxKHz: 3_500_000, hwMaxKHz: 3_500_000 })),
    });
    const topology = {
      online: [0, 1, 2, 3],
      smtActive: false,
      smtControl: 'off',
      cpus: [0, 1, 2, 3].map((cpu) => ({ cpu, siblings: [cpu], packageId: 0, coreId: cpu })),
    };
    const powersave = await runCheckOn(
      cpuFrequency,
      { cpufreq: freq(['powersave', 'powersave', 'powersave', 'performance']), 'cpu.topology': topology },
      { interfaces: [] },
    );
    const result = evaluatePolicy(policy('name: x\ngovernor: performance\n'), withCheck(report, powersave));
    expect(item(result, 'governor')).toMatchObject({ status: 'fail', observed: 'powersave x3, performance x1', expected: 'performance' });
    expect(item(result, 'governor').reason).toContain('3 of 4 CPUs');

    const performance = await runCheckOn(
      cpuFrequency,
      { cpufreq: freq(['performance', 'performance']), 'cpu.topology': topology },
      { interfaces: [] },
    );
    expect(item(evaluatePolicy(policy('name: x\ngovernor: performance\n'), withCheck(report, performance)), 'governor')).toMatchObject({
      status: 'pass',
      observed: 'performance',
    });
    expect(item(evaluatePolicy(policy('name: x\ngovernor: schedutil\n'), withCheck(report, performance)), 'governor').status).toBe('fail');
    expect(
      item(evaluatePolicy(policy('name: x\ngovernor: performance\n'), report, { governors: ['performance', 'ondemand'] }), 'governor'),
    ).toMatchObject({ status: 'fail', observed: 'performance x1, ondemand x1' });
  });

  it('socket-buffer tier from the socket-buffers check on a real sysctl -a capture', async () => {
    const { report } = await scanScenario('ixgbe-10g-pcie-degraded');
    const values = parseSysctlAll(realCapture('sysctl/ubuntu1804-sysctl-a-jc.txt'));
    const sysctl = sysctlNetFrom((key: SysctlNetKey) => values.get(key));
    const checked = await runCheckOn(socketBuffers, { 'sysctl.net': sysctl, interfaces: [] }, { interfaces: report.interfaces });
    const spliced = withCheck(report, checked);
    const result = evaluatePolicy(policy('name: x\nsocketBufferTier: 10g\n'), spliced);
    const tier = item(result, 'socket-buffer-tier');
    // Ubuntu 18.04 defaults: rmem_max 212992, tcp_rmem maximum 6291456.
    expect(tier.status).toBe('fail');
    expect(tier.observed).toContain('net.core.rmem_max 212992');
    expect(tier.observed).toContain('net.ipv4.tcp_rmem max 6291456');
    expect(tier.reason).toContain('CAUSES.md 10');
    // Exact values from facts decide tiers the check did not apply.
    const big = { rmemMax: 536_870_912, wmemMax: 536_870_912, tcpRmemMax: 268_435_456, tcpWmemMax: 268_435_456 };
    expect(
      item(evaluatePolicy(policy('name: x\nsocketBufferTier: 40g\n'), spliced, { socketBuffers: big }), 'socket-buffer-tier').status,
    ).toBe('pass');
    expect(
      item(evaluatePolicy(policy('name: x\nsocketBufferTier: 100g\n'), spliced, { socketBuffers: big }), 'socket-buffer-tier'),
    ).toMatchObject({ status: 'fail', expected: expect.stringContaining('2147483647') });
    // A passing check on a 10G host proves the 10G tier only: the 40G tier stays unknown.
    const passing: CheckResult = {
      id: 'socket-buffers',
      title: 'socket buffers',
      status: 'pass',
      durationMs: 0,
      subjects: [{ subject: 'host', status: 'pass' }],
      findings: [],
    };
    expect(item(evaluatePolicy(policy('name: x\nsocketBufferTier: 10g\n'), withCheck(report, passing)), 'socket-buffer-tier').status).toBe(
      'pass',
    );
    expect(item(evaluatePolicy(policy('name: x\nsocketBufferTier: 40g\n'), withCheck(report, passing)), 'socket-buffer-tier').status).toBe(
      'unknown',
    );
    // The scenario itself has no sysctls: unknown, with the reason.
    expect(item(evaluatePolicy(policy('name: x\nsocketBufferTier: 10g\n'), report), 'socket-buffer-tier').reason).toContain(
      'socket-buffers is unknown',
    );
  });

  it('a check left out of the report, or broken, does not pass', async () => {
    const { report } = await scanScenario('mlx5-irq-concentration');
    const without: Report = { ...report, checks: report.checks.filter((check) => check.id !== 'pcie-link') };
    expect(item(evaluatePolicy(policy('name: x\nchecksMustPass: [pcie-link]\n'), without), 'check:pcie-link')).toMatchObject({
      status: 'unknown',
    });
    const broken: CheckResult = {
      id: 'mtu',
      title: 'MTU',
      status: 'error',
      reason: 'the check broke: boom',
      durationMs: 0,
      subjects: [],
      findings: [],
      error: { message: 'boom' },
    };
    expect(item(evaluatePolicy(policy('name: x\nchecksMustPass: [mtu]\n'), withCheck(report, broken)), 'check:mtu')).toMatchObject({
      status: 'fail',
    });
  });
});
