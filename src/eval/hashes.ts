import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Label hashes (fixtures/LABEL-HASHES, and fixtures/holdout/LABEL-HASHES.part from whoever builds
 * the held-out set): `sha256sum` lines, paths relative to the repository root. A label is written
 * from the data and its hash committed before nicdoctor first runs on the case, so any later edit
 * of a label shows up in review as a change of this file.
 */
export const HASH_FILES = [path.join('fixtures', 'LABEL-HASHES'), path.join('fixtures', 'holdout', 'LABEL-HASHES.part')];

/** `<64 hex>  <path>` (sha256sum's text mode) or `<64 hex> *<path>` (binary mode). */
const LINE = /^([0-9a-f]{64}) [ *](\S.*)$/;

export class HashFileError extends Error {}

/** Parses sha256sum output into path → hash; a malformed line or a path listed twice with two hashes is an error. */
export function parseHashes(text: string, file: string, into: Map<string, string> = new Map()): Map<string, string> {
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.startsWith('#')) return;
    const match = LINE.exec(line);
    if (!match) throw new HashFileError(`${file}:${index + 1}: not a sha256sum line: ${line.slice(0, 120)}`);
    const [, hash, name] = match as unknown as [string, string, string];
    const known = into.get(name);
    if (known !== undefined && known !== hash) throw new HashFileError(`${file}:${index + 1}: ${name} is listed with two hashes`);
    into.set(name, hash);
  });
  return into;
}

/** Every hash file that exists under root, merged; a missing .part file is fine (no held-out case yet). */
export async function readHashes(root: string): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (const file of HASH_FILES) {
    const text = await readFile(path.join(root, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' && file !== HASH_FILES[0]) return '';
      throw new HashFileError(`${file}: ${error.message}`);
    });
    parseHashes(text, file, hashes);
  }
  return hashes;
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** What is wrong with the hashes of these labels (paths relative to root): each label without a line, or whose content changed. */
export async function labelHashProblems(root: string, labelPaths: string[], hashes: Map<string, string>): Promise<string[]> {
  const problems: string[] = [];
  for (const relative of labelPaths) {
    const recorded = hashes.get(relative);
    if (recorded === undefined) {
      problems.push(`${relative}: no line in ${HASH_FILES.join(' or ')}`);
      continue;
    }
    const actual = sha256(await readFile(path.join(root, relative)));
    if (actual !== recorded) problems.push(`${relative}: sha256 ${actual} but ${recorded} recorded`);
  }
  return problems;
}
