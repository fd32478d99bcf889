import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { LISTING_FILE } from '../hostio/snapshot-layout.js';
import type { RedactionCounts } from './redact.js';
import { walk } from './redact-tree.js';

export const BUNDLE_FORMAT = 'nicdoctor-bundle';
/** Everything sits below one directory, so that extracting by hand makes no mess. */
export const BUNDLE_ROOT = 'nicdoctor-bundle';
export const BUNDLE_FILES = { report: 'report.json', manifest: 'manifest.json', bench: 'bench.json', snapshot: 'snapshot' } as const;

const contentSchema = z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() });

/** One raw input as it was read: a command's output, a file, a directory listing, a link. */
export const manifestItemSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    argv: z.array(z.string()).nullable(),
    exitCode: z.number().int().nullable(),
    durationMs: z.number().nullable(),
    /** The command did not run (tool missing, timeout), as recorded. */
    error: z.string().optional(),
    /** null when only the record of a failed run exists. */
    stdout: contentSchema.nullable(),
    meta: contentSchema.nullable(),
  }),
  z.object({ kind: z.literal('file'), path: z.string(), content: contentSchema }),
  z.object({ kind: z.literal('directory'), path: z.string(), content: contentSchema }),
  z.object({ kind: z.literal('link'), path: z.string(), target: z.string() }),
]);
export type ManifestItem = z.infer<typeof manifestItemSchema>;

export const bundleManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(1),
  createdAt: z.string(),
  tool: z.object({ name: z.string(), version: z.string() }),
  redacted: z.object({ hostnames: z.number(), ips: z.number(), macs: z.number(), serials: z.number() }).nullable(),
  report: contentSchema,
  bench: contentSchema.nullable(),
  items: z.array(manifestItemSchema),
});
export type BundleManifest = z.infer<typeof bundleManifestSchema>;

export function sha256(content: Uint8Array | string): string {
  return createHash('sha256').update(content).digest('hex');
}

async function describe(bundleDir: string, relative: string) {
  const content = await readFile(path.join(bundleDir, relative));
  return { path: relative.split(path.sep).join('/'), sha256: sha256(content), size: content.length };
}

const commandMeta = z.object({
  argv: z.array(z.string()).optional(),
  exitCode: z.number().optional(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
});

/**
 * Lists every raw item of the snapshot inside a staged bundle directory (paths relative to it).
 * Host paths are rebuilt from the mirror layout: `snapshot/fs/sys/x` is `/sys/x`.
 */
export async function listRawItems(bundleDir: string): Promise<ManifestItem[]> {
  const snapshotDir = path.join(bundleDir, BUNDLE_FILES.snapshot);
  const entries = await walk(snapshotDir);
  const items: ManifestItem[] = [];
  const rel = (absolute: string) => path.relative(bundleDir, absolute);
  const commandKeys = new Set<string>();
  for (const entry of entries) {
    const [top, ...rest] = entry.relative.split(path.sep);
    if (top === 'cmd' && entry.kind === 'file' && rest.length === 1) commandKeys.add(rest[0]!.replace(/\.json$/, ''));
    if (top !== 'fs' || entry.kind === 'dir') continue;
    const hostPath = '/' + rest.join('/');
    if (entry.kind === 'link') items.push({ kind: 'link', path: hostPath, target: entry.target });
    else if (path.basename(hostPath) === LISTING_FILE)
      items.push({ kind: 'directory', path: path.dirname(hostPath), content: await describe(bundleDir, rel(entry.absolute)) });
    else items.push({ kind: 'file', path: hostPath, content: await describe(bundleDir, rel(entry.absolute)) });
  }
  const present = new Set(entries.filter((entry) => entry.kind === 'file').map((entry) => entry.relative));
  for (const key of [...commandKeys].sort()) {
    const stdoutRel = path.join('cmd', key);
    const metaRel = `${stdoutRel}.json`;
    // A command's stdout named like `x.json` with no record of its own is still an output.
    const metaText = present.has(metaRel) ? await readFile(path.join(snapshotDir, metaRel), 'utf8') : undefined;
    const meta = metaText ? commandMeta.safeParse(safeJson(metaText)) : undefined;
    const record = meta?.success ? meta.data : {};
    items.push({
      kind: 'command',
      argv: record.argv ?? null,
      exitCode: record.error ? null : (record.exitCode ?? (metaText ? 0 : null)),
      durationMs: record.durationMs ?? null,
      ...(record.error ? { error: record.error } : {}),
      stdout: present.has(stdoutRel) ? await describe(bundleDir, path.join(BUNDLE_FILES.snapshot, stdoutRel)) : null,
      meta: metaText ? await describe(bundleDir, path.join(BUNDLE_FILES.snapshot, metaRel)) : null,
    });
  }
  return items;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function manifestFor(fields: {
  items: ManifestItem[];
  report: { path: string; sha256: string; size: number };
  bench: { path: string; sha256: string; size: number } | null;
  redacted: RedactionCounts | null;
  tool: { name: string; version: string };
}): BundleManifest {
  return { format: BUNDLE_FORMAT, version: 1, createdAt: new Date().toISOString(), ...fields };
}

export { describe as describeBundleFile };
