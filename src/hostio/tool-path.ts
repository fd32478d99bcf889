import { accessSync, constants, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../util/errors.js';
import { untrustedDirectory } from '../util/path-trust.js';

/**
 * Where nicdoctor finds the tools it runs (ethtool, lspci, iperf3, ...): the system directories,
 * never the caller's PATH. Root's PATH may start with `.` or a directory another user can write,
 * and then a planted `./ethtool` would run as root. Directories named with `--tool-path` (for
 * tools installed elsewhere, or a wrapper the caller means) are searched first, and only when
 * nobody but the caller and root can change them.
 */
export const SYSTEM_TOOL_DIRS: readonly string[] = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

let extraDirs: readonly string[] = [];

/** The directories searched, in order. */
export function toolDirs(): readonly string[] {
  return [...new Set([...extraDirs, ...SYSTEM_TOOL_DIRS])];
}

/** PATH for every child process nicdoctor starts: the same directories. */
export function toolSearchPath(): string {
  return toolDirs().join(':');
}

/** `--tool-path DIR[:DIR...]`: absolute directories that only the caller and root can change. */
export async function setToolPath(value: string, flag = '--tool-path'): Promise<void> {
  const dirs = value.split(':');
  for (const dir of dirs) {
    const refuse = (why: string): never => {
      throw new UsageError(`${flag}: ${JSON.stringify(dir)}: ${why}`);
    };
    if (!path.isAbsolute(dir)) refuse('give absolute directories (a relative one depends on where nicdoctor is started)');
    const info = await stat(dir).catch(() => null);
    if (!info?.isDirectory()) refuse('no such directory');
    const untrusted = await untrustedDirectory(dir);
    if (untrusted) refuse(`refusing to run tools from there: ${untrusted}`);
  }
  extraDirs = dirs.map((dir) => path.resolve(dir));
  resolved.clear();
}

/** Tool name → its absolute path (or null: not installed), looked up once per run. */
const resolved = new Map<string, string | null>();

/**
 * The absolute path of a tool in the trusted directories, or null when none holds it. Found
 * once per run and remembered: a scan starts hundreds of commands, and letting each one search
 * PATH costs a failed execve per directory before the right one (1,374 failed calls in a
 * 64-interface scan). A name with a slash is refused (null): tools are named, never located
 * relative to where nicdoctor runs.
 */
export function resolveTool(name: string): string | null {
  const known = resolved.get(name);
  if (known !== undefined) return known;
  let found: string | null = null;
  if (name && !name.includes('/') && name !== '.' && name !== '..') {
    for (const dir of toolDirs()) {
      const candidate = path.join(dir, name);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, constants.X_OK);
        found = candidate;
        break;
      } catch {
        // not in this directory
      }
    }
  }
  resolved.set(name, found);
  return found;
}
