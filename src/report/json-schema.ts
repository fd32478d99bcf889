import { z } from 'zod';
import { SCHEMA_VERSION, reportSchema } from './schema.js';

/** Where the generated JSON Schema is committed, relative to the package root. */
export const REPORT_JSON_SCHEMA_PATH = 'schema/report.schema.json';

/**
 * The JSON Schema (draft 2020-12) of the report, generated from the zod schema so the two
 * cannot disagree. `io: 'output'` describes what nicdoctor emits: fields with defaults are
 * required, and unknown fields are rejected because the zod parse strips them.
 */
export function reportJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(reportSchema, { io: 'output', target: 'draft-2020-12' }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: `urn:nicdoctor:report:${SCHEMA_VERSION}`,
    title: 'nicdoctor report',
    description: `The JSON report of nicdoctor (scan, analyze, bench --format json), schemaVersion ${SCHEMA_VERSION}. Generated from src/report/schema.ts by scripts/generate-report-schema.mjs: do not edit by hand.`,
    ...rest,
  };
}

/** The file's exact text: stable key order, two-space indent, trailing newline. */
export function renderReportJsonSchema(): string {
  return JSON.stringify(reportJsonSchema(), null, 2) + '\n';
}
