/**
 * Strict mode: under tests (vitest sets VITEST) or with NICDOCTOR_STRICT=1, a contract breach
 * (finding data that does not match its symptom's schema, a template placeholder with no value)
 * throws, so that it fails the test that caused it. In production it is logged and the report
 * still comes out.
 */
export function isStrict(): boolean {
  return Boolean(process.env.VITEST) || process.env.NICDOCTOR_STRICT === '1';
}
