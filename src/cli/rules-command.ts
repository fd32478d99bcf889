import path from 'node:path';
import { loadRules, RuleLoadError } from '../rules/loader.js';
import { UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** `nicdoctor rules`: the diagnosis catalogue, validated as it loads; --verbose adds confidence and file. */
export async function rulesCommand(format: 'terminal' | 'json', verbose = false): Promise<number> {
  let rules;
  try {
    rules = loadRules();
  } catch (error) {
    if (error instanceof RuleLoadError) throw new UsageError(error.message);
    throw error;
  }
  if (format === 'json') {
    process.stdout.write(
      JSON.stringify(
        rules.map((rule) => ({
          id: rule.id,
          title: rule.title,
          cause: rule.cause,
          confidence: rule.confidence,
          file: path.basename(rule.file),
        })),
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
  return EXIT.ok;
}
