/**
 * The one reader of the .tar.gz archives users hand to nicdoctor (evidence bundles, collect.sh
 * archives). They come from customers and may be crafted: a 3 MB gzip can inflate to 3 GB, a
 * FIFO can stand where the file should be. Rules, the same for every kind of archive:
 * - the input is opened non-blocking and must be a regular file (fstat on the open descriptor, so
 *   nothing can be swapped in between the check and the read), of at most `compressedBytes`;
 * - the limits (ARCHIVE_LIMITS) are enforced while the archive streams, on each header as it is
 *   read: an entry larger than `entryBytes`, more than `entries` entries, more than `totalBytes`
 *   in all or a path longer than `pathBytes` ends the read at once; nothing lists the whole
 *   archive first, so a bomb is refused after at most the limit was inflated;
 * - the kind of an archive is told from its first header only (firstEntryPath);
 * - errors name the user's file, never the temporary directory.
 */
import { closeSync, constants, createReadStream, fstatSync, openSync, type ReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, Unpack, type ReadEntry } from 'tar';
import { READ_LIMITS, fileType } from './contained.js';

export const ARCHIVE_LIMITS = {
  /** The .tar.gz itself: a snapshot compresses to a few MB. */
  compressedBytes: 256 * 1024 * 1024,
  /** Everything it holds, once extracted. */
  totalBytes: 512 * 1024 * 1024,
  /** One entry: the largest capture nicdoctor reads at all. */
  entryBytes: READ_LIMITS.capture,
  entries: 100_000,
  /** One entry's path (PATH_MAX). */
  pathBytes: 4096,
} as const;

/** Inflated bytes allowed beyond the entries' contents: headers and padding, 1 KB per entry at most. */
const FRAMING_BYTES = ARCHIVE_LIMITS.entries * 1024;

/** An archive that cannot be used; the message names the user's file. */
export class ArchiveError extends Error {
  override name = 'ArchiveError';
  constructor(
    message: string,
    /** Over one of ARCHIVE_LIMITS (rather than corrupt or unsafe). */
    readonly overLimit = false,
  ) {
    super(message);
  }
}

/**
 * Opens a user's archive for reading: non-blocking (a FIFO or a device cannot make the open
 * wait), then fstat of that descriptor: a regular file within the compressed-size limit.
 */
export function openArchiveInput(file: string): ReadStream {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ArchiveError(
      `${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? (error as Error).message)}`,
    );
  }
  const info = fstatSync(fd);
  if (!info.isFile()) {
    closeSync(fd);
    throw new ArchiveError(`${file}: not a regular file (${fileType(info)}); not read`);
  }
  if (info.size > ARCHIVE_LIMITS.compressedBytes) {
    closeSync(fd);
    throw new ArchiveError(`${file}: ${info.size} bytes, more than the ${ARCHIVE_LIMITS.compressedBytes}-byte limit for an archive`, true);
  }
  return createReadStream('', { fd, highWaterMark: 256 * 1024 });
}

/** Counts bytes on their way through and fails the stream past `limit`. */
function byteLimit(limit: number, problem: () => string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) done(new ArchiveError(problem(), true));
      else done(null, chunk);
    },
  });
}

/** gzip (by its magic bytes) is inflated here, under the size limit; xz and others are named. */
function inflated(input: ReadStream, file: string, limit: number): NodeJS.ReadableStream {
  const counted = byteLimit(limit, () => `${file}: more than ${ARCHIVE_LIMITS.totalBytes} bytes once extracted`);
  const gunzip = createGunzip();
  const fail = (error: Error) => counted.destroy(error);
  input.on('error', fail);
  gunzip.on('error', (error) => fail(new ArchiveError(`${file}: not a readable .tar.gz (${error.message})`)));
  input.once('readable', () => {
    const head = input.read(6) as Buffer | null;
    if (head) input.unshift(head);
    if (head && head[0] === 0xfd && head.subarray(1, 6).toString('latin1') === '7zXZ\0')
      fail(new ArchiveError(`${file}: not a readable .tar.gz (xz data; nicdoctor reads gzip)`));
    else if (head && (head[0] !== 0x1f || head[1] !== 0x8b)) fail(new ArchiveError(`${file}: not a readable .tar.gz (not gzip data)`));
    else input.pipe(gunzip).pipe(counted);
  });
  return counted;
}

/** The first of ARCHIVE_LIMITS that this entry (the `index`-th, 1-based) crosses, or undefined. */
function limitCrossed(entry: ReadEntry, index: number, totalBytes: number): string | undefined {
  const size = entry.size ?? 0;
  if (index > ARCHIVE_LIMITS.entries) return `more than ${ARCHIVE_LIMITS.entries} entries`;
  if (Buffer.byteLength(entry.path) > ARCHIVE_LIMITS.pathBytes)
    return `an entry path of ${Buffer.byteLength(entry.path)} bytes (limit ${ARCHIVE_LIMITS.pathBytes})`;
  if (size > ARCHIVE_LIMITS.entryBytes) return `${entry.path} is ${size} bytes (limit ${ARCHIVE_LIMITS.entryBytes})`;
  if (totalBytes > ARCHIVE_LIMITS.totalBytes) return `more than ${ARCHIVE_LIMITS.totalBytes} bytes once extracted`;
  return undefined;
}

export interface ExtractOptions {
  /** The user's path, for messages. */
  file: string;
  /** Where to extract (a fresh private directory). */
  cwd: string;
  /** Why an entry must not be extracted, or undefined: it is skipped, and the archive refused at the end. */
  entryProblem(entry: ReadEntry): string | undefined;
  /** What the archive is, for messages ("a bundle", "an archive"). */
  what: string;
}

export interface ExtractResult {
  entries: number;
  /** The first path component of every entry. */
  tops: Set<string>;
  /** The unsafe entries, skipped (at most 10 kept). */
  problems: string[];
}

/**
 * Extracts an archive in one pass with every limit enforced on each header before its entry is
 * written. On any failure the caller removes `cwd` (nothing outside it is written).
 */
export async function extractArchive(options: ExtractOptions): Promise<ExtractResult> {
  const { file } = options;
  const input = openArchiveInput(file);
  const result: ExtractResult = { entries: 0, tops: new Set(), problems: [] };
  let totalBytes = 0;
  await new Promise<void>((resolve, reject) => {
    let failure: Error | undefined;
    // On a failure the input stops and the extraction is ended, not aborted: entries already
    // being written finish first, so that the caller's removal of `cwd` does not race them.
    const fail = (error: Error) => {
      if (failure) return;
      failure = error instanceof ArchiveError ? error : new ArchiveError(`${file}: not a readable .tar.gz (${error.message})`);
      input.destroy();
      stream.unpipe(unpack);
      unpack.end();
    };
    const settle = () => (failure ? reject(failure) : resolve());
    const unpack = new Unpack({
      cwd: options.cwd,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      filter: (_path, entry) => {
        if (!('type' in entry) || failure) return false;
        result.entries += 1;
        totalBytes += entry.size ?? 0;
        const crossed = limitCrossed(entry, result.entries, totalBytes);
        if (crossed) {
          fail(new ArchiveError(`${file}: refusing ${options.what} with ${crossed}`, true));
          return false;
        }
        result.tops.add(entry.path.split('/')[0]!);
        const problem = options.entryProblem(entry);
        if (problem && result.problems.length < 10) result.problems.push(problem);
        return problem === undefined;
      },
    });
    // A truncated or corrupt archive: end the extraction the same way, once.
    unpack.on('error', (error: Error) => {
      if (!failure) fail(error);
    });
    unpack.once('finish', settle);
    const stream = inflated(input, file, ARCHIVE_LIMITS.totalBytes + FRAMING_BYTES);
    stream.on('error', (error: Error) => fail(error));
    stream.pipe(unpack);
  });
  return result;
}

/**
 * The path of an archive's first entry, reading no more than its first headers (an archive is
 * told by its first entry; listing it all would inflate a bomb). Undefined when it is not a
 * readable tar.gz. Throws ArchiveError when the input is not a regular file.
 */
export async function firstEntryPath(file: string): Promise<string | undefined> {
  const input = openArchiveInput(file);
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: string | undefined) => {
      if (done) return;
      done = true;
      input.destroy();
      parser.abort(new Error('first entry read'));
      resolve(value);
    };
    const parser = new Parser({ onReadEntry: (entry) => finish(entry.path) });
    parser.on('error', () => finish(undefined));
    parser.on('end', () => finish(undefined));
    // A first header (with pax or long-name records) fits in 1 MB.
    const stream = inflated(input, file, 1024 * 1024);
    stream.on('error', () => finish(undefined));
    stream.pipe(parser);
  });
}
