import { checks as registry } from '../../checks/index.js';
import { EXIT } from './exit-codes.js';
import { loadInput } from '../fleet/inputs.js';
import { loadRules } from '../rules/loader.js';
import { planOutput, writeOutput } from '../util/safe-output.js';
import { diffInputs, renderDiff, type DiffFormat } from '../diff/diff.js';

export interface DiffOptions {
  format: DiffFormat;
  output?: string;
}

/** `nicdoctor diff A B`: exit 1 when a difference is one a check or a rule reacts to, else 0. */
export async function diffCommand(a: string, b: string, options: DiffOptions): Promise<number> {
  const target = { flag: '--output', inputs: [a, b] };
  if (options.output) await planOutput(options.output, target); // before any work: a bad path is exit 2
  const inputA = await loadInput(a, 'A');
  const inputB = await loadInput(b, 'B');
  const report = diffInputs(inputA, inputB, registry, loadRules());
  const text = renderDiff(report, options.format);
  if (options.output) await writeOutput(options.output, text, target);
  else process.stdout.write(text);
  return report.summary.marked > 0 ? EXIT.findings : EXIT.ok;
}
