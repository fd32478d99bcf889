import type { Scalar } from '../report/schema.js';

/** Values a template can use: finding data, bound facts, built-ins ({subject}, {pciAddress}, ...). */
export type Bindings = Record<string, Scalar>;

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_.\-/]*)\}/g;

export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

export type Rendered = { ok: true; text: string } | { ok: false; missing: string[] };

function format(value: Scalar): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
  return String(value);
}

/**
 * Fills every placeholder, or reports which have no value: a command is never printed
 * half-filled ("ethtool -G enp65s0f0 rx  tx" or "rx {rxMax}").
 */
export function render(template: string, bindings: Bindings): Rendered {
  const missing = placeholders(template).filter((name) => bindings[name] === undefined || bindings[name] === null || bindings[name] === '');
  if (missing.length > 0) return { ok: false, missing: [...new Set(missing)] };
  return { ok: true, text: template.replace(PLACEHOLDER, (_, name: string) => format(bindings[name]!)) };
}
