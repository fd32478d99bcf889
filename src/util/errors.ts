/** Bad command-line usage or unreadable input: exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** nicdoctor could not do what was asked (peer unreachable, iperf3 missing): exit code 3. */
export class RunError extends Error {
  override name = 'RunError';
}
