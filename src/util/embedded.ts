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
}

export function embeddedAssets(): EmbeddedAssets | undefined {
  return (globalThis as { __NICDOCTOR_EMBEDDED__?: EmbeddedAssets }).__NICDOCTOR_EMBEDDED__;
}

/**
 * A shipped policy by name: "25g", "25g.yaml" or "policies/25g.yaml" (the README's spelling),
 * for --policy in the executable, which has no policies/ directory beside it.
 */
export function embeddedPolicy(file: string): { name: string; text: string } | undefined {
  const policies = embeddedAssets()?.policies;
  if (!policies) return undefined;
  const base = file.replace(/^.*\//, '');
  const name = base.endsWith('.yaml') || base.endsWith('.yml') ? base : `${base}.yaml`;
  const text = policies[name];
  return text === undefined ? undefined : { name, text };
}
