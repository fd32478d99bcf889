import { describe, expect, it } from 'vitest';
import throughput from '../../checks/throughput.js';
import { aggregateStep, alignIntervals, type ClientOutcome } from '../../src/bench/aggregate.js';
import type { BenchMeasurement } from '../../src/collectors/bench-result.js';
import { parseIperf3Json, type Iperf3Result } from '../../src/parsers/iperf3-json.js';
import type { CheckResult } from '../../src/report/schema.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';
import { realCapture } from '../helpers/fixtures.js';

const tester = checkTester(throughput);

const G = 1e9;

function outcome(result: Iperf3Result | null, extra: Partial<ClientOutcome> = {}): ClientOutcome {
  return {
    label: 'p',
    port: 5101,
    cpu: 0,
    pid: 1,
    result,
    error: result?.error ?? null,
    measuredCpuPercent: null,
    cpuQuotaPercent: null,
    throttledPeriods: null,
    serverVersion: '3.12',
    cpuSeconds: 1,
    ...extra,
  };
}

/** A result whose intervals run at the given rates (Gb/s). */
function synthetic(rates: number[], retransmits = 0): Iperf3Result {
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  return {
    version: '3.12',
    protocol: 'TCP',
    streams: 1,
    error: null,
    senderBitsPerSecond: mean * G,
    receiverBitsPerSecond: mean * G,
    reverseSenderBitsPerSecond: null,
    reverseReceiverBitsPerSecond: null,
    retransmits,
    seconds: rates.length,
    hostCpuPercent: 50,
    remoteCpuPercent: 30,
    lostPercent: null,
    sndbufActual: null,
    rcvbufActual: null,
    intervals: rates.map((rate, index) => ({ start: index, end: index + 1, bitsPerSecond: rate * G, retransmits: 0, omitted: false })),
  };
}

function measurement(steps: ClientOutcome[][], final: ClientOutcome[], extra: Partial<BenchMeasurement> = {}): BenchMeasurement {
  const stepResults = steps.map((outcomes) => aggregateStep(outcomes, 1, 3));
  const last = aggregateStep(final, 1, 10);
  return {
    mode: 'peer',
    peer: '10.0.0.2',
    direction: 'forward',
    protocol: 'tcp',
    iperf3: { client: '3.12', server: '3.12' },
    interface: 'eth0',
    linkSpeedMbps: 10000,
    mtu: 1500,
    ceilingBitsPerSecond: 9.41 * G,
    pcieBitsPerSecond: null,
    ports: [5101, 5102],
    cpus: [0, 1],
    steps: stepResults,
    stopReason: 'test',
    result: {
      bitsPerSecond: last.bitsPerSecond,
      senderBitsPerSecond: last.senderBitsPerSecond,
      reverseBitsPerSecond: null,
      retransmits: last.retransmits,
      durationSeconds: 10,
      processes: final.length,
      streamsPerProcess: 1,
      intervals: alignIntervals(final.map((o) => o.result)),
      perProcess: last.perProcess,
    },
    counters: { softnetDropped: 0, softnetTimeSqueeze: 0, nicDrops: {}, interruptsPerCpu: [] },
    complete: true,
    error: null,
    cpuSeconds: { nicdoctor: 0.1, iperf3: 20 },
    durationMs: 20000,
    ...extra,
  };
}

const symptoms = (result: CheckResult) => result.findings.map((finding) => finding.symptom).sort();

describe('throughput check', () => {
  it('is not applicable without a bench, and says how to run one', async () => {
    const result = await tester.run({ 'bench.result': failed('not-found', 'no bench was run', 'add --peer HOST') });
    expect(result.status).toBe('not-applicable');
    expect(result.reason).toContain('--peer');
  });

  it('passes at the link ceiling', async () => {
    const final = [outcome(synthetic([9.3, 9.35, 9.3, 9.32]))];
    const result = await tester.run({ 'bench.result': measurement([final], final) });
    expect(result.status).toBe('pass');
    expect(symptoms(result)).toEqual(['at-link-ceiling']);
  });

  it('finds a single CPU-bound process when more processes raise the sum (cgroup quota)', async () => {
    const single = [outcome(synthetic([1.9, 1.9, 1.9]), { measuredCpuPercent: 19.6, cpuQuotaPercent: 20 })];
    const four = [1, 2, 3, 4].map(() => outcome(synthetic([1.9, 1.9, 1.9]), { measuredCpuPercent: 19.5, cpuQuotaPercent: 20 }));
    const result = await tester.run({ 'bench.result': measurement([single, four], four) });
    expect(result.status).toBe('fail');
    expect(symptoms(result)).toEqual(['below-link-ceiling', 'single-core-bound']);
    expect(result.findings.find((f) => f.symptom === 'single-core-bound')?.data).toMatchObject({
      cpuPercent: 19.6,
      limitPercent: 20,
      bestProcesses: 4,
      ratio: 4,
    });
  });

  it("finds a per-process limit when more processes scale linearly, even if this end's CPU is not at its limit", async () => {
    const single = [outcome(synthetic([2, 2, 2]), { measuredCpuPercent: 6, cpuQuotaPercent: 20 })];
    const two = [1, 2].map(() => outcome(synthetic([1.9, 1.9, 1.9]), { measuredCpuPercent: 7, cpuQuotaPercent: 20 }));
    const result = await tester.run({ 'bench.result': measurement([single, two], two) });
    const finding = result.findings.find((f) => f.symptom === 'single-core-bound');
    expect(finding?.data).toMatchObject({ cpuBound: false, efficiencyPercent: 95, bestProcesses: 2 });
    expect(finding?.message).toContain('far end');
  });

  it('does not blame the tool when one process is not CPU-bound', async () => {
    const single = [outcome(synthetic([3, 3, 3]), { measuredCpuPercent: 40 })];
    const two = [1, 2].map(() => outcome(synthetic([1.6, 1.6, 1.6]), { measuredCpuPercent: 25 }));
    const result = await tester.run({ 'bench.result': measurement([single, two], single) });
    expect(symptoms(result)).toEqual(['below-link-ceiling']);
  });

  it('reads a real 3.12 run: retransmits and CPU from the capture', async () => {
    const real = parseIperf3Json(realCapture('iperf3/3.9-tcp-retrans-1.json'));
    const final = [outcome(real)];
    const result = await tester.run(
      { 'bench.result': measurement([final], final, { linkSpeedMbps: null, ceilingBitsPerSecond: null }) },
      { options: { retransmitRate: 0 } },
    );
    expect(symptoms(result)).toContain('retransmits');
    expect(result.findings.find((f) => f.symptom === 'retransmits')?.data.retransmits).toBe(real.retransmits);
  });

  it('reports a PCIe-bound plateau, loss, a collapse after the first second, and instability', async () => {
    const pcie = [outcome(synthetic([3.5, 3.52, 3.49, 3.5]))];
    const pcieResult = await tester.run({ 'bench.result': measurement([pcie], pcie, { pcieBitsPerSecond: 3.56 * G }) });
    expect(pcieResult.findings.find((f) => f.symptom === 'pcie-bound')?.severity).toBe('critical');

    const collapse = [outcome(synthetic([9, 1, 1.1, 0.9]))];
    expect(symptoms(await tester.run({ 'bench.result': measurement([collapse], collapse) }))).toContain('collapse-after-first-interval');
    // A first second of 2.4 Mb/s (a few initial windows and their retransmissions) never worked:
    // the run stalled from the start, which is no sign of broken offload.
    const neverStarted = [outcome(synthetic([0.00243, 0, 0, 0, 0]))];
    expect(symptoms(await tester.run({ 'bench.result': measurement([neverStarted], neverStarted) }))).toEqual(
      expect.arrayContaining(['stalled']),
    );
    expect(symptoms(await tester.run({ 'bench.result': measurement([neverStarted], neverStarted) }))).not.toContain(
      'collapse-after-first-interval',
    );

    const wobbly = [outcome(synthetic([9, 4, 9, 4, 9]))];
    expect(symptoms(await tester.run({ 'bench.result': measurement([wobbly], wobbly) }))).toContain('unstable');

    const lossy = [outcome(synthetic([5, 5, 5], 60_000))];
    expect(symptoms(await tester.run({ 'bench.result': measurement([lossy], lossy) }))).toContain('retransmits');
  });

  it('calls retransmits reordering when the sender undid most of its loss recoveries, and loss when it undid few', async () => {
    const lossy = [outcome(synthetic([5, 5, 5], 60_000))];
    /** The lossy run with these sender recoveries during the bench. */
    const recovered = (episodes: number, undone: number, direction: BenchMeasurement['direction'] = 'forward') =>
      measurement([lossy], lossy, {
        direction,
        counters: { softnetDropped: 0, softnetTimeSqueeze: 0, nicDrops: {}, interruptsPerCpu: [], tcpRecovery: { episodes, undone } },
      });
    // Counters of a lab run under a CPU quota (nstat in the sending namespace): 223 SACK recoveries, 187 undone.
    const reordered = await tester.run({
      'bench.result': recovered(223, 187),
    });
    expect(symptoms(reordered)).toContain('retransmits-reordered');
    expect(symptoms(reordered)).not.toContain('retransmits');
    const finding = reordered.findings.find((f) => f.symptom === 'retransmits-reordered');
    expect(finding?.severity).toBe('info');
    expect(finding?.data).toMatchObject({ recoveries: 223, undone: 187, undonePercent: 84 });

    const lost = await tester.run({
      'bench.result': recovered(400, 12),
    });
    expect(symptoms(lost)).toContain('retransmits');
    expect(symptoms(lost)).not.toContain('retransmits-reordered');

    // This host received (reverse): its own recoveries say nothing about the peer's sending.
    const reverse = await tester.run({
      'bench.result': recovered(223, 187, 'reverse'),
    });
    expect(symptoms(reverse)).toContain('retransmits');
  });

  it('judges per-process limits at the most linear step when more processes than cores bend the sum', async () => {
    // A lab run under 0.2 core per iperf3 on a 2-core machine: 1, 2 and 4 processes scale almost
    // linearly; at 8 (16 quota'd processes with the far end) the cores run out.
    const step = (count: number, gbps: number, cpu: number) =>
      Array.from({ length: count }, () =>
        outcome(synthetic([gbps / count, gbps / count, gbps / count]), { measuredCpuPercent: cpu, cpuQuotaPercent: 20 }),
      );
    const eight = step(8, 7.2, 14);
    const result = await tester.run({
      'bench.result': measurement([step(1, 1.37, 15.5), step(2, 2.45, 17), step(4, 4.9, 19.5), eight], eight, {
        ceilingBitsPerSecond: 23.5 * G,
      }),
    });
    const finding = result.findings.find((f) => f.symptom === 'single-core-bound');
    expect(finding?.data).toMatchObject({ cpuBound: false, scaledProcesses: 4, bestProcesses: 8, efficiencyPercent: 89 });
    expect(finding?.message).toContain('at 4 processes');
  });

  it('calls intervals that fall to zero after line rate a stall, not fluctuation', async () => {
    // Seconds at 9.9 Gb/s, then nothing: a hang stops the transfer, frequency scaling does not.
    const hung = [outcome(synthetic([9.3, 9.9, 9.9, 9.9, 4.4, 0, 0, 0]))];
    const result = await tester.run({ 'bench.result': measurement([hung], hung) });
    expect(symptoms(result)).toContain('stalled');
    expect(symptoms(result)).not.toContain('unstable');
    const stall = result.findings.find((f) => f.symptom === 'stalled')!;
    expect(stall.data).toMatchObject({ stalledIntervals: 3, intervals: 8, bestGbps: 9.9 });
    expect(stall.message).toContain('3 of 8 intervals');
    // A slow start at 0 before any traffic is not a stall.
    const slowStart = [outcome(synthetic([0, 9, 4, 9, 4, 9]))];
    expect(symptoms(await tester.run({ 'bench.result': measurement([slowStart], slowStart) }))).not.toContain('stalled');
  });

  it('labels harness problems: a busy server and version skew', async () => {
    const busy = parseIperf3Json(realCapture('iperf3/3.12-error-busy-netns-1.json'));
    const result = await tester.run({
      'bench.result': measurement([[outcome(busy, { serverVersion: '3.9' })]], [outcome(synthetic([2, 2, 2]), { serverVersion: '3.9' })], {
        ceilingBitsPerSecond: null,
      }),
    });
    expect(symptoms(result)).toEqual(['server-busy', 'version-skew']);
  });

  it("judges no ceiling when the bench moved more than the stated link speed can carry (a veth's nominal 10000)", async () => {
    const final = [1, 2].map(() => outcome(synthetic([10.7, 10.7, 10.7])));
    const result = await tester.run({ 'bench.result': measurement([final], final) });
    expect(result.status).toBe('pass');
    expect(symptoms(result)).toEqual(['exceeds-link-speed']);
    expect(result.findings[0]).toMatchObject({
      severity: 'info',
      data: { resultGbps: 21.4, ceilingGbps: 9.41, percent: 227, interface: 'eth0', linkGbps: 10, mtu: 1500, processes: 2 },
    });
    expect(result.findings[0]!.message).toBe(
      'The bench moved 21.4 Gb/s, 227 % of the 9.41 Gb/s goodput ceiling of a 10 Gb/s link: that speed is nominal (a veth or virtual NIC) or --link-speed is too low, so no ceiling is judged',
    );
  });

  it('says which values a pasted run did not give (no interface, MTU unknown) instead of leaving placeholders', async () => {
    const final = [outcome(synthetic([5, 5, 5]))];
    const result = await tester.run({ 'bench.result': measurement([final], final, { interface: null, mtu: null }) });
    expect(result.findings.find((f) => f.symptom === 'below-link-ceiling')!.message).toBe(
      'The best plateau is 5 Gb/s, 53 % of the 9.41 Gb/s TCP goodput ceiling of the link (10 Gb/s, MTU unknown)',
    );
  });

  it('compares the two directions of a bidirectional run', async () => {
    const final = [outcome(synthetic([6, 6, 6]))];
    const bench = measurement([final], final, { direction: 'bidir' });
    bench.result!.reverseBitsPerSecond = 2 * G;
    const result = await tester.run({ 'bench.result': bench });
    expect(result.findings.find((f) => f.symptom === 'bidir-asymmetry')?.data).toMatchObject({ forwardGbps: 6, reverseGbps: 2 });
  });
});
