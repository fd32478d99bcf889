import { OFFLOAD_WORDS } from '../parsers/prose-remedies.js';

/**
 * A ticket's own before-and-after test: runs pasted under short labels that name an offload
 * ("TSO off:" / "TSO on:", "开启 TSO 前：" / "开启 TSO 后：", "with GRO disabled"). The labels
 * may be in any language; the offload's name and the runs' numbers are what is read.
 */

/** A label is one short line: a sentence of prose above a run is not its title. */
const MAX_LABEL = 120;
/** How far above a run its label may sit (a fence, a prompt line and a blank line between). */
const LOOK_BACK = 4;
/** Lines between a label and its run: fences, blank lines, the prompt line that ran the test. */
const BETWEEN = /^(?:```|~~~)|[$#>%] ?(?:sudo +)?[\w./-]{0,64}iperf|^PS [A-Z]:\\|^[A-Z]:\\[^>]{0,200}>/;
/** The runs of two labels differ by at least this factor: the offload moved the throughput. */
const MOVED = 1.15;
/** OFFLOAD_WORDS without its global flag: one test per label, no lastIndex carried between them. */
const NAMES_OFFLOAD = new RegExp(OFFLOAD_WORDS.source, 'i');

export interface LabelledRun {
  /** 1-based line of the run's first line (its prompt line, when it has one). */
  firstLine: number;
  bitsPerSecond: number;
}

/** The short line just above line `firstLine` (1-based) of `lines`, skipping fences and prompts; null when there is none. */
export function runLabel(lines: readonly string[], firstLine: number): string | null {
  for (let number = firstLine - 1; number >= Math.max(1, firstLine - LOOK_BACK); number--) {
    const line = lines[number - 1]!.trim();
    if (line === '' || BETWEEN.test(line)) continue;
    return line.length <= MAX_LABEL ? line : null;
  }
  return null;
}

/** Whether runs labelled with an offload's name differ a lot between labels: the poster's test of that offload. */
export function offloadRunsDiffer(text: string, runs: readonly LabelledRun[]): boolean {
  const lines = text.split('\n');
  const rates = new Map<string, number>();
  for (const run of runs) {
    const label = runLabel(lines, run.firstLine);
    if (label === null || !NAMES_OFFLOAD.test(label) || run.bitsPerSecond <= 0) continue;
    rates.set(label, Math.max(rates.get(label) ?? 0, run.bitsPerSecond));
  }
  if (rates.size < 2) return false;
  const values = [...rates.values()];
  return Math.max(...values) >= MOVED * Math.min(...values);
}
