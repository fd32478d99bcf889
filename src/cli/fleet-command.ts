import { EXIT, type FailOn } from './exit-codes.js';
import { planOutput, writeOutput } from '../util/safe-output.js';
import { buildFleet, type UnreadInput } from '../fleet/fleet.js';
import { UsageError } from './errors.js';
import { expandInputs, loadInput } from '../fleet/inputs.js';
import { renderFleet, type FleetFormat } from '../fleet/render.js';

export interface FleetOptions {
  format: FleetFormat;
  output?: string;
  failOn: FailOn;
}

/** `nicdoctor fleet INPUT...`: exit 1 when a host fails its policy (or --fail-on), 0 otherwise. */
export async function fleetCommand(inputs: readonly string[], options: FleetOptions): Promise<number> {
  // Every named input, directories included: an output inside one would replace a host's report.
  const target = { flag: '--output', inputs };
  if (options.output) await planOutput(options.output, target); // before any work: a bad path is exit 2
  const files = await expandInputs(inputs, 'INPUT');
  const loaded = [];
  const unread: UnreadInput[] = [];
  // A file that cannot be read (missing, corrupt, an old schema) is listed in the output; the rest go on.
  for (const file of files) {
    try {
      loaded.push(await loadInput(file, 'INPUT'));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      unread.push({ file, reason: error.message.replace(`INPUT: ${file}: `, '').replace('INPUT: ', '') });
    }
  }
  if (loaded.length === 0)
    throw new UsageError(`INPUT: none could be read: ${unread.map((input) => `${input.file}: ${input.reason}`).join('; ')}`);
  const report = buildFleet(loaded, options.failOn, unread);
  const text = renderFleet(report, options.format);
  if (options.output) await writeOutput(options.output, text, { ...target, inputs: [...inputs, ...files] });
  else process.stdout.write(text);
  // A host that could not be read is not a host known to pass.
  return report.summary.failed > 0 || unread.length > 0 ? EXIT.findings : EXIT.ok;
}
