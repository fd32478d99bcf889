/**
 * `nicdoctor analyze INPUT --format json` run inside the test process, through the same entry the
 * CLI's analysis worker runs (`main(argv)` of src/cli/program.ts, see src/cli/analysis-thread.ts):
 * the same option parsing, input detection (snapshot, bundle, sosreport, pasted text), scan,
 * rules, rendering and exit code, without a Node start-up per case.
 *
 * Why: the evaluation corpus holds hundreds of cases; a process per case cost ~0.8 s of start-up
 * and module loading each, most of the unit suite's time. What only a real process can show (exit
 * status, signals, the packaged executable) stays with the spawned tests: eval.test.ts keeps cases
 * that spawn dist/src/cli.js and compares their result with this path's.
 *
 * The report goes through --output to a private temporary file (stdout belongs to the test
 * runner); what the command writes to stderr is captured for the error message. Calls must not
 * overlap (a vitest file runs its tests one after another).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/program.js';
import { scoreAnalysis, type CaseResult } from '../../src/eval/score.js';
import type { EvalCase } from '../../src/eval/labels.js';

export interface AnalyzeResult {
  report?: unknown;
  error?: string;
}

let running = false;

/** Exit 0 and 1 both carry a report (1 = a finding at or above --fail-on), as for the spawned CLI (runAnalyze). */
export async function analyzeInProcess(input: string): Promise<AnalyzeResult> {
  if (running) throw new Error('analyzeInProcess: calls must not overlap (stderr is captured per call)');
  running = true;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-analyze-'));
  const output = path.join(dir, 'report.json');
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  try {
    const code = await main(['node', 'nicdoctor', 'analyze', input, '--format', 'json', '--output', output]);
    if (code !== 0 && code !== 1) return { error: `exit ${code}: ${firstLine(stderr.join(''))}` };
    const text = await readFile(output, 'utf8').catch(() => undefined);
    if (text === undefined) return { error: `exit ${code}: no report written: ${firstLine(stderr.join(''))}` };
    try {
      return { report: JSON.parse(text) };
    } catch {
      return { error: `exit ${code}: not a JSON report: ${firstLine(stderr.join(''))}` };
    }
  } finally {
    process.stderr.write = write;
    running = false;
    await rm(dir, { recursive: true, force: true });
  }
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
}

/** evaluateCase (src/eval/score.ts) with the analysis run in this process. */
export async function evaluateCaseInProcess(evalCase: EvalCase): Promise<CaseResult> {
  return scoreAnalysis(evalCase, await analyzeInProcess(evalCase.input));
}
