import { EXIT, type FailOn } from './exit-codes.js';
import { planOutput, writeOutput } from '../util/safe-output.js';
import { buildFleet } from '../fleet/fleet.js';
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
  for (const file of files) loaded.push(await loadInput(file, 'INPUT'));
  const report = buildFleet(loaded, options.failOn);
  const text = renderFleet(report, options.format);
  if (options.output) await writeOutput(options.output, text, { ...target, inputs: [...inputs, ...files] });
  else process.stdout.write(text);
  return report.summary.failed > 0 ? EXIT.findings : EXIT.ok;
}
