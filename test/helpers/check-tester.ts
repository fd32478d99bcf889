import { afterAll, describe } from 'vitest';
import type { AnyCheck } from '../../src/contracts/check.js';
import { placeholders } from '../../src/rules/template.js';
import type { CheckResult } from '../../src/report/schema.js';
import { runCheckOn, type FactInput, type HarnessOptions } from './check-harness.js';

/**
 * Like ESLint's RuleTester: a check's test file runs the check through the tester, and when the
 * file is done the tester fails if a symptom the check declares was never produced (an untested
 * message, or a symptom nothing can report) or if a produced message or fix kept a `{placeholder}`.
 */
export interface CheckTester {
  /** Runs the check through the real engine (runCheckOn) and records what it produced. */
  run(facts: FactInput, harness?: HarnessOptions): Promise<CheckResult>;
  /** Symptoms produced so far in this file. */
  readonly produced: ReadonlySet<string>;
}

/** Problems with what a check produced: a message or fix that still shows a placeholder. */
export function unfilledPlaceholders(result: CheckResult): string[] {
  const problems: string[] = [];
  for (const finding of result.findings) {
    for (const [what, text] of [
      ['message', finding.message],
      ['fix', finding.fix],
    ] as const) {
      const left = text === undefined ? [] : placeholders(text);
      if (left.length > 0) problems.push(`${result.id}/${finding.symptom} ${what} kept {${left.join('}, {')}}: ${text}`);
    }
  }
  return problems;
}

/** The declared symptoms a file never produced. */
export function unproduced(check: AnyCheck, produced: ReadonlySet<string>): string[] {
  return Object.keys(check.symptoms).filter((symptom) => !produced.has(symptom));
}

/**
 * A tester for one check. Call it at the top of the test file (or inside a describe): the
 * coverage verdict runs in that scope's afterAll.
 */
export function checkTester(check: AnyCheck): CheckTester {
  const produced = new Set<string>();
  const problems: string[] = [];
  afterAll(() => {
    const missing = unproduced(check, produced);
    const complaints = [
      ...(missing.length > 0 ? [`check ${check.id} declares symptoms its tests never produce: ${missing.join(', ')}`] : []),
      ...problems,
    ];
    if (complaints.length > 0) throw new Error(complaints.join('\n'));
  });
  return {
    produced,
    async run(facts, harness) {
      const result = await runCheckOn(check, facts, harness);
      for (const finding of result.findings) produced.add(finding.symptom);
      const left = unfilledPlaceholders(result);
      if (left.length > 0) {
        problems.push(...left);
        throw new Error(left.join('\n'));
      }
      return result;
    },
  };
}

/** `describe(<check id> check)` with a tester for its body. */
export function describeCheck(check: AnyCheck, body: (tester: CheckTester) => void): void {
  describe(`${check.id} check`, () => {
    body(checkTester(check));
  });
}
