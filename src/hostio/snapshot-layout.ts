import path from 'node:path';

/**
 * Layout of a snapshot directory (`nicdoctor collect`), designed so that a person can build one
 * by hand from captured outputs:
 *
 *   snapshot.json        format marker, when/where it was taken, the host inventory
 *   fs/<absolute path>   every file nicdoctor read, at its real path; symbolic links kept as links
 *   cmd/<key>            stdout of a command, key = commandKey(argv) (`ethtool_-S_eth0`)
 *   cmd/<key>.json       optional: exitCode, stderr, durationMs, or an error kind that replaces the run
 *
 * A directory listing that was recorded is kept in `.nicdoctor-listing` inside the directory,
 * because the snapshot only holds the entries that were read.
 */
export const SNAPSHOT_FORMAT = 'nicdoctor-snapshot';
export const SNAPSHOT_VERSION = 1;
export const LISTING_FILE = '.nicdoctor-listing';

export function mirrorPath(root: string, hostPath: string): string {
  if (!path.isAbsolute(hostPath)) throw new Error(`host paths must be absolute: ${hostPath}`);
  return path.join(root, 'fs', path.normalize(hostPath));
}

export function commandPaths(root: string, key: string): { stdout: string; meta: string } {
  return { stdout: path.join(root, 'cmd', key), meta: path.join(root, 'cmd', `${key}.json`) };
}
