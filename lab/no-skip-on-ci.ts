/**
 * A lab or browser test skips on a developer's machine that lacks root or a tool, and says why.
 * CI (CI=true) runs as root after scripts/install-system-deps.sh --tests: there a skip would hide
 * a failure, so the reason becomes the error that fails the test file.
 */
export function forbidSkipOnCi(what: string, reason: string | undefined): string | undefined {
  if (reason && process.env.CI === 'true') {
    throw new Error(`CI=true and ${what} cannot run, so it fails instead of skipping: ${reason}`);
  }
  return reason;
}
