import { explain, markdownForTerminal } from '../docs/explain.js';
import { visibleControls } from '../reporters/escape.js';
import { loadKnownIssues } from '../rules/known-issues.js';
import { loadRules, RuleLoadError } from '../rules/loader.js';
import { UsageError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** `nicdoctor explain <check|rule|symptom|cause|known issue>`: the reference page, in the terminal or as Markdown. */
export function explainCommand(words: readonly string[], format: 'terminal' | 'markdown'): number {
  const name = words.join(' ');
  let input;
  try {
    input = { rules: loadRules(), knownIssues: loadKnownIssues() };
  } catch (error) {
    if (error instanceof RuleLoadError) throw new UsageError(error.message);
    throw error;
  }
  const page = explain(name, input);
  if (!page.ok) {
    const hint = page.suggestions.length
      ? `; did you mean: ${page.suggestions.join(', ')}?`
      : '; `nicdoctor checks` and `nicdoctor rules` list the names';
    throw new UsageError(`explain: nothing is called "${visibleControls(name)}"${hint}`);
  }
  const text = format === 'markdown' ? page.markdown : markdownForTerminal(page.markdown);
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return EXIT.ok;
}
