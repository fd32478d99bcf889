/**
 * HostIO is the only door to the machine (ARCHITECTURE.md): collectors and the bench read the
 * host through it, so the same collectors run live, against a recorded snapshot, or while
 * recording one.
 */

export interface ExecOptions {
  /** Kill the command after this long; every command has a timeout. */
  timeoutMs?: number;
  /**
   * A short read-only query (ethtool, ip, tc, dmesg...) that may share a shell with others
   * (hostio/command-batch.ts): much cheaper than a child process each. Never for a command that
   * changes the host or runs for long.
   */
  batch?: boolean;
  /**
   * Let the command finish when nicdoctor is stopping (Ctrl-C) instead of killing it: for the
   * few that undo a change made a moment ago (fix --verify reverting the step in flight).
   * The timeout still applies.
   */
  survivesShutdown?: boolean;
}

export interface ExecResult {
  argv: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export type HostIOErrorKind =
  | 'not-found' // a file or directory that does not exist
  | 'tool-missing' // the executable is not installed
  | 'permission-denied'
  | 'timeout'
  | 'not-captured' // a snapshot that does not hold this file or command
  | 'io'; // anything else the OS reported

/** The kinds an offline input or a live host gives as a matter of course: no stack trace is kept for them. */
const EXPECTED_KINDS: ReadonlySet<HostIOErrorKind> = new Set(['not-found', 'not-captured', 'tool-missing', 'permission-denied']);

export class HostIOError extends Error {
  constructor(
    readonly kind: HostIOErrorKind,
    message: string,
  ) {
    // A 10,000-interface input raises tens of thousands of "not captured" and "not found": their
    // stack traces cost seconds and say nothing (the message names the file or command).
    const limit = Error.stackTraceLimit;
    if (EXPECTED_KINDS.has(kind)) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'HostIOError';
  }
}

/** Facts about the host as a whole (CPU, OS, virtualization) rather than one file or command. */
export interface HostInventory {
  hostname: string;
  kernel: string;
  os: string;
  arch: string;
  cpuModel: string;
  logicalCpus: number;
  physicalCores: number;
  virtualization: string | null;
  /** Effective uid of the process that collected the facts. */
  uid: number;
}

/** The offline inputs that are not a nicdoctor snapshot: what each can carry differs (docs/facts.md). */
export type OfflineInput = 'script' | 'sosreport' | 'text';

export interface HostIO {
  /** 'live', 'snapshot' or 'recording': reported so a reader knows where facts came from. */
  readonly mode: 'live' | 'snapshot' | 'recording';
  /** Which kind of capture a snapshot-mode host reads, where that limits what it can hold. */
  readonly offlineInput?: OfflineInput;
  /** Runs argv (never a shell string). Resolves for any exit code; rejects with HostIOError. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  readFile(path: string): Promise<string>;
  /**
   * readFile, but undefined for a file that does not exist, with no exception built: offline
   * inputs implement it because a capture misses many optional attributes.
   */
  readOptionalFile?(path: string): Promise<string | undefined>;
  /** Entry names of a directory, sorted. */
  readDir(path: string): Promise<string[]>;
  /** Target of a symbolic link, as the kernel reports it (often relative). */
  readLink(path: string): Promise<string>;
  inventory(): Promise<HostInventory>;
  /**
   * For a capture that derives a file from another output (a sosreport's interface speed from
   * `ethtool`, a ticket's from the kernel log or its prose): which output, so a report can say
   * where the value came from. Undefined when the file is read as it is (sysfs).
   */
  derivedFrom?(path: string): Promise<string | undefined>;
}

/** Stable file name for a command's captured output, in the style of sosreport (`ethtool_-S_eth0`). */
export function commandKey(argv: string[]): string {
  return argv.map((part) => part.replace(/[^A-Za-z0-9._,:=+@-]/g, '_')).join('_');
}
