import { describe, expect, it } from 'vitest';
import cpuFrequency from '../../checks/cpu-frequency.js';
import type { CpuTopology } from '../../src/collectors/cpu-topology.js';
import type { CpuFreq, CpuFreqPolicy } from '../../src/collectors/cpufreq.js';
import { parseNumactlHardware } from '../../src/parsers/numactl.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const host = { interfaces: [] };
/** A host with a 100G port: there a power-saving governor is a cause (one flow needs ~3 GHz per 30 Gb/s). */
const fastHost = { interfaces: [{ name: 'ens1f0', speedMbps: 100_000 }] };

function freq(governors: string[], extra: Partial<CpuFreqPolicy> = {}): CpuFreq {
  return {
    present: true,
    driver: 'intel_pstate',
    cpus: governors.map((governor, cpu) => ({ cpu, governor, curKHz: 3_400_000, scalingMaxKHz: 3_500_000, hwMaxKHz: 3_500_000, ...extra })),
  };
}

function noSmt(count: number): CpuTopology {
  const cpus = Array.from({ length: count }, (_, cpu) => cpu);
  return {
    online: cpus,
    smtActive: false,
    smtControl: 'off',
    cpus: cpus.map((cpu) => ({ cpu, siblings: [cpu], packageId: 0, coreId: cpu })),
  };
}

/** SMT siblings as laid out in a real numactl capture: AWS c5n.18xlarge, CPU n and n+36 share a core. */
function awsTopology(): CpuTopology {
  const online = parseNumactlHardware(realCapture('numactl/aws-c5n18xl-2node-1.txt'))
    .nodes.flatMap((node) => node.cpus)
    .sort((a, b) => a - b);
  return {
    online,
    smtActive: true,
    smtControl: 'on',
    cpus: online.map((cpu) => ({ cpu, siblings: [cpu % 36, (cpu % 36) + 36], packageId: Math.floor((cpu % 36) / 18), coreId: cpu % 18 })),
  };
}

const tester = checkTester(cpuFrequency);

describe('cpu-frequency check', () => {
  it('passes CPUs on the performance governor near their maximum, SMT off', async () => {
    const result = await tester.run({ cpufreq: freq(['performance', 'performance']), 'cpu.topology': noSmt(2) }, host);
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([]);
  });

  it('fails powersave/schedutil governors, with per-governor CPU counts', async () => {
    const result = await tester.run(
      { cpufreq: freq(['powersave', 'powersave', 'powersave', 'performance']), 'cpu.topology': noSmt(4) },
      fastHost,
    );
    expect(result.status).toBe('fail');
    const slow = await tester.run(
      { cpufreq: freq(['powersave', 'powersave', 'powersave', 'performance']), 'cpu.topology': noSmt(4) },
      host,
    );
    expect(slow.status).toBe('pass');
    expect(slow.findings.find((finding) => finding.symptom === 'governor-not-performance')).toMatchObject({ severity: 'info' });
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'governor-not-performance',
        severity: 'warning',
        data: { wanted: 'performance', notWanted: 3, cpus: 4, governorCounts: 'powersave=3,performance=1', driver: 'intel_pstate' },
      }),
    ]);
    expect(result.findings[0]!.message).toBe(
      '3 of 4 CPUs use a governor other than performance (powersave x3, performance x1): lower per-stream rate and run-to-run variance',
    );
    expect(result.findings[0]!.fix).toMatch(/^cpupower frequency-set -g performance/);
    expect(result.findings[0]!.evidence.map((item) => item.label)).toEqual(['scaling_governor (CPUs 0-2)', 'scaling_governor (CPUs 3)']);
  });

  it('only notes the governor on a latency profile', async () => {
    const result = await tester.run(
      { cpufreq: freq(['schedutil', 'schedutil']), 'cpu.topology': noSmt(2) },
      { ...host, profile: 'latency' },
    );
    expect(result.status).toBe('pass');
    expect(result.findings[0]).toMatchObject({ symptom: 'governor-not-performance', severity: 'info' });
  });

  it('notes CPUs clocked far below and a lowered scaling_max_freq', async () => {
    const result = await tester.run(
      {
        cpufreq: freq(['performance', 'performance', 'performance'], { curKHz: 1_200_000, scalingMaxKHz: 2_000_000 }),
        'cpu.topology': noSmt(3),
      },
      host,
    );
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => finding.symptom)).toEqual(['max-frequency-capped', 'frequency-below-max']);
    expect(result.findings[0]!.data).toMatchObject({ capped: 3, scalingMaxMHz: 2000, maxMHz: 3500 });
    expect(result.findings[1]!.data).toMatchObject({ medianMHz: 1200, maxMHz: 3500, percent: 34 });
  });

  it('notes SMT on a 72-thread host laid out like the real c5n.18xlarge capture', async () => {
    const result = await tester.run({ cpufreq: freq(Array(72).fill('performance')), 'cpu.topology': awsTopology() }, host);
    expect(result.status).toBe('pass');
    expect(result.findings).toEqual([
      expect.objectContaining({
        symptom: 'smt-active',
        severity: 'info',
        data: expect.objectContaining({ threads: 72, cores: 36, firstThreads: '0-35' }),
      }),
    ]);
    expect(result.findings[0]!.message).toContain('lose ~15 %');
  });

  it('is not applicable without cpufreq (VM), but still notes SMT there', async () => {
    const vm: CpuFreq = { present: false, driver: null, cpus: [] };
    const plain = await tester.run({ cpufreq: vm, 'cpu.topology': noSmt(2) }, host);
    expect(plain.status).toBe('not-applicable');
    expect(plain.reason).toContain('no cpufreq in sysfs');
    const withSmt = await tester.run({ cpufreq: vm, 'cpu.topology': awsTopology() }, host);
    expect(withSmt.status).toBe('pass');
    expect(withSmt.findings.map((finding) => finding.symptom)).toEqual(['smt-active']);
  });

  it('judges the governor without the topology, and is unknown when cpufreq could not be read', async () => {
    const noTopology = await tester.run({ cpufreq: freq(['ondemand']), 'cpu.topology': failed('not-captured') }, fastHost);
    expect(noTopology.status).toBe('fail');
    const unreadable = await tester.run(
      { cpufreq: failed('not-captured', '/sys/devices/system/cpu/online could not be read'), 'cpu.topology': noSmt(2) },
      host,
    );
    expect(unreadable.status).toBe('unknown');
    expect(unreadable.reason).toContain('/sys/devices/system/cpu/online');
  });
});
