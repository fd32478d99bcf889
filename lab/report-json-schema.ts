import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { REPORT_JSON_SCHEMA_PATH } from '../src/report/json-schema.js';
import { REPO_ROOT } from './repo-root.js';

let compiled: ValidateFunction | null = null;

/** The committed schema/report.schema.json, compiled once (strict: a keyword ajv does not know is an error; `type: [..]` unions are how zod writes scalars). */
function validator(): ValidateFunction {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, REPORT_JSON_SCHEMA_PATH), 'utf8')) as Record<string, unknown>;
    compiled = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true }).compile(schema);
  }
  return compiled;
}

function describeError(error: ErrorObject): string {
  return `${error.instancePath || '(root)'} ${error.message ?? error.keyword}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`;
}

/**
 * Validates a report, as JSON text or as the object a reporter got, against the committed JSON
 * Schema; returns the problems (empty when valid). Goes through JSON so that what is checked is
 * what `--format json` prints.
 */
export function reportJsonSchemaErrors(report: unknown): string[] {
  const document: unknown = typeof report === 'string' ? JSON.parse(report) : JSON.parse(JSON.stringify(report));
  const validate = validator();
  return validate(document) ? [] : (validate.errors ?? []).map(describeError);
}
