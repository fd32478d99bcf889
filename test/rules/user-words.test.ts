import { describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import type { SymptomTable } from '../../src/contracts/check.js';
import { catalogue } from './helpers.js';

/**
 * Words a user must never read: the project's own vocabulary (the seed guides, fixtures, the
 * design document and its cause numbers). Every text a report can show is checked: check titles,
 * descriptions, messages and fixes; rule titles, explanations, limits, fixes, ruled-out lines and
 * references (the JSON report carries them).
 */
// docs/causes.md is the project's published catalogue, a reference users follow; the design
// document outside the repository is not.
const INTERNAL = /\bseed\b|\bseed's\b|\bseeds\b|fixture|(?<!docs\/)CAUSES\.md|\bcauses? \d+\b/i;

function checkTexts(): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  for (const check of checks) {
    texts.push([`${check.id} title`, check.title], [`${check.id} description`, check.description]);
    for (const [name, meta] of Object.entries(check.symptoms as SymptomTable)) {
      texts.push([`${check.id}/${name} message`, meta.message]);
      if (meta.fix) texts.push([`${check.id}/${name} fix`, typeof meta.fix === 'string' ? meta.fix : meta.fix.text]);
    }
  }
  return texts;
}

function ruleTexts(): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  for (const rule of catalogue) {
    texts.push([`${rule.id} title`, rule.title]);
    for (const sentence of rule.explanation) texts.push([`${rule.id} explanation`, sentence]);
    if (rule.limit) texts.push([`${rule.id} limit`, rule.limit]);
    for (const fix of rule.fixes) texts.push([`${rule.id} fix`, fix.text]);
    for (const out of rule.ruledOut ?? []) texts.push([`${rule.id} ruledOut`, out.text]);
    for (const reference of rule.references ?? []) texts.push([`${rule.id} reference`, reference]);
  }
  return texts;
}

describe('no internal vocabulary in user output', () => {
  it('the pattern catches what it must', () => {
    for (const text of ["the seed's chronic 6-7 Gb/s", 'see CAUSES.md', 'not cause 16', 'a fixture']) expect(text).toMatch(INTERNAL);
    expect('docs/causes.md#cause-7').not.toMatch(INTERNAL);
    expect('a seeded hash key; because 16 queues').not.toMatch(INTERNAL);
  });

  it('in check titles, descriptions, messages and fixes', () => {
    expect(checkTexts().filter(([, text]) => INTERNAL.test(text))).toEqual([]);
  });

  it('in rule titles, explanations, limits, fixes, ruled-out lines and references', () => {
    expect(ruleTexts().filter(([, text]) => INTERNAL.test(text))).toEqual([]);
  });

  it('check titles are neutral nouns: a title never asserts what the check may find otherwise ("Rings are at their maximum: pass")', () => {
    const ASSERTS = /\b(is|are|reach(es)?|suits?|spreads?|enough|clean|can|no|keeps?|known)\b/i;
    expect(checks.filter((check) => ASSERTS.test(check.title)).map((check) => `${check.id}: ${check.title}`)).toEqual([]);
  });
});
