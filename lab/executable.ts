/**
 * Runs the CLI tests against the single executable instead of `node dist/src/cli.js`:
 * NICDOCTOR_EXECUTABLE=dist/package/nicdoctor-<version>-linux-x64 points at it, and the CLI
 * then gets a PATH that holds every tool of this machine except node, as on a server
 * without Node.js. Imports no test framework (lab helpers use it too).
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const EXECUTABLE: string | undefined = process.env.NICDOCTOR_EXECUTABLE ? path.resolve(process.env.NICDOCTOR_EXECUTABLE) : undefined;

const NODE_NAMES = new Set(['node', 'nodejs', 'npm', 'npx', 'corepack']);
let nodeFree: string | undefined;

/** A directory of links to every command on PATH (and sbin) but node: a PATH without Node.js. */
export function nodeFreePath(): string {
  if (nodeFree) return nodeFree;
  const dir = mkdtempSync(path.join(tmpdir(), 'nicdoctor-nonode-'));
  const seen = new Set<string>();
  for (const source of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin', '/usr/bin', '/bin']) {
    let names: string[] = [];
    try {
      names = readdirSync(source);
    } catch {
      continue;
    }
    for (const name of names) {
      if (NODE_NAMES.has(name) || seen.has(name)) continue;
      seen.add(name);
      symlinkSync(path.join(source, name), path.join(dir, name));
    }
  }
  nodeFree = dir;
  // Best effort for callers without an afterAll (lab/cli.ts); vitest workers may not reach it.
  process.once('exit', removeNodeFreePath);
  return dir;
}

/** Removes the node-free PATH directory; test files that use it call this in afterAll. */
export function removeNodeFreePath(): void {
  if (nodeFree) rmSync(nodeFree, { recursive: true, force: true });
  nodeFree = undefined;
}

/** The command line that runs the CLI: the executable when one is under test, else node with the script. */
export function cliArgv(script: string, args: readonly string[]): string[] {
  return EXECUTABLE ? [EXECUTABLE, ...args] : [process.execPath, script, ...args];
}

/** The PATH the CLI gets: without node when the executable is under test. */
export function cliPath(path: string): string {
  return EXECUTABLE ? nodeFreePath() : path;
}
