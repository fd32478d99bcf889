import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ContainedReader } from './contained.js';
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

export async function loadSnapshotManifest(root: string, reader?: ContainedReader): Promise<SnapshotManifest> {
  let text: string;
  try {
    const info = await stat(root);
    if (!info.isDirectory())
      throw new SnapshotError(
        `${root} is not a directory: give a snapshot directory (nicdoctor collect), an evidence bundle (.tar.gz) or an extracted sosreport`,
      );
    text = await (reader ?? (await ContainedReader.open(root))).readText('snapshot.json', 'metadata', `${root}/snapshot.json`);
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotError(`${root}: no such file or directory`);
    if (error instanceof HostIOError && error.kind === 'not-found') {
      throw new SnapshotError(
        `${root}: not a nicdoctor snapshot (no snapshot.json) nor another recognised input: a nicdoctor snapshot has snapshot.json (nicdoctor collect), an extracted sosreport has sos_commands/, an evidence bundle is a .tar.gz`,
      );
    }
    if (code === 'EACCES' || (error instanceof HostIOError && error.kind === 'permission-denied'))
      throw new SnapshotError(`${root}: permission denied`);
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

/** A recorded directory listing: a JSON list of names, each a single path component. */
function parseListing(text: string, hostPath: string): string[] {
  let names: unknown;
  try {
    names = JSON.parse(text);
  } catch {
    names = undefined;
  }
  if (
    !Array.isArray(names) ||
    !names.every((name) => typeof name === 'string' && name !== '' && !name.includes('/') && name !== '.' && name !== '..')
  ) {
    throw new HostIOError('io', `${hostPath}: the snapshot's ${LISTING_FILE} is not a JSON list of entry names`);
  }
  return (names as string[]).slice().sort();
}

/** Replays a snapshot directory: no command runs and no host file is read. */
export class SnapshotHostIO implements HostIO {
  readonly mode = 'snapshot' as const;
  private constructor(
    readonly root: string,
    readonly manifest: SnapshotManifest,
    /** Every read goes through it: nothing outside the snapshot, only regular files, size caps. */
    private readonly reader: ContainedReader,
  ) {}

  static async open(root: string): Promise<SnapshotHostIO> {
    const absolute = path.resolve(root);
    // Checks that it is a directory (and says what was expected) before the reader resolves it.
    await loadSnapshotManifest(absolute);
    const reader = await ContainedReader.open(absolute);
    return new SnapshotHostIO(absolute, await loadSnapshotManifest(absolute, reader), reader);
  }

  async exec(argv: string[]): Promise<ExecResult> {
    const { stdout: stdoutPath, meta: metaPath } = commandPaths('', commandKey(argv));
    const meta = await this.readMeta(metaPath, argv);
    if (meta?.error) throw new HostIOError(meta.error, meta.message ?? `${argv[0]}: ${meta.error} (as recorded)`);
    const stdout = await this.reader.readTextIfExists(stdoutPath, 'capture', `the snapshot's ${stdoutPath}`);
    if (stdout === undefined && !meta) throw new HostIOError('not-captured', `the snapshot holds no output of \`${argv.join(' ')}\``);
    return { argv, exitCode: meta?.exitCode ?? 0, stdout: stdout ?? '', stderr: meta?.stderr ?? '', durationMs: meta?.durationMs ?? 0 };
  }

  private async readMeta(metaPath: string, argv: string[]) {
    const text = await this.reader.readTextIfExists(metaPath, 'metadata');
    if (text === undefined) return undefined;
    try {
      return commandMetaSchema.parse(JSON.parse(text));
    } catch {
      throw new HostIOError('io', `the snapshot's record of \`${argv.join(' ')}\` (${metaPath}) is not valid`);
    }
  }

  async readFile(hostPath: string): Promise<string> {
    return this.reader.readText(this.mirrored(hostPath), 'capture', hostPath);
  }

  async readOptionalFile(hostPath: string): Promise<string | undefined> {
    return this.reader.readTextIfExists(this.mirrored(hostPath), 'capture', hostPath);
  }

  async readDir(hostPath: string): Promise<string[]> {
    const dir = this.mirrored(hostPath);
    const listing = await this.reader.readTextIfExists(path.join(dir, LISTING_FILE), 'listing', `${hostPath}/${LISTING_FILE}`);
    if (listing !== undefined) return parseListing(listing, hostPath);
    return (await this.reader.readDir(dir, hostPath)).filter((name) => name !== LISTING_FILE).sort();
  }

  async readLink(hostPath: string): Promise<string> {
    try {
      return await this.reader.readLink(this.mirrored(hostPath), hostPath);
    } catch (error) {
      if (error instanceof HostIOError) throw error;
      throw this.notCaptured(error, hostPath);
    }
  }

  async inventory(): Promise<HostInventory> {
    return this.manifest.inventory;
  }

  /** The path of a host file inside the snapshot, relative to its root (fs/<absolute path>). */
  private mirrored(hostPath: string): string {
    if (!path.isAbsolute(hostPath)) throw new HostIOError('io', `host paths must be absolute: ${hostPath}`);
    return path.relative(this.root, mirrorPath(this.root, hostPath));
  }

  /**
   * A snapshot cannot tell "absent on the host" from "not recorded": both read as not-found,
   * which is what collectors expect for optional sysfs attributes.
   */
  private notCaptured(error: unknown, hostPath: string): HostIOError {
    return fsErrorToHostIOError(error, hostPath);
  }
}
