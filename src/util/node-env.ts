import v8 from 'node:v8';

/**
 * Node.js reads some environment variables to load code or write files (NODE_OPTIONS
 * `--require`, NODE_PATH, NODE_V8_COVERAGE, OpenSSL's config). Those that act before any
 * JavaScript runs are kept out of the process by the entry's `env -S -u ...` line (dist/src/cli.js)
 * and blanked in the single executable (packaging/ignore-node-env.mjs). This removes them, and
 * the rest of Node's hooks, from this process's environment as the first thing the CLI does, so
 * that no child process (iperf3, a tool, nicdoctor itself) inherits them either.
 */
export const NODE_HOOK_VARIABLES: readonly string[] = [
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_V8_COVERAGE',
  'NODE_REDIRECT_WARNINGS',
  'NODE_ICU_DATA',
  'NODE_PRESERVE_SYMLINKS',
  'NODE_PRESERVE_SYMLINKS_MAIN',
  'NODE_REPL_EXTERNAL_MODULE',
  'NODE_REPL_HISTORY',
  'NODE_DEBUG_NATIVE',
  'NODE_CHANNEL_FD',
  'NODE_UNIQUE_ID',
  'NODE_COMPILE_CACHE',
  'OPENSSL_CONF',
  'OPENSSL_MODULES',
  'OPENSSL_ENGINES',
];

export function dropNodeHooks(env: NodeJS.ProcessEnv = process.env): void {
  // Coverage started from NODE_V8_COVERAGE would be written into that directory at exit, as root.
  if (env === process.env && env.NODE_V8_COVERAGE !== undefined) v8.stopCoverage();
  for (const name of NODE_HOOK_VARIABLES) delete env[name];
}
