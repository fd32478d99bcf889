import path from 'node:path';

/**
 * The two labelled sets. `tuned` is the corpus nicdoctor's authors look at while fixing;
 * `holdout` is source-disjoint and not looked at while fixing: its score, not the tuned one,
 * says whether a change generalises (issue 17, item 5). Same case layout, each set with its own
 * KNOWN-WRONG.yaml.
 */
export interface EvalSet {
  name: 'tuned' | 'holdout';
  /** Relative to the repository root. */
  dir: string;
}

export const EVAL_SETS: readonly EvalSet[] = [
  { name: 'tuned', dir: path.join('fixtures', 'eval') },
  { name: 'holdout', dir: path.join('fixtures', 'holdout') },
];

export const KNOWN_WRONG_FILE = 'KNOWN-WRONG.yaml';
