import path from 'node:path';
import { loadRules, RuleLoadError } from '../rules/loader.js';
import { loadKnownIssues } from '../rules/known-issues.js';
import { UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';

/**
 * `nicdoctor rules`: the diagnosis catalogue and the known issues, validated as they load;
 * --verbose adds confidence, versions and file.
 */
export async function rulesCommand(format: 'terminal' | 'json', verbose = false): Promise<number> {
  let rules;
  let knownIssues;
  try {
    rules = loadRules();
    knownIssues = loadKnownIssues();
  } catch (error) {
    if (error instanceof RuleLoadError) throw new UsageError(error.message);
    throw error;
  }
  if (format === 'json') {
    process.stdout.write(
      JSON.stringify(
        [
          ...rules.map((rule) => ({
            kind: 'rule',
            id: rule.id,
            title: rule.title,
            cause: rule.cause,
            confidence: rule.confidence,
            file: path.basename(rule.file),
          })),
          ...knownIssues.map((issue) => ({
            kind: 'known-issue',
            id: issue.id,
            title: issue.title,
            cause: issue.cause,
            drivers: issue.drivers,
            ...(issue.driverVersion ? { driverVersion: issue.driverVersion } : {}),
            ...(issue.firmware ? { firmware: issue.firmware } : {}),
            ...(issue.kernel ? { kernel: issue.kernel } : {}),
            file: path.basename(issue.file),
          })),
        ],
        null,
        2,
      ) + '\n',
    );
    return EXIT.ok;
  }
  const width = Math.max(...rules.map((rule) => rule.id.length));
  for (const rule of rules) {
    process.stdout.write(`${rule.id.padEnd(width)}  cause ${String(rule.cause).padStart(2)}  ${rule.title}\n`);
    if (verbose) process.stdout.write(`${' '.repeat(width + 2)}confidence ${rule.confidence}; ${path.basename(rule.file)}\n`);
  }
  if (knownIssues.length) {
    process.stdout.write(`\nKnown issues (reported when the versions match and the symptom is present):\n`);
    const issueWidth = Math.max(...knownIssues.map((issue) => issue.id.length));
    for (const issue of knownIssues) {
      process.stdout.write(`${issue.id.padEnd(issueWidth)}  cause ${String(issue.cause).padStart(2)}  ${issue.title}\n`);
      if (verbose) {
        const versions = [
          issue.driverVersion && `driver ${issue.driverVersion}`,
          issue.firmware && `firmware ${issue.firmware}`,
          issue.kernel && `kernel ${issue.kernel}`,
        ]
          .filter(Boolean)
          .join(', ');
        process.stdout.write(
          `${' '.repeat(issueWidth + 2)}${issue.drivers.join(', ')}; ${versions || 'every version'}; ${path.basename(issue.file)}\n`,
        );
      }
    }
  }
  return EXIT.ok;
}
