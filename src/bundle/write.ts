import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { writeOutput } from '../util/safe-output.js';
import os from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import type { Report } from '../report/schema.js';
import { VERSION } from '../util/version.js';
import { BUNDLE_FILES, BUNDLE_ROOT, describeBundleFile, listRawItems, manifestFor, type BundleManifest } from './manifest.js';
import type { RedactionCounts } from './redact.js';
import { redactSnapshot } from './redact-tree.js';

export interface WriteBundleOptions {
  /** A snapshot directory (`nicdoctor collect`, or the one a scan recorded). */
  snapshotDir: string;
  report: Report;
  /** The bench's JSON (raw iperf3 results and the ramp), when a bench ran. */
  bench?: unknown;
  /** The .tar.gz to write. */
  output: string;
  redact?: boolean;
}

export interface WriteBundleResult {
  output: string;
  manifest: BundleManifest;
  redacted: RedactionCounts | null;
  /** report.json as stored in the bundle (redacted when the bundle is). */
  reportText: string;
}

/**
 * Writes an evidence bundle: report.json, the snapshot (every raw output read), bench.json and
 * manifest.json, under one `nicdoctor-bundle/` directory in a .tar.gz. The archive is built
 * in a temporary file next to the output and renamed into place, so the output is either the
 * whole bundle or untouched.
 */
export async function writeBundle(options: WriteBundleOptions): Promise<WriteBundleResult> {
  const output = path.resolve(options.output);
  const staging = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-bundle-'));
  // Built in the private staging directory, then written out like any output (safe-output.ts).
  const temp = path.join(staging, 'bundle.tar.gz');
  try {
    const root = path.join(staging, BUNDLE_ROOT);
    await mkdir(root);
    // Copied, never changed in place: redaction must not touch the user's snapshot.
    await cp(path.resolve(options.snapshotDir), path.join(root, BUNDLE_FILES.snapshot), { recursive: true, verbatimSymlinks: true });
    let reportText = JSON.stringify(options.report, null, 2);
    let benchText = options.bench === undefined ? undefined : JSON.stringify(options.bench, null, 2);
    let redacted: RedactionCounts | null = null;
    if (options.redact) {
      const redactor = await redactSnapshot(path.join(root, BUNDLE_FILES.snapshot), {
        hostnames: [options.report.host.hostname],
        alsoCollect: [reportText, ...(benchText === undefined ? [] : [benchText])],
      });
      redacted = redactor.counts();
      // The marker is added after redaction so that its own numbers are never taken for addresses.
      const report = JSON.parse(redactor.apply(reportText)) as Record<string, unknown>;
      reportText = JSON.stringify({ ...report, redacted }, null, 2);
      if (benchText !== undefined) benchText = redactor.apply(benchText);
    }
    await writeFile(path.join(root, BUNDLE_FILES.report), reportText + '\n');
    if (benchText !== undefined) await writeFile(path.join(root, BUNDLE_FILES.bench), benchText + '\n');
    const manifest = manifestFor({
      items: await listRawItems(root),
      report: await describeBundleFile(root, BUNDLE_FILES.report),
      bench: benchText === undefined ? null : await describeBundleFile(root, BUNDLE_FILES.bench),
      redacted,
      tool: { name: 'nicdoctor', version: VERSION },
    });
    await writeFile(path.join(root, BUNDLE_FILES.manifest), JSON.stringify(manifest, null, 2) + '\n');
    // portable: no uid/gid/user names of the machine that wrote it.
    await createTar({ gzip: true, file: temp, cwd: staging, portable: true }, [BUNDLE_ROOT]);
    await writeOutput(options.output, await readFile(temp), { flag: '--bundle' });
    return { output, manifest, redacted, reportText };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
