/**
 * Fills a fix's operations with a finding's values (the one template engine, render()), then
 * checks each filled operation against its kind's schema: a ring size that is not a number is
 * refused with a note, never printed or run. The shell text reports print is rendered from the
 * checked operation (operationText), never the other way round.
 */
import type { Scalar } from '../report/schema.js';
import { operationText } from '../domain/fix-commands.js';
import {
  checkOperation,
  operationLabel,
  type DropIn,
  type Operation,
  type OperationTemplate,
  type SymptomFixTemplate,
} from '../report/fix-operations.js';
import { placeholders, render, type Bindings } from './template.js';

/** The name when the whole parameter is one placeholder ("{rxMax}"), in the one engine's syntax. */
function singlePlaceholder(value: string): string | undefined {
  const names = placeholders(value);
  return names.length === 1 && value === `{${names[0]}}` ? names[0] : undefined;
}

const absent = (value: Scalar | undefined) => value === undefined || value === null || value === '';

/**
 * One parameter. A parameter that is exactly one placeholder with no value is left out (an
 * optional setting: the TX ring of a driver without one); a placeholder inside a longer text
 * with no value makes the whole operation unusable.
 */
function fill(value: unknown, bindings: Bindings, missing: Set<string>, top: boolean): unknown {
  if (typeof value === 'string') {
    const single = singlePlaceholder(value);
    if (single) {
      const bound = bindings[single];
      if (absent(bound)) {
        if (!top) missing.add(single);
        return undefined;
      }
      return bound;
    }
    const rendered = render(value, bindings);
    if (rendered.ok) return rendered.text;
    for (const name of rendered.missing) missing.add(name);
    return undefined;
  }
  // Array items are words (argv) or numbers written as text: a bound number becomes its text.
  if (Array.isArray(value))
    return value.map((item) => fill(item, bindings, missing, false)).map((item) => (typeof item === 'number' ? String(item) : item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).flatMap(([key, item]) => {
        const filled = fill(item, bindings, missing, false);
        return filled === undefined ? [] : [[key, filled]];
      }),
    );
  }
  return value;
}

/** note null: every setting of the operation was left out for want of a value, so there is nothing to do. */
export type FilledOperation = { ok: true; op: Operation } | { ok: false; note: string | null };

export function fillOperation(template: OperationTemplate, bindings: Bindings): FilledOperation {
  const missing = new Set<string>();
  const filled: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    const result = fill(value, bindings, missing, true);
    if (result !== undefined) filled[key] = result;
  }
  const label = operationLabel(filled as { kind: string });
  if (missing.size) return { ok: false, note: `${label} left out: no value for ${[...missing].join(', ')}` };
  const checked = checkOperation(filled);
  const omitted = Object.keys(template).filter((key) => !(key in filled));
  if (!checked.ok && checked.reason === 'no setting to change' && omitted.length > 0) return { ok: false, note: null };
  if (!checked.ok) {
    // A required parameter left out because its single placeholder had no value: say which.
    const unbound = Object.values(template)
      .flatMap((value) => (typeof value === 'string' ? placeholders(value) : []))
      .filter((name) => absent(bindings[name]));
    return { ok: false, note: `${label} refused: ${checked.reason}${unbound.length ? ` (no value for ${unbound.join(', ')})` : ''}` };
  }
  return { ok: true, op: checked.op };
}

export interface FilledFix {
  operations: Operation[];
  /** Shell text of each operation, in order (what reports print as commands). */
  commands: string[];
  notes: string[];
}

export function fillOperations(templates: readonly OperationTemplate[], bindings: Bindings): FilledFix {
  const result: FilledFix = { operations: [], commands: [], notes: [] };
  for (const template of templates) {
    const filled = fillOperation(template, bindings);
    if (!filled.ok) {
      if (filled.note) result.notes.push(filled.note);
      continue;
    }
    result.operations.push(filled.op);
    result.commands.push(operationText(filled.op));
  }
  return result;
}

/**
 * A drop-in: each configuration line stands alone, so unknown lines are left out and the rest
 * still applies; a file with nothing but comments and headers is left out.
 */
export function fillDropIn(template: DropIn, bindings: Bindings, notes: string[]): DropIn | undefined {
  const file = render(template.file, bindings);
  const lines = template.content
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => ({ line, rendered: render(line, bindings) }));
  for (const { line, rendered } of lines)
    if (!rendered.ok) notes.push(`line "${line}" of ${template.file} left out: no value for ${rendered.missing.join(', ')}`);
  const kept = lines.flatMap(({ rendered }) => (rendered.ok ? [rendered.text] : []));
  const meaningful = kept.some((line) => line.trim() !== '' && !line.trim().startsWith('#') && !/^\[.*\]$/.test(line.trim()));
  if (!file.ok) {
    notes.push(`persistent configuration ${template.file} left out: no value for ${file.missing.join(', ')}`);
    return undefined;
  }
  return meaningful ? { file: file.text, content: `${kept.join('\n')}\n` } : undefined;
}

/**
 * The `{commands}` binding of a structured symptom fix: its operations' shell text, "; "-joined.
 * Bound like any value (never spliced into the template), so text from evidence in it (an
 * interface named `$(touch${IFS}P)`) is not read as a placeholder. No binding when no operation
 * could be filled: the engine's unfilled-placeholder policy reports it.
 */
export function fixCommandsBinding(fix: SymptomFixTemplate, bindings: Bindings): Bindings {
  const filled = fillOperations(fix.ops ?? [], bindings);
  return filled.commands.length ? { commands: filled.commands.join('; ') } : {};
}
