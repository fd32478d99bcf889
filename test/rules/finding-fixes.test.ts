import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/pipeline/scan.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { fixFindingsFromDiagnoses, fixSentence } from '../../src/rules/finding-fixes.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { report, run } from './helpers.js';
import * as x from './fixtures.js';

describe('one fix per finding', () => {
  it("a finding a diagnosis explains shows that diagnosis's fix; others keep their check's fix", () => {
    const rings = { ...x.rxRingBelow, fix: "the check's own fix" };
    const unexplained = { ...x.flapping, subject: 'eth9', fix: 'replace the cable' };
    const built = report({ findings: [rings, x.nicDrops, unexplained] });
    built.diagnoses = run({ findings: [rings, x.nicDrops] });
    const top = built.diagnoses.find((diagnosis) =>
      diagnosis.evidence.some((item) => 'check' in item && item.symptom === 'rx-ring-below-max'),
    )!;
    fixFindingsFromDiagnoses(built);
    const findings = built.checks.flatMap((check) => check.findings);
    const ring = findings.find((finding) => finding.symptom === 'rx-ring-below-max')!;
    expect(ring.fix).toBe(fixSentence(top.fixes[0]!));
    expect(ring.fix).toBe(
      'Raise the rings of enp65s0f0 to the driver maximum (the link resets briefly), then make it persistent. ethtool -G enp65s0f0 rx 8192 tx 8192',
    );
    expect(findings.find((finding) => finding.subject === 'eth9')!.fix).toBe('replace the cable');
  });

  it("in a scan of a real capture, every finding a diagnosis names carries the highest-ranked one's fix", async () => {
    const { report: scanned } = await scan({
      io: await SnapshotHostIO.open(path.join(FIXTURES, 'hosts', 'mlx5-irq-concentration')),
      checks,
      log: silentLogger(),
    });
    const findings = scanned.checks.flatMap((check) => check.findings);
    let explained = 0;
    for (const finding of findings) {
      const first = scanned.diagnoses.find(
        (diagnosis) =>
          diagnosis.fixes.length > 0 &&
          diagnosis.evidence.some(
            (item) =>
              'check' in item && item.check === finding.check && item.symptom === finding.symptom && item.subject === finding.subject,
          ),
      );
      if (!first) continue;
      explained += 1;
      expect(finding.fix, `${finding.check}/${finding.symptom}`).toBe(fixSentence(first.fixes[0]!));
    }
    expect(explained).toBeGreaterThan(0);
  });
});
