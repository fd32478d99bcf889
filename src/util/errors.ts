/** Bad command-line usage or unreadable input: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** nicdoctor could not do what was asked (peer unreachable, iperf3 missing): exit code 3. */
export class RunError extends Error {
  override name = 'RunError';
}

/**
 * A refusal of the path the user gave for `flag`, as exit 2: "--output: PATH is a directory" when
 * the reason is a sentence about PATH, "--output: PATH: reason" otherwise.
 */
export function refusalOf(flag: string, target: string): (why: string) => never {
  return (why) => {
    throw new UsageError(`${flag}: ${target}${why.startsWith('is ') ? ' ' : ': '}${why}`);
  };
}
