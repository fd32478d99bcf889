import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createReadStream } from 'node:fs';
import { Parser, extract, type ReadEntry } from 'tar';
import { READ_LIMITS, readRegularFile } from '../hostio/contained.js';
import { reportSchema, type Report } from '../report/schema.js';
import { BUNDLE_FILES, BUNDLE_ROOT, bundleManifestSchema, sha256, type BundleManifest } from './manifest.js';

/** A bundle that cannot be used: not a bundle, corrupt, truncated or unsafe (exit code 2). */
export class BundleError extends Error {
  override name = 'BundleError';
}

export interface OpenedBundle {
  /** The snapshot inside the extracted bundle: give it to SnapshotHostIO.open. */
  snapshotDir: string;
  /** The report as it was written into the bundle (validated). */
  report: Report;
  manifest: BundleManifest;
  /** The bench JSON, when the bundle holds one. */
  bench: unknown;
  /** Removes the extracted files. */
  cleanup(): Promise<void>;
}

/** Whether a path looks like a bundle file rather than a directory (for `analyze FILE|DIR`). */
export function looksLikeBundle(file: string): boolean {
  return /\.(?:tar\.gz|tgz)$/i.test(file);
}

/**
 * Checks one archive entry before anything is written: a relative path inside BUNDLE_ROOT,
 * no `..`, only files, directories and symbolic links whose target stays inside the bundle.
 */
function entryProblem(entry: ReadEntry): string | undefined {
  const name = entry.path;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return `absolute path ${name}`;
  const parts = name.split('/').filter(Boolean);
  if (parts.includes('..')) return `path with .. ${name}`;
  if (parts[0] !== BUNDLE_ROOT) return `entry outside ${BUNDLE_ROOT}/: ${name}`;
  if (entry.type === 'SymbolicLink') {
    const target = entry.linkpath ?? '';
    if (path.posix.isAbsolute(target)) return `link ${name} points to an absolute path`;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(name), target));
    if (resolved === '..' || resolved.startsWith('../') || resolved.split('/')[0] !== BUNDLE_ROOT)
      return `link ${name} points outside the bundle (${target})`;
    return undefined;
  }
  if (!['File', 'OldFile', 'ContiguousFile', 'Directory'].includes(entry.type)) return `unsupported entry type ${entry.type}: ${name}`;
  return undefined;
}

/**
 * Extraction caps: a bundle holds a snapshot of a few MB. A crafted one (a 4 MB gzip that
 * inflates to GBs, or millions of entries) is refused before anything is written.
 */
export const BUNDLE_LIMITS = { totalBytes: 512 * 1024 * 1024, entryBytes: READ_LIMITS.capture, entries: 100_000 } as const;

/**
 * Reads the whole archive once: a truncated or corrupt gzip/tar fails here, before extraction,
 * and so does one past the caps, as soon as the first cap is crossed (the rest of a bomb is
 * never inflated).
 */
async function validateArchive(file: string): Promise<void> {
  const problems: string[] = [];
  let entries = 0;
  let totalBytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const input = createReadStream(file);
      const parser = new Parser({
        strict: true,
        onReadEntry: (entry) => {
          entries += 1;
          totalBytes += entry.size ?? 0;
          let overLimit: string | undefined;
          if ((entry.size ?? 0) > BUNDLE_LIMITS.entryBytes)
            overLimit = `${entry.path} is ${entry.size} bytes (limit ${BUNDLE_LIMITS.entryBytes})`;
          else if (totalBytes > BUNDLE_LIMITS.totalBytes) overLimit = `more than ${BUNDLE_LIMITS.totalBytes} bytes once extracted`;
          else if (entries > BUNDLE_LIMITS.entries) overLimit = `more than ${BUNDLE_LIMITS.entries} entries`;
          if (overLimit) {
            input.destroy();
            reject(new BundleError(`${file}: refusing a bundle with ${overLimit}`));
            return;
          }
          const problem = entryProblem(entry);
          if (problem && problems.length < 10) problems.push(problem);
          entry.resume();
        },
      });
      parser.on('error', reject);
      parser.on('end', () => resolve());
      input.on('error', reject);
      input.pipe(parser);
    });
  } catch (error) {
    if (error instanceof BundleError) throw error;
    throw new BundleError(`${file}: not a readable .tar.gz bundle (${(error as Error).message})`);
  }
  if (entries === 0) throw new BundleError(`${file}: empty or not a tar archive`);
  if (problems.length) throw new BundleError(`${file}: refusing an unsafe bundle: ${problems.slice(0, 3).join('; ')}`);
}

export async function openBundle(file: string): Promise<OpenedBundle> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new BundleError(`${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  if (!info.isFile()) throw new BundleError(`${file} is not a file`);
  await validateArchive(file);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-analyze-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    try {
      // The filter repeats the checks: the archive could have changed since it was listed.
      await extract({
        file,
        cwd: dir,
        strict: true,
        preservePaths: false,
        filter: (_path, entry) => 'type' in entry && entryProblem(entry) === undefined,
      });
    } catch (error) {
      throw new BundleError(`${file}: extraction failed (${(error as Error).message})`);
    }
    const root = path.join(dir, BUNDLE_ROOT);
    const manifest = parseJson(
      await readText(root, BUNDLE_FILES.manifest, file),
      `${file}: ${BUNDLE_FILES.manifest}`,
      bundleManifestSchema,
    );
    await verify(root, manifest, file);
    const report = parseJson(await readText(root, BUNDLE_FILES.report, file), `${file}: ${BUNDLE_FILES.report}`, reportSchema);
    const bench = manifest.bench ? (JSON.parse(await readText(root, BUNDLE_FILES.bench, file)) as unknown) : undefined;
    return { snapshotDir: path.join(root, BUNDLE_FILES.snapshot), report, manifest, bench, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function readText(root: string, name: string, file: string): Promise<string> {
  try {
    return await readRegularFile(path.join(root, name), READ_LIMITS.capture);
  } catch {
    throw new BundleError(`${file}: not a nicdoctor bundle (no ${BUNDLE_ROOT}/${name})`);
  }
}

function parseJson<T>(
  text: string,
  where: string,
  schema: {
    safeParse(
      value: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  },
): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BundleError(`${where} is not valid JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BundleError(`${where}: ${issue?.path.map(String).join('.') || 'document'}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Every item the manifest lists must be there with its recorded sha256: a damaged bundle is refused. */
async function verify(root: string, manifest: BundleManifest, file: string): Promise<void> {
  const contents = [manifest.report, ...(manifest.bench ? [manifest.bench] : [])];
  for (const item of manifest.items) {
    if (item.kind === 'command') contents.push(...[item.stdout, item.meta].filter((content) => content !== null));
    else if (item.kind !== 'link') contents.push(item.content);
  }
  for (const content of contents) {
    if (content.path.split('/').includes('..')) throw new BundleError(`${file}: manifest path with ..: ${content.path}`);
    const data = await readFile(path.join(root, content.path)).catch(() => undefined);
    if (!data) throw new BundleError(`${file}: ${content.path} is listed in the manifest but missing`);
    if (sha256(data) !== content.sha256) throw new BundleError(`${file}: ${content.path} does not match its sha256 in the manifest`);
  }
}
