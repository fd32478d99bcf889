import { partitionDiagnoses } from '../../src/rules/engine.js';
import { describe, expect, it } from 'vitest';
import { IF, bench, run } from './helpers.js';
import * as x from './fixtures.js';

describe('ranking and confirmation', () => {
  it('a bench plateau at ~88 % of the PCIe budget plus a downgraded link outranks a generic MTU hint', () => {
    const diagnoses = run({
      findings: [x.standardMtu, x.pcieBelow, x.below(3.13), x.pcieBound(3.13, 3.56)],
      bench: bench({ resultGbps: 3.13, pcieGbps: 3.56 }),
    });
    const first = diagnoses[0]!;
    expect(first).toMatchObject({
      ruleId: 'pcie-bandwidth-below-port',
      cause: 1,
      subject: 'enp65s0f0',
      mode: 'confirmed',
      confidence: 'high',
    });
    expect(first.evidence).toEqual(
      expect.arrayContaining([
        { check: 'pcie-link', symptom: 'pcie-bandwidth-below-port', subject: 'enp65s0f0' },
        { check: 'throughput', symptom: 'pcie-bound', subject: 'host' },
      ]),
    );
    expect(first.verdict).toBe('Confirmed by the bench (3.13 Gb/s measured).');
    expect(first.explanation).toContain('PCIe Gen2 x1 link of a Gen2 x8 card, which carries at most about 3.56 Gb/s');
    const mtu = diagnoses.find((item) => item.ruleId === 'mtu-standard-fast-link')!;
    // The bench ceiling is already the MTU-1500 ceiling: a plateau below it does not confirm the MTU.
    expect(mtu.mode).toBe('not-confirmed');
    expect(first.score).toBeGreaterThan(mtu.score);
    expect(diagnoses.indexOf(mtu)).toBeGreaterThan(0);
    // The bench-only PCIe rule stays quiet when the check already names the link.
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('pcie-bound-measured');
  });

  it("retransmits are the path's only when the host's input backlog dropped nothing during the bench", () => {
    const ids = (softnetDropped: number) =>
      run({ findings: [x.retransmits], bench: bench({ softnetDropped }, [x.retransmits]) }).map((diagnosis) => diagnosis.ruleId);
    expect(ids(0)).toContain('retransmits-path-loss');
    expect(ids(120)).not.toContain('retransmits-path-loss');
  });

  it('without a bench a diagnosis is static and says what it is likely to limit to', () => {
    const [pcie] = run({ findings: [x.pcieBelow] });
    expect(pcie).toMatchObject({ ruleId: 'pcie-bandwidth-below-port', mode: 'static', limit: '≈ 3.56 Gb/s' });
    expect(pcie!.verdict).toBe('Not measured (no bench run): likely to limit throughput to ≈ 3.56 Gb/s.');
  });

  it('with a bench that does not show the predicted symptom, not confirmed and ranked lower', () => {
    const above = run({ findings: [x.pcieBelow, x.below(8.1)], bench: bench({ resultGbps: 8.1 }) });
    const pcie = above.find((item) => item.ruleId === 'pcie-bandwidth-below-port')!;
    expect(pcie.mode).toBe('not-confirmed');
    expect(pcie.verdict).toContain('did not show the symptom this cause predicts (a limit of ≈ 3.56 Gb/s)');
    const staticScore = run({ findings: [x.pcieBelow] })[0]!.score;
    expect(pcie.score).toBeLessThan(staticScore);
  });

  it("with a bench that reached the link's ceiling, a predicted lower ceiling is refuted and leaves the ranking", () => {
    const atLine = run({ findings: [x.pcieBelow, x.atCeiling], bench: bench({ resultGbps: 9.38 }) });
    const { diagnoses, refuted } = partitionDiagnoses(atLine);
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('pcie-bandwidth-below-port');
    const pcie = refuted.find((item) => item.ruleId === 'pcie-bandwidth-below-port')!;
    expect(pcie.mode).toBe('refuted');
    expect(pcie.verdict).toBe(
      "Refuted by the measurement: the bench reached the link's goodput ceiling, not the ≈ 3.56 Gb/s this cause predicts.",
    );
  });

  it("is not refuted by a pasted bench at the ceiling when the poster's own before-and-after test is the trigger", () => {
    // The ticket says turning an offload off moved the upload rate; its download run reached line rate.
    const atLine = run({
      findings: [x.pcieBelow, x.atCeiling],
      bench: bench({ resultGbps: 9.38 }),
      facts: { 'ticket.reports': { offloadEffectReported: true } },
    });
    const { diagnoses, refuted } = partitionDiagnoses(atLine);
    expect(diagnoses.find((item) => item.ruleId === 'offload-effect-reported')).toMatchObject({ cause: 9 });
    expect(refuted.map((item) => item.ruleId)).toContain('pcie-bandwidth-below-port');
    expect(refuted.map((item) => item.ruleId)).not.toContain('offload-effect-reported');
  });

  it('a measured single-core limit outranks static configuration hints', () => {
    const diagnoses = run({ findings: [x.singleCore, x.below(4.1), x.standardMtu, x.qdiscNotFq], bench: bench({ resultGbps: 4.1 }) });
    expect(diagnoses[0]).toMatchObject({ ruleId: 'tool-single-core-bound', cause: 2, mode: 'confirmed', subject: 'host' });
  });

  it('host-level diagnoses appear once, not once per interface', () => {
    const diagnoses = run({ findings: [x.governor], interfaces: [x.nicFor('eth0'), x.nicFor('eth1')] });
    expect(diagnoses.filter((item) => item.ruleId === 'cpu-governor')).toHaveLength(1);
    expect(diagnoses.find((item) => item.ruleId === 'cpu-governor')!.subject).toBe('host');
  });

  it('interface diagnoses are per interface', () => {
    const other = { ...x.pcieBelow, subject: 'eth1' };
    const diagnoses = run({ findings: [x.pcieBelow, other], interfaces: [x.nicFor('enp65s0f0'), x.nicFor('eth1')] });
    expect(
      diagnoses
        .filter((item) => item.ruleId === 'pcie-bandwidth-below-port')
        .map((item) => item.subject)
        .sort(),
    ).toEqual(['enp65s0f0', 'eth1']);
  });
});

describe('tiers: measured > confirmed > static, informational last', () => {
  const plateau = {
    findings: [x.below(1.9), x.singleThreaded, x.standardMtu, x.tcpRmem],
    bench: bench({ resultGbps: 1.9, processes: 2, server: '3.12' }),
  };

  it('a generic plateau confirms no static hint: single-threaded peer, MTU and socket buffers stay not confirmed', () => {
    const diagnoses = run(plateau);
    for (const id of ['peer-iperf3-single-threaded', 'mtu-standard-fast-link', 'socket-buffers-small', 'tool-single-threaded-version']) {
      expect(diagnoses.find((item) => item.ruleId === id)?.mode, id).toBe('not-confirmed');
    }
    expect(diagnoses[0]!.ruleId).toBe('multi-process-sum-below');
  });

  it('the single-threaded peer is confirmed by a single-core-bound measurement, and the measured rule still ranks first', () => {
    const diagnoses = run({ findings: [x.singleCore, x.below(4.1)], bench: bench({ resultGbps: 4.1, server: '3.12' }) });
    const peer = diagnoses.find((item) => item.ruleId === 'peer-iperf3-single-threaded')!;
    expect(peer.mode).toBe('confirmed');
    expect(diagnoses[0]!.ruleId).toBe('tool-single-core-bound');
    expect(diagnoses[0]!.score).toBeGreaterThan(peer.score);
  });

  it('a rule triggered by a measured symptom outranks a stronger static rule merely confirmed by it', () => {
    // pcie-bandwidth-below-port is critical and high-confidence, yet the bench-triggered rule wins.
    const diagnoses = run({
      findings: [x.pcieBelow, x.pcieBound(3.13, 3.56), x.singleCore],
      bench: bench({ resultGbps: 3.13, pcieGbps: 3.56 }),
    });
    const measured = diagnoses.find((item) => item.ruleId === 'tool-single-core-bound')!;
    const confirmed = diagnoses.find((item) => item.ruleId === 'pcie-bandwidth-below-port')!;
    expect(confirmed.mode).toBe('confirmed');
    expect(diagnoses.indexOf(measured)).toBeLessThan(diagnoses.indexOf(confirmed));
  });

  it('confirming evidence is listed but does not count as another source', () => {
    const withBench = run({ findings: [x.pcieBelow, x.pcieBound(3.13, 3.56)], bench: bench({ resultGbps: 3.13, pcieGbps: 3.56 }) }).find(
      (item) => item.ruleId === 'pcie-bandwidth-below-port',
    )!;
    const alone = run({ findings: [x.pcieBelow] })[0]!;
    expect(withBench.evidence).toContainEqual({ check: 'throughput', symptom: 'pcie-bound', subject: 'host' });
    // Only the tier bonus separates them: same trigger, same severity, same number of sources.
    expect(withBench.score - alone.score).toBe(50);
  });

  it('a checklist rule triggered by the bench ranks with confirmed diagnoses, below the specific cause it confirms', () => {
    const diagnoses = run({ findings: [x.below(6.5), x.offloadOff()], bench: bench({ resultGbps: 6.5, processes: 1 }) });
    expect(diagnoses[0]!.ruleId).toBe('offloads-off');
  });

  it('informational diagnoses (causes 18, 19) come after every actionable one, whatever their score', () => {
    const diagnoses = run({ findings: [x.atCeiling, x.versionSkew, x.singleQueue], bench: bench({ resultGbps: 9.38 }) });
    const rss = diagnoses.find((item) => item.ruleId === 'rss-single-queue')!;
    expect(rss.mode).toBe('refuted');
    // Informational causes sort last, and from info findings they are notes, never ranked diagnoses.
    expect(
      diagnoses
        .slice(-2)
        .map((item) => item.cause)
        .sort(),
    ).toEqual([18, 19]);
    const { diagnoses: ranked, notes } = partitionDiagnoses(diagnoses);
    expect(ranked.map((item) => item.cause)).not.toContain(19);
    expect(notes.map((item) => item.cause).sort()).toEqual([18, 19]);
  });

  it("a measured plateau while offloads are off is the offloads' doing: offloads-off ranks first, not the tool", () => {
    const diagnoses = run({
      findings: [x.offloadOff(), x.singleCore, x.below(8.1), x.singleThreaded],
      bench: bench({ resultGbps: 8.1, processes: 2 }),
    });
    expect(diagnoses[0]).toMatchObject({ ruleId: 'offloads-off', mode: 'confirmed' });
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('tool-single-core-bound');
  });

  it('fluctuation at line rate limits nothing, and neither does one queue: both out of the ranking', () => {
    const diagnoses = run({ findings: [x.atCeiling, x.unstable, x.singleQueue], bench: bench({ resultGbps: 9.38 }) });
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('results-fluctuate');
    expect(diagnoses.find((item) => item.ruleId === 'rss-single-queue')).toMatchObject({ cause: 6, mode: 'refuted' });
    expect(
      partitionDiagnoses(diagnoses)
        .diagnoses.map((item) => item.cause)
        .filter((cause) => cause !== 18),
    ).toEqual([]);
  });

  it('a CPU-bound single process ranks first when the processes together reach line rate; the one-queue prediction is refuted', () => {
    const diagnoses = run({ findings: [x.atCeiling, x.singleCore, x.singleQueue], bench: bench({ resultGbps: 9.38 }) });
    const { diagnoses: ranked, refuted } = partitionDiagnoses(diagnoses);
    expect(ranked[0]).toMatchObject({ ruleId: 'tool-single-core-bound', cause: 2, mode: 'confirmed' });
    expect(ranked.map((item) => item.ruleId)).not.toContain('rss-single-queue');
    expect(refuted.find((item) => item.ruleId === 'rss-single-queue')).toMatchObject({ mode: 'refuted', cause: 6 });
    expect(refuted.find((item) => item.ruleId === 'rss-single-queue')!.verdict).toContain('Refuted by the measurement');
  });

  it('an info finding gives at most a low-confidence note, never a diagnosis', () => {
    const { diagnoses, notes } = partitionDiagnoses(run({ findings: [{ ...x.budgetExhausted, severity: 'info' }] }));
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('softnet-budget-exhausted');
    expect(notes.find((item) => item.ruleId === 'softnet-budget-exhausted')).toMatchObject({ confidence: 'low', severity: 'info' });
  });

  it('softnet time_squeeze since boot is confirmed only by a rise during the bench, not by retransmits', () => {
    const since = run({ findings: [x.budgetExhausted, x.retransmits], bench: bench({}) });
    expect(since.find((item) => item.ruleId === 'softnet-budget-exhausted')!.mode).toBe('not-confirmed');
    expect(since[0]!.ruleId).toBe('retransmits-path-loss');
    const during = run({ findings: [x.budgetExhausted], bench: bench({ softnetTimeSqueeze: 12 }) });
    expect(during.find((item) => item.ruleId === 'softnet-budget-exhausted')!.mode).toBe('confirmed');
  });
});

describe('an egress shaper (qdisc check)', () => {
  it('a plateau at the shaped rate confirms the shaper, which then ranks first; the generic plateau rules stay quiet', () => {
    const diagnoses = run({
      findings: [x.egressShaped(2), x.below(1.88), x.standardMtu],
      bench: bench({ resultGbps: 1.88, processes: 2 }),
    });
    expect(diagnoses[0]).toMatchObject({ ruleId: 'egress-shaped-below-link', cause: 16, mode: 'confirmed', subject: IF });
    expect(diagnoses[0]!.evidence).toContainEqual({ check: 'throughput', symptom: 'below-link-ceiling', subject: 'host' });
    expect(diagnoses[0]!.explanation).toContain('limits egress to 2 Gb/s, 20 % of its 10 Gb/s link');
    expect(diagnoses[0]!.explanation).toContain('The bench measured 1.88 Gb/s');
    expect(diagnoses[0]!.fixes[0]).toMatchObject({
      commands: [`tc -s qdisc show dev ${IF}`, `tc qdisc del dev ${IF} root`],
      disruptive: true,
    });
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('multi-process-sum-below');
  });

  it('a plateau far below the shaped rate does not confirm it, and the generic rule stays', () => {
    const diagnoses = run({ findings: [x.egressShaped(8), x.below(3.0)], bench: bench({ resultGbps: 3.0, processes: 2 }) });
    expect(diagnoses.find((item) => item.ruleId === 'egress-shaped-below-link')!.mode).toBe('not-confirmed');
    expect(diagnoses.map((item) => item.ruleId)).toContain('multi-process-sum-below');
  });

  it('without a bench it says what it limits to', () => {
    const [shaper] = run({ findings: [x.egressShaped(2)] });
    expect(shaper).toMatchObject({ ruleId: 'egress-shaped-below-link', mode: 'static', limit: '≈ 2 Gb/s' });
  });

  it("retransmits caused by the shaper dropping are the shaper's, not a path-loss diagnosis", () => {
    const diagnoses = run({
      findings: [x.egressShaped(2), x.qdiscDrops, x.retransmits, x.below(1.9)],
      bench: bench({ resultGbps: 1.9, processes: 2 }),
    });
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('retransmits-path-loss');
    expect(diagnoses.map((item) => item.ruleId)).not.toContain('unpaced-streams-retransmits');
    expect(diagnoses[0]!.ruleId).toBe('egress-shaped-below-link');
    // Without a shaper, qdisc drops with retransmits are cause 17.
    const unshaped = run({ findings: [x.qdiscDrops, x.retransmits], bench: bench({}) });
    expect(unshaped[0]).toMatchObject({ ruleId: 'unpaced-streams-retransmits', cause: 17 });
  });
});

describe('the symptom → cause index of CAUSES.md', () => {
  const causesOf = (...args: Parameters<typeof run>) => new Set(run(...args).flatMap((item) => [item.cause, ...item.relatedCauses]));

  it('10G stuck near 3–3.6 Gb/s: 1, 16, 2', () => {
    const measured = { bench: bench({ resultGbps: 3.5 }) };
    expect(causesOf({ findings: [x.below(3.5)], ...measured })).toEqual(new Set([1, 16, 2]));
    expect(run({ findings: [x.below(3.5), x.pcieBelow], ...measured })[0]!.cause).toBe(1);
    expect(run({ findings: [x.below(3.5), x.belowCapability], ...measured })[0]!.cause).toBe(16);
    expect(run({ findings: [x.below(3.5), x.singleCore], ...measured })[0]!.cause).toBe(2);
  });

  it('one core at 100 %, others idle: 2, 3, 5, 6', () => {
    const measured = { bench: bench({ resultGbps: 4.1 }) };
    expect(run({ findings: [x.singleCore], ...measured })[0]!.cause).toBe(2);
    expect(
      run({ findings: [x.singleCore], facts: { 'iperf3.version': { version: '3.17' } }, ...measured }).map((item) => item.cause),
    ).toContain(3);
    const irq = run({ findings: [x.singleCore, x.irqsOneCpu], ...measured }).find((item) => item.cause === 5)!;
    expect(irq.mode).toBe('confirmed');
    // One iperf3 process at its CPU limit while more processes go faster is the tool, not the queues:
    // it names the one-queue NIC as a suspect but does not confirm it.
    const rss = run({ findings: [x.singleCore, x.singleQueue], ...measured }).find((item) => item.cause === 6)!;
    expect(rss.mode).toBe('not-confirmed');
  });

  it('chronic 6–7 Gb/s on 10GbE: 2, 1, 6, 9, 11, 18', () => {
    const checklist = run({ findings: [x.below(6.5)], bench: bench({ resultGbps: 6.5 }) }).find(
      (item) => item.ruleId === 'chronic-6-7-on-10g',
    )!;
    expect([checklist.cause, ...checklist.relatedCauses].sort((a, b) => a - b)).toEqual([1, 2, 6, 9, 11, 18]);
    expect(run({ findings: [x.below(6.5), x.offloadOff()], bench: bench({ resultGbps: 6.5 }) })[0]!.cause).toBe(9);
    expect(run({ findings: [x.atCeiling], bench: bench({ resultGbps: 9.38 }) }).map((item) => item.cause)).toEqual([18]);
  });

  it('40G ~28 Gb/s: 1, 4, 2', () => {
    const diagnoses = run({
      findings: [x.below(28, { linkGbps: 40, ceilingGbps: 37.7, percent: 74 })],
      bench: bench({ resultGbps: 28, linkMbps: 40_000, processes: 4 }),
    });
    const plateau = diagnoses.find((item) => item.ruleId === 'fast-link-plateau')!;
    expect([plateau.cause, ...plateau.relatedCauses]).toEqual([1, 4, 2]);
  });

  it('multi-process sum below expectation: 4, 13, 12', () => {
    const sum = run({ findings: [x.below(8.1)], bench: bench({ resultGbps: 8.1, processes: 4 }) }).find(
      (item) => item.ruleId === 'multi-process-sum-below',
    )!;
    expect([sum.cause, ...sum.relatedCauses]).toEqual([4, 13, 12]);
    expect(
      run({ findings: [x.below(8.1), x.smt], bench: bench({ resultGbps: 8.1, processes: 12 }), physicalCores: 8 }).map(
        (item) => item.ruleId,
      ),
    ).toContain('smt-oversubscribed');
  });

  it('retransmits: 7, 15, 17, 11, 16, 14 (each confirmed by the measured loss)', () => {
    const measured = { bench: bench({}) };
    const confirmedCauses = (findings: x.Finding[]) =>
      run({ findings: [x.retransmits, ...findings], ...measured })
        .filter((item) => item.mode === 'confirmed')
        .map((item) => item.cause);
    expect(confirmedCauses([x.rxRingBelow, x.nicDrops])).toContain(7);
    expect(confirmedCauses([x.backlogDrops])).toContain(15);
    expect(confirmedCauses([x.qdiscNotFq])).toContain(17);
    expect(confirmedCauses([x.bondMismatch])).toContain(11);
    expect(confirmedCauses([x.physicalErrors])).toContain(16);
    expect(confirmedCauses([x.pauseOff])).toContain(14);
  });

  it('upload and download differ: 5 with 4 and 6; results fluctuate: 12 with 13, 4, 5, 7', () => {
    const [asymmetry] = run({ findings: [x.bidir], bench: bench({}) });
    expect([asymmetry!.cause, ...asymmetry!.relatedCauses]).toEqual([5, 4, 6]);
    const fluctuating = run({ findings: [x.unstable, x.governor], bench: bench({}) });
    expect(fluctuating[0]).toMatchObject({ ruleId: 'cpu-governor', mode: 'confirmed' });
    const generic = fluctuating.find((item) => item.ruleId === 'results-fluctuate')!;
    expect([generic.cause, ...generic.relatedCauses]).toEqual([12, 13, 4, 5, 7]);
  });

  it('storage is not the network: memory-to-memory at line rate gives a low-confidence informational diagnosis', () => {
    const [diagnosis] = run({ findings: [x.atCeiling], bench: bench({ resultGbps: 9.38 }) });
    expect(diagnosis).toMatchObject({ ruleId: 'not-the-network', cause: 18, confidence: 'low', mode: 'confirmed' });
    expect(diagnosis!.explanation).toContain('SMB Multichannel');
  });
});
