import { readFile, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { fsErrorToHostIOError } from './live.js';
import { LISTING_FILE, SNAPSHOT_FORMAT, commandPaths, mirrorPath } from './snapshot-layout.js';
import { HostIOError, commandKey, type ExecResult, type HostIO, type HostInventory } from './types.js';

const inventorySchema = z.object({
  hostname: z.string(),
  kernel: z.string(),
  os: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  logicalCpus: z.number().int().nonnegative(),
  physicalCores: z.number().int().nonnegative(),
  virtualization: z.string().nullable(),
  uid: z.number().int(),
});

export const snapshotManifestSchema = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.literal(1),
  createdAt: z.string().optional(),
  tool: z.object({ name: z.string(), version: z.string() }).optional(),
  description: z.string().optional(),
  inventory: inventorySchema,
});
export type SnapshotManifest = z.infer<typeof snapshotManifestSchema>;

const commandMetaSchema = z.object({
  argv: z.array(z.string()).optional(),
  exitCode: z.number().int().default(0),
  stderr: z.string().default(''),
  durationMs: z.number().nonnegative().default(0),
  /** The command did not run at all when it was recorded. */
  error: z.enum(['tool-missing', 'permission-denied', 'timeout', 'io']).optional(),
  message: z.string().optional(),
});

/** Thrown for a snapshot that cannot be used at all (exit code 2 in the CLI). */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

export async function loadSnapshotManifest(root: string): Promise<SnapshotManifest> {
  let text: string;
  try {
    const info = await stat(root);
    if (!info.isDirectory()) throw new SnapshotError(`${root} is not a directory`);
    text = await readFile(path.join(root, 'snapshot.json'), 'utf8');
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotError(`${root}: not a nicdoctor snapshot (no such directory or no snapshot.json)`);
    if (code === 'EACCES') throw new SnapshotError(`${root}: permission denied`);
    throw new SnapshotError(`${root}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SnapshotError(`${root}/snapshot.json is not valid JSON`);
  }
  const parsed = snapshotManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SnapshotError(`${root}/snapshot.json: ${issue?.path.join('.') || 'document'}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Replays a snapshot directory: no command runs and no host file is read. */
export class SnapshotHostIO implements HostIO {
  readonly mode = 'snapshot' as const;
  private constructor(
    readonly root: string,
    readonly manifest: SnapshotManifest,
  ) {}

  static async open(root: string): Promise<SnapshotHostIO> {
    const absolute = path.resolve(root);
    return new SnapshotHostIO(absolute, await loadSnapshotManifest(absolute));
  }

  async exec(argv: string[]): Promise<ExecResult> {
    const { stdout: stdoutPath, meta: metaPath } = commandPaths(this.root, commandKey(argv));
    const meta = await this.readMeta(metaPath, argv);
    if (meta?.error) throw new HostIOError(meta.error, meta.message ?? `${argv[0]}: ${meta.error} (as recorded)`);
    let stdout: string;
    try {
      stdout = await readFile(stdoutPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        if (meta) stdout = '';
        else throw new HostIOError('not-captured', `the snapshot holds no output of \`${argv.join(' ')}\``);
      } else {
        throw fsErrorToHostIOError(error, stdoutPath);
      }
    }
    return { argv, exitCode: meta?.exitCode ?? 0, stdout, stderr: meta?.stderr ?? '', durationMs: meta?.durationMs ?? 0 };
  }

  private async readMeta(metaPath: string, argv: string[]) {
    let text: string;
    try {
      text = await readFile(metaPath, 'utf8');
    } catch {
      return undefined;
    }
    try {
      return commandMetaSchema.parse(JSON.parse(text));
    } catch {
      throw new HostIOError('io', `the snapshot's record of \`${argv.join(' ')}\` (${metaPath}) is not valid`);
    }
  }

  async readFile(hostPath: string): Promise<string> {
    const file = await this.resolve(hostPath);
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      throw this.notCaptured(error, hostPath);
    }
  }

  async readDir(hostPath: string): Promise<string[]> {
    const dir = await this.resolve(hostPath);
    try {
      const listing = await readFile(path.join(dir, LISTING_FILE), 'utf8').catch(() => undefined);
      if (listing !== undefined) return (JSON.parse(listing) as string[]).slice().sort();
      return (await readdir(dir)).filter((name) => name !== LISTING_FILE).sort();
    } catch (error) {
      throw this.notCaptured(error, hostPath);
    }
  }

  async readLink(hostPath: string): Promise<string> {
    const parent = await this.resolve(path.dirname(hostPath));
    try {
      return await readlink(path.join(parent, path.basename(hostPath)));
    } catch (error) {
      throw this.notCaptured(error, hostPath);
    }
  }

  async inventory(): Promise<HostInventory> {
    return this.manifest.inventory;
  }

  /** Follows the snapshot's own links, and refuses any that would lead outside it. */
  private async resolve(hostPath: string): Promise<string> {
    const mirrored = mirrorPath(this.root, hostPath);
    let real: string;
    try {
      real = await realpath(mirrored);
    } catch (error) {
      throw this.notCaptured(error, hostPath);
    }
    const fsRoot = await realpath(path.join(this.root, 'fs')).catch(() => path.join(this.root, 'fs'));
    if (real !== fsRoot && !real.startsWith(fsRoot + path.sep)) {
      throw new HostIOError('io', `${hostPath}: the snapshot links outside itself`);
    }
    return real;
  }

  /**
   * A snapshot cannot tell "absent on the host" from "not recorded": both read as not-found,
   * which is what collectors expect for optional sysfs attributes.
   */
  private notCaptured(error: unknown, hostPath: string): HostIOError {
    return fsErrorToHostIOError(error, hostPath);
  }
}
