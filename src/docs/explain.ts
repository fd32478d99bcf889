import { checks } from '../../checks/index.js';
import { CAUSE_CATALOGUE } from '../domain/cause-catalogue.js';
import type { SymptomMeta } from '../contracts/check.js';
import { ruleReferences } from '../rules/engine.js';
import type { KnownIssue } from '../rules/known-issue-schema.js';
import type { Rule } from '../rules/schema.js';
import { causeSection, checkPage, knownIssueSection, rulePage, type DocsInput } from './pages.js';

/**
 * `nicdoctor explain <name>`: the page for a cause ("cause 7", "7"), a check, a rule, a symptom
 * ("rx-rings/rx-ring-below-max") or a known issue, from the same functions docs/ is generated
 * with. Returns null with close names when nothing has that name.
 */
export type Explained = { ok: true; markdown: string } | { ok: false; suggestions: string[] };

const CAUSE_NAME = /^(?:cause[\s-]?)?(\d{1,3})$/i;

function symptomPage(id: string, input: DocsInput): string | null {
  const [checkId, symptomId] = id.split('/');
  const check = (input.checks ?? checks).find((entry) => entry.id === checkId);
  const meta = check && symptomId ? (check.symptoms as Record<string, SymptomMeta>)[symptomId] : undefined;
  if (!check || !meta) return null;
  const page = checkPage(check, input);
  const start = page.indexOf(`### \`${id}\``);
  const end = page.indexOf('\n#', start + 1);
  const rules = input.rules.filter((rule) => ruleReferences(rule).symptoms.has(id));
  return [
    `# Symptom \`${id}\``,
    '',
    `Reported by the check \`${check.id}\` (${check.title}).`,
    '',
    page.slice(start, end === -1 ? undefined : end).replace(/^### .*\n/, ''),
    '## Rules that read it',
    '',
    ...(rules.length ? rules.map((rule) => `- \`${rule.id}\`: ${rule.title} (cause ${rule.cause})`) : ['No rule reads it.']),
    '',
  ].join('\n');
}

/** Every name explain knows, for suggestions. */
export function explainableNames(input: DocsInput): string[] {
  return [
    ...CAUSE_CATALOGUE.map((cause) => `cause ${cause.id}`),
    ...(input.checks ?? checks).flatMap((check) => [
      check.id,
      ...Object.keys(check.symptoms as Record<string, SymptomMeta>).map((id) => `${check.id}/${id}`),
    ]),
    ...input.rules.map((rule) => rule.id),
    ...input.knownIssues.map((issue) => issue.id),
  ];
}

/** Edit distance, capped: names are short, and a distance over the cap is "not close" anyway. */
function distance(a: string, b: string, cap = 8): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

export function closeNames(name: string, names: readonly string[], limit = 5): string[] {
  const wanted = name.toLowerCase();
  return names
    .map((candidate) => ({
      candidate,
      score: candidate.includes(wanted) || wanted.includes(candidate) ? 0 : distance(wanted, candidate.toLowerCase()),
    }))
    .filter((entry) => entry.score <= Math.max(2, Math.floor(wanted.length / 3)))
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((entry) => entry.candidate);
}

export function explain(name: string, input: DocsInput): Explained {
  const trimmed = name.trim().slice(0, 200);
  const cause = CAUSE_NAME.exec(trimmed);
  if (cause) {
    const entry = CAUSE_CATALOGUE.find((item) => item.id === Number(cause[1]));
    if (entry) return { ok: true, markdown: causeSection(entry).replace(/^<a id="[^"]*"><\/a>\n\n## /, '# Cause ') };
  }
  const check = (input.checks ?? checks).find((entry) => entry.id === trimmed);
  if (check) return { ok: true, markdown: checkPage(check, input) };
  const rule: Rule | undefined = input.rules.find((entry) => entry.id === trimmed);
  if (rule) return { ok: true, markdown: rulePage(rule) };
  if (trimmed.includes('/')) {
    const page = symptomPage(trimmed, input);
    if (page) return { ok: true, markdown: page };
  }
  const issue: KnownIssue | undefined = input.knownIssues.find((entry) => entry.id === trimmed);
  if (issue) return { ok: true, markdown: knownIssueSection(issue).replace(/^<a id="[^"]*"><\/a>\n\n## /, '# Known issue: ') };
  return { ok: false, suggestions: closeNames(trimmed, explainableNames(input)) };
}

/** A Markdown page as terminal text: generated-page comments and entities undone, links kept as URLs. */
export function markdownForTerminal(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !line.startsWith('<!--') && !/^<a id="[^"]*"><\/a>$/.test(line))
    .join('\n')
    .replace(/\[([^\]\n]{1,300})\]\(([^)\s]{1,500})\)/g, (_all, text: string, target: string) =>
      target.startsWith('http') ? `${text} (${target})` : text,
    )
    .replace(/<(https?:\/\/[^>\s]{1,500})>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\n{3,}/g, '\n\n');
}
