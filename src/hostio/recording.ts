import { constants } from 'node:fs';
import { lstat, mkdir, open, readlink, symlink } from 'node:fs/promises';
import path from 'node:path';
import { LiveHostIO } from './live.js';
import { LISTING_FILE, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, commandPaths, mirrorPath } from './snapshot-layout.js';
import { HostIOError, commandKey, type ExecOptions, type ExecResult, type HostInventory } from './types.js';

/**
 * Live access that also writes everything it reads into a snapshot directory, so that
 * `nicdoctor analyze` can later run the same checks on it anywhere.
 */
export class RecordingHostIO extends LiveHostIO {
  override readonly mode = 'recording' as const;
  /** Writes to the same path are serialised, and each link is mirrored once. */
  private readonly mirroredLinks = new Map<string, Promise<void>>();
  /** Files this run created, each with its last write: only those may be written again (a command run twice). */
  private readonly written = new Map<string, Promise<void>>();

  constructor(readonly root: string) {
    super();
  }

  override async exec(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    const { stdout, meta } = commandPaths(this.root, commandKey(argv));
    await mkdir(path.dirname(stdout), { recursive: true });
    try {
      const result = await super.exec(argv, options);
      await this.write(stdout, result.stdout);
      await this.write(
        meta,
        JSON.stringify({ argv, exitCode: result.exitCode, stderr: result.stderr, durationMs: Math.round(result.durationMs) }, null, 2),
      );
      return result;
    } catch (error) {
      if (error instanceof HostIOError && error.kind !== 'not-captured' && error.kind !== 'not-found') {
        await this.write(meta, JSON.stringify({ argv, error: error.kind, message: error.message }, null, 2));
      }
      throw error;
    }
  }

  override async readFile(hostPath: string): Promise<string> {
    const content = await super.readFile(hostPath);
    const real = await this.mirrorLinksAlong(hostPath);
    const target = mirrorPath(this.root, real);
    await mkdir(path.dirname(target), { recursive: true });
    await this.write(target, content);
    return content;
  }

  override async readDir(hostPath: string): Promise<string[]> {
    const entries = await super.readDir(hostPath);
    const real = await this.mirrorLinksAlong(hostPath);
    const target = mirrorPath(this.root, real);
    await mkdir(target, { recursive: true });
    await this.write(path.join(target, LISTING_FILE), JSON.stringify(entries));
    return entries;
  }

  override async readLink(hostPath: string): Promise<string> {
    const target = await super.readLink(hostPath);
    await this.mirrorLinksAlong(hostPath);
    return target;
  }

  /**
   * Mirrors every symbolic link on the way to hostPath (sysfs is full of them:
   * /sys/class/net/eth0 → ../../devices/...), and returns the real path, where content goes.
   */
  private async mirrorLinksAlong(hostPath: string): Promise<string> {
    const parts = path.normalize(hostPath).split(path.sep).filter(Boolean);
    let real = '/';
    for (const part of parts) {
      const next = path.join(real, part);
      const info = await lstat(next).catch(() => undefined);
      if (info?.isSymbolicLink()) {
        const target = await readlink(next);
        await this.mirrorLink(next, target);
        real = path.resolve(real, target);
        // The target may itself hold links (rare in sysfs); resolve them the same way.
        real = await this.mirrorLinksAlong(real);
      } else {
        real = next;
      }
    }
    return real;
  }

  private mirrorLink(linkPath: string, target: string): Promise<void> {
    let pending = this.mirroredLinks.get(linkPath);
    if (!pending) {
      pending = (async () => {
        const where = mirrorPath(this.root, linkPath);
        await mkdir(path.dirname(where), { recursive: true });
        // Absolute targets are made relative so the snapshot never points outside itself.
        const relativeTarget = path.isAbsolute(target) ? path.relative(path.dirname(linkPath), target) : target;
        await symlink(relativeTarget, where).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
      })();
      this.mirroredLinks.set(linkPath, pending);
    }
    return pending;
  }

  /**
   * Every file is created with O_EXCL|O_NOFOLLOW: a link or file planted at its name, dangling
   * or not, fails the write instead of being written through. A file this run made itself is
   * rewritten in place (still O_NOFOLLOW) when the same command or file is read again.
   */
  private write(file: string, content: string): Promise<void> {
    const previous = this.written.get(file);
    const flags = constants.O_WRONLY | constants.O_NOFOLLOW | (previous ? constants.O_TRUNC : constants.O_CREAT | constants.O_EXCL);
    const next = (async () => {
      // Writes to one path are serialised, so a rewrite finds the file its first write made.
      await previous?.catch(() => undefined);
      const handle = await open(file, flags, 0o644);
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
    })();
    this.written.set(file, next);
    return next;
  }

  async writeManifest(inventory: HostInventory, tool: { name: string; version: string }, description?: string): Promise<void> {
    await mkdir(this.root, { recursive: true });
    const manifest = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      createdAt: new Date().toISOString(),
      tool,
      description,
      inventory,
    };
    await this.write(path.join(this.root, 'snapshot.json'), JSON.stringify(manifest, null, 2) + '\n');
  }
}
