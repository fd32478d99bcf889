import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { checks as registry } from '../../checks/index.js';
import { BundleError, looksLikeBundle, openBundle } from '../bundle/index.js';
import { UsageError } from '../util/errors.js';
import type { FactStore } from '../contracts/collector.js';
import { scan } from '../pipeline/scan.js';
import { SnapshotError, SnapshotHostIO } from '../hostio/snapshot.js';
import { reportSchema, type Report } from '../report/schema.js';
import { silentLogger } from '../util/log.js';
import { READ_LIMITS, readRegularFile } from '../hostio/contained.js';
import { HostIOError } from '../hostio/types.js';
import { settingsFromReport, settingsFromStore, type HostSettings } from './settings.js';

/** One file or directory given to `fleet` or `diff`, read. */
export interface LoadedInput {
  file: string;
  /** The host's name in fleet tables: the file name up to its first dot (h1.json, h1.tar.gz → h1). */
  key: string;
  kind: 'report' | 'bundle' | 'snapshot';
  report: Report;
  /** Settings the checks read; from the raw outputs of a bundle or snapshot, else from the report alone. */
  settings: HostSettings;
  /** Every fact value, flattened (bundles and snapshots only), for `diff`. */
  facts: Map<string, unknown> | null;
}

/** The name fleet gives a file's host: "r12-07" for r12-07.json, r12-07.tar.gz, r12-07.bench.json. */
export function hostKey(file: string): string {
  return path.basename(file).split('.')[0] || path.basename(file);
}

async function isSnapshotDir(dir: string): Promise<boolean> {
  return stat(path.join(dir, 'snapshot.json')).then(
    (info) => info.isFile(),
    () => false,
  );
}

/**
 * Expands the command line's inputs: files as given, directories walked (sorted) for *.json
 * reports and *.tar.gz / *.tgz bundles; a directory holding snapshot.json is one snapshot.
 */
export async function expandInputs(inputs: readonly string[], argument: string): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    const info = await stat(input).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`${argument}: ${input}: ${error.code === 'ENOENT' ? 'no such file or directory' : error.message}`);
    });
    if (info.isFile() || (await isSnapshotDir(input))) {
      files.push(input);
      continue;
    }
    if (!info.isDirectory()) throw new UsageError(`${argument}: ${input}: not a regular file or directory; not read`);
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (await isSnapshotDir(full)) found.push(full);
          else await walk(full);
        } else if (entry.isFile() && (entry.name.endsWith('.json') || looksLikeBundle(entry.name))) {
          found.push(full);
        }
      }
    };
    await walk(input);
    if (found.length === 0) throw new UsageError(`${argument}: ${input}: no reports (*.json), bundles (*.tar.gz) or snapshots found`);
    files.push(...found);
  }
  return files;
}

/** Settings and every fact of a snapshot: the checks run on it again, offline, as `analyze` does. */
async function rescan(dir: string, sourcePath: string): Promise<{ report: Report; store: FactStore }> {
  const io = await SnapshotHostIO.open(dir);
  return scan({ io, checks: registry, log: silentLogger(), sourcePath });
}

/** Reads one report, bundle or snapshot; anything unreadable is a usage error naming the file. */
export async function loadInput(file: string, argument = 'INPUT'): Promise<LoadedInput> {
  const key = hostKey(file);
  try {
    if (looksLikeBundle(file)) {
      const opened = await openBundle(file);
      try {
        const { store } = await rescan(opened.snapshotDir, file);
        // The bundle's own report is the one the host wrote (policy, bench): keep it; the facts come from its raw outputs.
        const { settings, facts } = await settingsFromStore(store, opened.report);
        return { file, key, kind: 'bundle', report: opened.report, settings, facts };
      } finally {
        await opened.cleanup();
      }
    }
    if ((await stat(file)).isDirectory()) {
      const { report, store } = await rescan(file, file);
      const { settings, facts } = await settingsFromStore(store, report);
      return { file, key, kind: 'snapshot', report, settings, facts };
    }
    let json: unknown;
    try {
      // A regular file only, opened non-blocking: a FIFO given as a report is refused, not waited on.
      json = JSON.parse(await readRegularFile(file, READ_LIMITS.report));
    } catch (error) {
      if (error instanceof HostIOError) throw new UsageError(`${argument}: ${error.message}`);
      throw new UsageError(`${argument}: ${file}: not a JSON report (${(error as Error).message})`);
    }
    const parsed = reportSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(`${argument}: ${file}: not a nicdoctor report (${issue?.path.join('.') || 'document'}: ${issue?.message})`);
    }
    return { file, key, kind: 'report', report: parsed.data, settings: settingsFromReport(parsed.data), facts: null };
  } catch (error) {
    if (error instanceof BundleError || error instanceof SnapshotError) throw new UsageError(`${argument}: ${file}: ${error.message}`);
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES')
      throw new UsageError(`${argument}: ${file}: ${code === 'ENOENT' ? 'no such file' : 'permission denied'}`);
    throw error;
  }
}
