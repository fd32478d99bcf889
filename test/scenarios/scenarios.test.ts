import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/pipeline/scan.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { checkStatusSchema, severitySchema } from '../../src/report/schema.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES } from '../helpers/fixtures.js';

/** What a host scenario must produce; partial: other findings may appear too unless listed in `absent`. */
const expectationSchema = z.object({
  description: z.string(),
  profile: z.enum(['throughput', 'measurement', 'latency']).optional(),
  findings: z.array(z.object({ check: z.string(), symptom: z.string(), subject: z.string(), severity: severitySchema.optional() })),
  statuses: z.record(z.string(), checkStatusSchema).default({}),
  absent: z.array(z.object({ check: z.string(), symptom: z.string().optional(), subject: z.string().optional() })).default([]),
  /** The diagnoses that must lead, in rank order (rules/*.yaml). */
  topDiagnoses: z.array(z.object({ ruleId: z.string(), subject: z.string() })).default([]),
  /** Low-confidence notes that must be present (report.notes), and the verdict's status. */
  notes: z.array(z.object({ ruleId: z.string(), subject: z.string() })).default([]),
  verdict: z.enum(['bottleneck', 'no-bottleneck', 'inconclusive']).optional(),
});

const HOSTS = path.join(FIXTURES, 'hosts');
const scenarios = existsSync(HOSTS)
  ? readdirSync(HOSTS)
      .filter((name) => existsSync(path.join(HOSTS, name, 'expected.json')))
      .sort()
  : [];

describe('host scenarios (recorded snapshots through the whole pipeline)', () => {
  it('has at least four scenarios', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(4);
  });

  it.each(scenarios)('%s', async (name) => {
    const dir = path.join(HOSTS, name);
    const expected = expectationSchema.parse(JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')));
    const io = await SnapshotHostIO.open(dir);
    const { report } = await scan({
      io,
      checks,
      log: silentLogger(),
      sourcePath: dir,
      ...(expected.profile ? { profile: expected.profile } : {}),
    });

    const broken = report.checks
      .filter((check) => check.status === 'error')
      .map((check) => `${check.id}: ${check.error?.message ?? check.reason}`);
    expect(broken, 'no check may break on a real capture').toEqual([]);
    const findings = report.checks.flatMap((check) => check.findings);
    for (const want of expected.findings) {
      expect(findings, `expected ${want.check}/${want.symptom} on ${want.subject}`).toContainEqual(expect.objectContaining(want));
    }
    for (const [id, status] of Object.entries(expected.statuses)) {
      const check = report.checks.find((candidate) => candidate.id === id);
      expect(check?.status, `status of ${id} (reason: ${check?.reason ?? '-'})`).toBe(status);
    }
    const ranked = report.diagnoses.slice(0, expected.topDiagnoses.length).map(({ ruleId, subject }) => ({ ruleId, subject }));
    expect(ranked, 'leading diagnoses').toEqual(expected.topDiagnoses);
    for (const note of expected.notes)
      expect(
        report.notes.map(({ ruleId, subject }) => ({ ruleId, subject })),
        'notes',
      ).toContainEqual(note);
    if (expected.verdict) expect(report.verdict?.status).toBe(expected.verdict);
    for (const unwanted of expected.absent) {
      expect(
        findings.filter((finding) => Object.entries(unwanted).every(([key, value]) => (finding as Record<string, unknown>)[key] === value)),
      ).toEqual([]);
    }
  });
});
