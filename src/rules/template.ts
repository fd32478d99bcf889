import type { Scalar } from '../report/schema.js';

/**
 * The one template engine (check messages and fixes, rule explanations, fixes and titles).
 * Values a template can use: finding data and phrases, bound facts, built-ins ({subject}, {pciAddress}, ...).
 */
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

export interface Filled {
  text: string;
  /** Placeholders with no value (null or undefined), left visible in `text`. */
  missing: string[];
}

/**
 * Fills what it can and leaves an unknown placeholder visible: a finding's message is always
 * written (the caller decides whether a missing value is an error). An empty string is a value
 * here: a phrase may have nothing to add.
 */
export function fill(template: string, bindings: Bindings): Filled {
  const missing = new Set<string>();
  const text = template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = bindings[name];
    if (value === undefined || value === null) {
      missing.add(name);
      return whole;
    }
    return format(value);
  });
  return { text, missing: [...missing] };
}
