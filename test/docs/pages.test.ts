import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CAUSE_IDS } from '../../src/domain/causes.js';
import { CAUSE_CATALOGUE } from '../../src/domain/cause-catalogue.js';
import { parseReference } from '../../src/domain/references.js';
import { allPages } from '../../src/docs/pages.js';
import { loadKnownIssues } from '../../src/rules/known-issues.js';
import { loadRules } from '../../src/rules/loader.js';
import { referenceSchema } from '../../src/rules/schema.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rules = loadRules();
const knownIssues = loadKnownIssues();
const pages = allPages({ rules, knownIssues });

describe('the generated reference pages under docs/', () => {
  it('are up to date (regenerate with: npm run build && node scripts/generate-docs.mjs)', () => {
    const stale = [...pages].filter(
      ([file, text]) => !existsSync(path.join(ROOT, file)) || readFileSync(path.join(ROOT, file), 'utf8') !== text,
    );
    expect(stale.map(([file]) => file)).toEqual([]);
  });

  it('leave no page behind for a check or rule that no longer exists', () => {
    for (const dir of ['docs/checks', 'docs/rules']) {
      const extra = readdirSync(path.join(ROOT, dir)).filter((name) => !pages.has(`${dir}/${name}`));
      expect(extra, dir).toEqual([]);
    }
  });

  it('cover every cause 1-25 with symptom, detection, numbers, fix and at least one link', () => {
    expect(CAUSE_CATALOGUE.map((cause) => cause.id)).toEqual(CAUSE_IDS);
    for (const cause of CAUSE_CATALOGUE) {
      for (const field of [cause.symptom, cause.detection, cause.numbers, cause.fix])
        expect(field.length, `cause ${cause.id}`).toBeGreaterThan(30);
      expect(cause.links.length, `cause ${cause.id}`).toBeGreaterThan(0);
      for (const link of cause.links) expect(parseReference(link.url).kind, link.url).toBe('url');
      expect(pages.get('docs/causes.md')).toContain(`<a id="cause-${cause.id}"></a>`);
    }
  });

  it('link every page they name', () => {
    const missing: string[] = [];
    for (const [file, text] of pages) {
      for (const match of text.matchAll(/\]\(([^)#<>\s]+\.md)(?:#([a-z0-9-]+))?\)/g)) {
        const target = path.normalize(path.join(path.dirname(file), match[1]!));
        const page = pages.get(target);
        if (!page) missing.push(`${file} → ${target}`);
        else if (match[2] && !page.includes(`<a id="${match[2]}"></a>`)) missing.push(`${file} → ${target}#${match[2]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('references', () => {
  it('every rule reference resolves to a cause anchor in docs/ or to a URL, and every rule cites its own cause', () => {
    for (const rule of rules) {
      for (const reference of rule.references) {
        const parsed = parseReference(reference);
        expect(parsed.kind, `${rule.id}: ${reference}`).not.toBe('invalid');
        if (parsed.kind === 'cause') expect(pages.get(parsed.path)).toContain(`<a id="${parsed.anchor}"></a>`);
      }
      expect(rule.references, rule.id).toContain(`docs/causes.md#cause-${rule.cause}`);
    }
  });

  it('a reference that is neither is refused when the rules load', () => {
    for (const bad of ['design/CAUSES.md', 'ESnet fasterdata host tuning', 'docs/causes.md#cause-99', 'https://', 'see https://x.org']) {
      expect(referenceSchema.safeParse(bad).success, bad).toBe(false);
    }
    expect(referenceSchema.safeParse('https://fasterdata.es.net/host-tuning/linux/').success).toBe(true);
    expect(referenceSchema.safeParse('docs/causes.md#cause-7').success).toBe(true);
  });
});
