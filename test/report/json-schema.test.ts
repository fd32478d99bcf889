import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, type Report } from '../../src/report/schema.js';
import { renderReportJsonSchema, reportJsonSchema } from '../../src/report/json-schema.js';
import { reportJsonSchemaErrors } from '../../lab/report-json-schema.js';
import { scanScenario, scenarioNames, syntheticBench } from '../helpers/scenario-reports.js';

describe('report JSON Schema', () => {
  it('the committed schema/report.schema.json is generated from the zod schema (update: vitest -u, or node scripts/generate-report-schema.mjs after a build)', async () => {
    await expect(renderReportJsonSchema()).toMatchFileSnapshot('../../schema/report.schema.json');
  });

  it('names its draft, version and the contract fields', () => {
    const schema = reportJsonSchema() as {
      $schema: string;
      $id: string;
      required: string[];
      properties: Record<string, { const?: string }>;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(`urn:nicdoctor:report:${SCHEMA_VERSION}`);
    expect(schema.required).toEqual(
      expect.arrayContaining(['schemaVersion', 'tool', 'host', 'interfaces', 'checks', 'summary', 'collectors']),
    );
    expect(schema.required).not.toContain('bench');
    expect(schema.properties.schemaVersion?.const).toBe(SCHEMA_VERSION);
  });

  it('covers every host scenario', () => {
    expect(scenarioNames.length).toBeGreaterThanOrEqual(6);
  });

  it.each(scenarioNames)('validates the report of scenario %s', async (name) => {
    const { report } = await scanScenario(name);
    expect(reportJsonSchemaErrors(report)).toEqual([]);
  });

  it('validates a report with a peer bench (synthetic measurement through the real aggregation and throughput check)', async () => {
    const { report } = await scanScenario(
      'ixgbe-10g-pcie-degraded',
      syntheticBench({ processes: 4, perProcessGbps: 1.75, retransmits: 12 }),
    );
    expect(report.bench?.result?.processes).toBe(4);
    expect(report.bench?.findings.length).toBeGreaterThan(0);
    expect(reportJsonSchemaErrors(report)).toEqual([]);
    expect(reportJsonSchemaErrors(JSON.stringify(report, null, 2))).toEqual([]);
  });

  it('rejects what the contract forbids, naming the place', async () => {
    const { report } = await scanScenario('mlx5-irq-concentration');
    const broken = JSON.parse(JSON.stringify(report)) as Report & Record<string, unknown>;
    broken.checks[0]!.status = 'maybe' as never;
    expect(reportJsonSchemaErrors(broken).join('\n')).toContain('/checks/0/status');

    const missing = JSON.parse(JSON.stringify(report)) as Partial<Report>;
    delete missing.summary;
    expect(reportJsonSchemaErrors(missing).join('\n')).toContain('summary');

    const wrongVersion = { ...JSON.parse(JSON.stringify(report)), schemaVersion: '0.9' };
    expect(reportJsonSchemaErrors(wrongVersion)).not.toEqual([]);

    const badEvidence = JSON.parse(JSON.stringify(report)) as Report;
    badEvidence.checks
      .find((check) => check.findings.length)!
      .findings[0]!.evidence.push({ label: 'x', observed: { nested: true } as never });
    expect(reportJsonSchemaErrors(badEvidence).join('\n')).toMatch(/evidence\/\d+\/observed/);
  });
});
