import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ReadEntry } from 'tar';
import { ARCHIVE_LIMITS, ArchiveError, extractArchive } from '../hostio/archive.js';
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

/** Extraction caps: the limits every archive gets (src/hostio/archive.ts). */
export const BUNDLE_LIMITS = ARCHIVE_LIMITS;

export async function openBundle(file: string): Promise<OpenedBundle> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-analyze-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    // One pass: each header is checked (limits, unsafe paths and links) before its entry is written.
    const extracted = await extractArchive({ file, cwd: dir, entryProblem, what: 'a bundle' }).catch((error: unknown) => {
      if (error instanceof ArchiveError)
        throw new BundleError(error.message.replace('not a readable .tar.gz', 'not a readable .tar.gz bundle'));
      throw error;
    });
    if (extracted.entries === 0) throw new BundleError(`${file}: empty or not a tar archive`);
    if (extracted.problems.length)
      throw new BundleError(`${file}: refusing an unsafe bundle: ${extracted.problems.slice(0, 3).join('; ')}`);
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
