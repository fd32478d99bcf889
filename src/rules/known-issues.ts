import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Finding, Report, Severity } from '../report/schema.js';
import { parseVersion, parseVersionRange, inRange } from '../domain/versions.js';
import { evaluate, references, type EvalContext } from './conditions.js';
import { isInterfaceFact, type Diagnosis, type FactLookup } from './engine.js';
import { compiledDocuments, defaultRulesDir, RuleLoadError } from './loader.js';
import { embeddedAssets } from '../util/embedded.js';
import { knownIssueFileSchema, knownIssueSchema, type KnownIssue } from './known-issue-schema.js';
import type { EthtoolDriver } from '../parsers/ethtool-driver.js';

/** A loaded known issue and the file it came from. */
export type LoadedKnownIssue = KnownIssue & { file: string };

/** Parses and validates one known-issues file; errors name the file, the entry and the field, like rules. */
export function parseKnownIssueDocument(document: unknown, file: string): LoadedKnownIssue[] {
  const shape = knownIssueFileSchema.safeParse(document);
  if (!shape.success) throw new RuleLoadError(file, null, '(document)', 'a known-issues file is "issues:" followed by a list of entries');
  return shape.data.issues.map((candidate, index) => {
    const id = (candidate as { id?: unknown } | null)?.id;
    const parsed = knownIssueSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.reduce<string>(
        (text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`),
        `issues[${index}]`,
      );
      throw new RuleLoadError(file, typeof id === 'string' ? id : `#${index + 1}`, field, issue.message);
    }
    return { ...parsed.data, file };
  });
}

/** known-issues/*.yaml parsed at build time, beside dist/rules.json. */
export const COMPILED_KNOWN_ISSUES = path.join('dist', 'known-issues.json');

/** <package root>/known-issues, next to rules/. */
export function defaultKnownIssuesDir(): string {
  return path.join(path.dirname(defaultRulesDir()), 'known-issues');
}

/** The documents to read: the single executable carries them parsed, the package has the files beside rules/. */
function knownIssueDocuments(dir: string | undefined): [string, () => unknown][] {
  const embedded = dir === undefined ? embeddedAssets()?.knownIssues : undefined;
  if (embedded) return Object.entries(embedded).map(([name, document]) => [path.join('known-issues', name), () => document]);
  const where = dir ?? defaultKnownIssuesDir();
  if (!existsSync(where)) return [];
  const names = readdirSync(where)
    .filter((entry) => entry.endsWith('.yaml'))
    .sort();
  const texts = names.map((name) => readFileSync(path.join(where, name), 'utf8'));
  // Parsed at build time like the rules (scripts/compile-rules.mjs): the YAML parser alone cost
  // ~170 ms of CPU in every scan. Used only while the files are those it was made from.
  const compiled = compiledDocuments(path.join(path.dirname(where), COMPILED_KNOWN_ISSUES), names, texts);
  if (compiled) return names.map((name, index) => [path.join(where, name), () => compiled[index]]);
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return names.map((name, index) => {
    const file = path.join(where, name);
    return [
      file,
      () => {
        try {
          return parse(texts[index]!) as unknown;
        } catch (error) {
          throw new RuleLoadError(file, null, null, `not valid YAML: ${(error as Error).message}`);
        }
      },
    ];
  });
}

/** Every known-issues/*.yaml in name order; ids unique. A missing folder is no known issues. */
export function loadKnownIssues(dir?: string): LoadedKnownIssue[] {
  const seen = new Map<string, string>();
  const issues: LoadedKnownIssue[] = [];
  for (const [file, read] of knownIssueDocuments(dir)) {
    for (const issue of parseKnownIssueDocument(read(), file)) {
      const first = seen.get(issue.id);
      if (first) throw new RuleLoadError(file, issue.id, 'id', `duplicate known-issue id (also in ${first})`);
      seen.set(issue.id, file);
      issues.push(issue);
    }
  }
  return issues;
}

/** The facts the known issues read: the driver fact for versions, plus what their symptoms name. */
export function knownIssueFacts(issues: readonly KnownIssue[]): string[] {
  const refs = { symptoms: new Set<string>(), facts: new Set<string>(['ethtool.driver']), checks: new Set<string>() };
  for (const issue of issues) references(issue.symptom, refs);
  return [...refs.facts];
}

/** Why the versions match (for the explanation), or null when they do not. */
export function versionsMatch(issue: KnownIssue, driver: EthtoolDriver | undefined, kernel: string): string | null {
  if (!driver || !issue.drivers.includes(driver.driver)) return null;
  const parts = [`driver ${driver.driver}${driver.version ? ` ${driver.version}` : ''}`];
  if (issue.driverVersion && !inRange(parseVersionRange(issue.driverVersion), parseVersion(driver.version))) return null;
  if (issue.firmware) {
    if (!inRange(parseVersionRange(issue.firmware), parseVersion(driver.firmwareVersion))) return null;
    parts.push(`firmware ${driver.firmwareVersion}`);
  }
  if (issue.kernel) {
    if (!inRange(parseVersionRange(issue.kernel), parseVersion(kernel))) return null;
    parts.push(`kernel ${kernel}`);
  }
  return parts.join(', ');
}

const SEVERITY_ORDER: Record<Severity, number> = { info: 1, warning: 2, critical: 3 };

function strongest(findings: readonly Finding[]): Severity {
  return findings.reduce<Severity>(
    (best, finding) => (SEVERITY_ORDER[finding.severity] > SEVERITY_ORDER[best] ? finding.severity : best),
    'warning',
  );
}

function contextFor(report: Report, subject: string, facts: FactLookup, findings: readonly Finding[]): EvalContext {
  const statuses = new Map(report.checks.map((check) => [check.id, check]));
  return {
    subject,
    findings,
    checkStatus: (id, where) => {
      const check = statuses.get(id);
      if (!check) return undefined;
      return check.subjects.find((entry) => entry.subject === where)?.status ?? (check.subjects.length === 0 ? check.status : undefined);
    },
    fact: facts,
    isInterfaceFact,
  };
}

function diagnosisFor(
  issue: KnownIssue,
  subject: string,
  versions: string,
  found: readonly Finding[] | null,
  evidence: Diagnosis['evidence'],
): Diagnosis {
  const seen = found !== null;
  return {
    ruleId: `known-issue/${issue.id}`,
    title: seen ? `Known issue: ${issue.title}` : `Known issue in this version: ${issue.title}`,
    cause: issue.cause,
    relatedCauses: [],
    subject,
    confidence: seen ? 'medium' : 'low',
    severity: seen ? strongest(found) : 'info',
    score: seen ? 60 : 0,
    mode: 'static',
    explanation: seen
      ? `${issue.description} This host runs an affected version (${versions}) and shows the symptom.`
      : `Known issue in this ${issue.firmware ? 'firmware' : issue.driverVersion ? 'driver' : 'kernel'}; its symptom is not seen here. ${issue.description} (${versions})`,
    verdict: seen
      ? 'The versions match and the symptom is present.'
      : 'The versions match; the symptom is absent, so nothing is wrong yet.',
    limit: null,
    evidence,
    ruledOut: [],
    fixes: [{ text: issue.fix, commands: [], operations: [], disruptive: false }],
    references: [...issue.links, issue.source],
    notes: [],
  };
}

/**
 * Known issues × interfaces → diagnoses (versions and symptom) and notes (versions only). Pure:
 * reads the report and facts already collected. The findings are those of the report's checks.
 */
export function matchKnownIssues(report: Report, facts: FactLookup, issues: readonly KnownIssue[]): Diagnosis[] {
  const findings = report.checks.flatMap((check) => check.findings);
  const out: Diagnosis[] = [];
  for (const iface of report.interfaces) {
    const driver = facts('ethtool.driver', iface.name) as EthtoolDriver | undefined;
    if (!driver) continue;
    const ctx = contextFor(report, iface.name, facts, findings);
    for (const issue of issues) {
      const versions = versionsMatch(issue, driver, report.host.kernel);
      if (!versions) continue;
      const match = evaluate(issue.symptom, ctx, { subject: iface.name });
      // An entry keyed by the driver alone (a documented caveat of every version) says nothing
      // without its symptom, and with it only adds a note: it would otherwise speak on every such port.
      const keyed = Boolean(issue.driverVersion ?? issue.firmware ?? issue.kernel);
      if (!keyed && !match) continue;
      const matched = match
        ? findings.filter((finding) =>
            match.evidence.some(
              (item) =>
                'check' in item && item.check === finding.check && item.symptom === finding.symptom && item.subject === finding.subject,
            ),
          )
        : null;
      const diagnosis = diagnosisFor(issue, iface.name, versions, matched, match?.evidence ?? []);
      out.push(keyed ? diagnosis : { ...diagnosis, severity: 'info', confidence: 'low', score: 0 });
    }
  }
  return out;
}
