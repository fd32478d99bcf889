/**
 * Every rule's fixes, rendered from the rule-test fixtures (findings with the data their checks
 * report): each operation passes its schema again, prints as the report's command, and every
 * operation --apply may run yields an argv of plain words on a valid interface or net.* key.
 */
import { describe, expect, it } from 'vitest';
import { checkOperation, isApplicable, operationArgv, operationText, type Operation } from '../../src/fix/operations.js';
import type { Diagnosis } from '../../src/rules/engine.js';
import type { Finding } from '../../src/report/schema.js';
import { isValidInterfaceName } from '../../src/util/validate.js';
import { bench, catalogue, run } from '../rules/helpers.js';
import * as x from '../rules/fixtures.js';
import * as events from '../rules/event-fixtures.js';

/** Every fixture finding, the kernel-event and bond ones included (the functions called with their defaults). */
function fixtureFindings(): Finding[] {
  return [...Object.values(x), ...Object.values(events)].flatMap((value) => {
    const item: unknown = typeof value !== 'function' ? value : value === x.below ? x.below(5) : (value as () => unknown)();
    return item && typeof item === 'object' && 'symptom' in item && 'check' in item ? [item as Finding] : [];
  });
}

function diagnosesOf(findings: readonly Finding[], processes = 1): Diagnosis[] {
  const measured = findings.filter((finding) => finding.check === 'throughput');
  return run({ findings: [...findings], ...(measured.length || processes > 1 ? { bench: bench({ processes }, measured) } : {}) });
}

/** Bench results the catalogue's plateau rules look for (6.5 and 3.5 Gb/s on 10G, 65 % of 40G, several processes). */
function benchScenarios(): Diagnosis[] {
  return [
    diagnosesOf([x.below(6.5)]),
    diagnosesOf([x.below(3.5)]),
    diagnosesOf([x.below(26, { linkGbps: 40, ceilingGbps: 37.6, percent: 69 })]),
    diagnosesOf([x.below(7)], 4),
    diagnosesOf([x.smt], 12),
    diagnosesOf([x.retransmits, x.qdiscNotFq]),
  ].flat();
}

describe('the catalogue fixes, rendered from fixture findings', () => {
  const findings = fixtureFindings();
  // Each finding alone, and all of them together (rules whose conditions need several).
  const diagnoses = [...findings.map((finding) => diagnosesOf([finding])), diagnosesOf(findings), benchScenarios()].flat();
  const operations: { ruleId: string; op: Operation; command: string | undefined }[] = diagnoses.flatMap((diagnosis) =>
    diagnosis.fixes.flatMap((fix) => fix.operations.map((op, index) => ({ ruleId: diagnosis.ruleId, op, command: fix.commands[index] }))),
  );

  it('renders the operations of every rule that has some', () => {
    expect(findings.length).toBeGreaterThan(50);
    const withOps = catalogue.filter((rule) => rule.fixes.some((fix) => (fix.ops ?? []).length > 0)).map((rule) => rule.id);
    const rendered = new Set(operations.map((entry) => entry.ruleId));
    const missed = withOps.filter((id) => !rendered.has(id));
    // A rule left out here has no fixture that makes it fire; keep that list short and explicit.
    expect(missed).toEqual([]);
  });

  it('no fixture value is refused by an operation schema', () => {
    const refused = diagnoses.flatMap((diagnosis) =>
      diagnosis.notes.filter((note) => note.includes(' refused: ')).map((note) => `${diagnosis.ruleId}: ${note}`),
    );
    expect(refused, refused.join('\n')).toEqual([]);
  });

  it('each operation validates again and prints as the command next to it', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const { ruleId, op, command } of operations) {
      const again = checkOperation(op);
      expect(again.ok, `${ruleId}: ${JSON.stringify(op)}`).toBe(true);
      expect(command, ruleId).toBe(operationText(op));
    }
  });

  it('every operation --apply may run yields an argv of plain words', () => {
    const applicable = operations.filter((entry) => isApplicable(entry.op));
    expect(new Set(applicable.map((entry) => entry.op.kind))).toEqual(
      new Set(['ethtool-features', 'ethtool-channels', 'ethtool-rings', 'ethtool-coalesce', 'ethtool-pause', 'sysctl']),
    );
    for (const { ruleId, op } of applicable) {
      if (!isApplicable(op)) continue;
      const argv = operationArgv(op);
      expect(['ethtool', 'sysctl'], ruleId).toContain(argv[0]);
      for (const word of argv) expect(word, `${ruleId}: ${argv.join(' ')}`).toMatch(/^[^\n\r\0]+$/);
      if (argv[0] === 'ethtool') {
        expect(argv[1], ruleId).toMatch(/^-[KLGCA]$/);
        expect(isValidInterfaceName(argv[2]!) && !argv[2]!.startsWith('-'), ruleId).toBe(true);
        expect((argv.length - 3) % 2, `${ruleId}: name/value pairs`).toBe(0);
        expect(argv.length, ruleId).toBeGreaterThan(3);
      } else {
        expect(argv[1]).toBe('-w');
        expect(argv[2], ruleId).toMatch(/^net\.[A-Za-z0-9_.+-]+=[A-Za-z0-9_.,:+ -]+$/);
      }
    }
  });
});
