/**
 * What the single executable carries inside itself (scripts/package.mjs puts it in the bundle's
 * banner): the version, the compiled rule catalogue and the policies. Undefined when nicdoctor
 * runs from its package directory, where these are files.
 */
export interface EmbeddedAssets {
  version: string;
  rules: { names: string[]; documents: unknown[] };
  /** Policy file name (25g.yaml) → YAML text. */
  policies: Record<string, string>;
  /** Known-issue file name → its parsed YAML document (known-issues/*.yaml). */
  knownIssues?: Record<string, unknown>;
}

export function embeddedAssets(): EmbeddedAssets | undefined {
  return (globalThis as { __NICDOCTOR_EMBEDDED__?: EmbeddedAssets }).__NICDOCTOR_EMBEDDED__;
}
