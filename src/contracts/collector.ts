import type { Logger } from 'pino';
import { HostIOError, type ExecOptions, type ExecResult, type HostIO, type OfflineInput } from '../hostio/types.js';
import type { Source } from '../report/schema.js';
import { FactCollectionError, ParseError, type FactError, type FactId, type FactResult, type FactTypes } from './facts.js';

export type FactScope = 'host' | 'interface';

/**
 * What a collector reads, declared next to the code that reads it, so that the fact catalogue
 * (docs/facts.md), the commands a report asks for and the conformance test all come from one
 * place. Templates: `<if>` the interface, `<pci>` a PCI address, `<n>` a number, `*` one path part
 * or word, `**` anything (sysfs's resolved device paths).
 */
export interface FactReads {
  /** Commands, as nicdoctor runs them (argv joined by spaces). */
  commands?: readonly string[];
  /** Files and directories (listings) it reads. */
  files?: readonly string[];
  /**
   * The command a person runs to print the same thing, for a report's "what to collect" list;
   * null when only nicdoctor produces it (the bench) or nothing a person pastes would carry it.
   */
  ask: string | null;
  /** Inputs that never hold this fact, each with why: declared up front, checked by the conformance test. */
  never?: Partial<Record<OfflineInput, string>>;
}

/**
 * A collector reads one fact from the host through HostIO, and nothing else does.
 * Interface-scoped collectors run once per interface with `subject` set to its name.
 */
export interface Collector<K extends FactId = FactId> {
  id: K;
  scope: FactScope;
  description: string;
  reads: FactReads;
  /** Watchdog for the whole collector (commands also have their own timeouts). */
  timeoutMs?: number;
  collect(ctx: CollectContext, subject: string): Promise<FactTypes[K]>;
}

export function defineCollector<K extends FactId>(collector: Collector<K>): Collector<K> {
  return collector;
}

/** HostIO seen through a collector: every read is recorded as a source of the fact. */
export interface CollectContext {
  readFile(path: string): Promise<string>;
  /** Like readFile, but resolves undefined when the file does not exist (optional attributes). */
  readOptionalFile(path: string): Promise<string | undefined>;
  readDir(path: string): Promise<string[]>;
  readLink(path: string): Promise<string>;
  /** Runs a command; a non-zero exit is returned, not thrown. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Another fact this one depends on; throws a dependency-failed error when it failed. */
  get<K extends FactId>(id: K, subject?: string): Promise<FactTypes[K]>;
  readonly io: HostIO;
  readonly log: Logger;
}

/** Which Debian package provides a tool, for "install X" hints. */
export const TOOL_PACKAGES: Record<string, string> = {
  ethtool: 'ethtool',
  lspci: 'pciutils',
  iperf3: 'iperf3',
  numactl: 'numactl',
  taskset: 'util-linux',
  irqbalance: 'irqbalance',
  ip: 'iproute2',
  tc: 'iproute2',
  sysctl: 'procps',
};

export function hintFor(error: HostIOError, argv?: string[]): string | undefined {
  switch (error.kind) {
    case 'tool-missing': {
      const tool = argv?.[0] ?? '';
      const pkg = TOOL_PACKAGES[tool];
      return pkg ? `install ${tool}: apt-get install ${pkg} (dnf install ${pkg} on RHEL)` : `install ${tool}`;
    }
    case 'permission-denied':
      return 'run nicdoctor as root (sudo nicdoctor ...)';
    case 'not-captured':
      // Offline inputs say what would have captured the fact; live hosts never get here.
      return argv?.length
        ? `not captured: run \`${argv.join(' ')}\` on the host, or record it with nicdoctor collect${argv[0] === 'iperf3' ? '' : ` (sos report: its ${argv[0] === 'lspci' ? 'pci' : 'networking'} plugin)`}`
        : 'not captured: record the host with nicdoctor collect (or sos report with its networking, processor and kernel plugins)';
    default:
      return undefined;
  }
}

function toFactError(error: unknown, argv?: string[]): FactError {
  if (error instanceof FactCollectionError) return { kind: error.kind, message: error.message, hint: error.hint };
  if (error instanceof ParseError) return { kind: error.kind, message: error.message };
  if (error instanceof HostIOError) {
    const kind = error.kind === 'io' ? 'failed' : error.kind;
    return { kind, message: error.message, hint: hintFor(error, argv) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'failed', message };
}

/** The command a person runs for a fact, for its subject: null when none (FactReads.ask). */
export function askCommandFor(reads: FactReads, subject: string): string | null {
  if (!reads.ask) return null;
  return subject ? reads.ask.replaceAll('<if>', subject) : reads.ask;
}

/**
 * A file or listing an offline input did not hold gets its hint from the collector's declaration:
 * the command to run on the host or, where this kind of input can never carry the fact, why and
 * what would. A failed command already names itself (its hint was attached where it ran).
 */
function withCatalogueHint(error: unknown, collector: Collector, subject: string, input: OfflineInput | undefined): FactError {
  const factError = toFactError(error);
  if (!(error instanceof HostIOError) || error.kind !== 'not-captured') return factError;
  const never = input ? collector.reads.never?.[input] : undefined;
  if (never) return { ...factError, hint: `not captured: ${never}; record the host with nicdoctor collect` };
  const command = askCommandFor(collector.reads, subject);
  if (!command) return factError;
  return { ...factError, hint: `not captured: run \`${command}\` on the host, or record it with nicdoctor collect` };
}

export interface CollectorRun {
  fact: string;
  subject?: string;
  ok: boolean;
  durationMs: number;
  error?: FactError;
}

const DEFAULT_COLLECTOR_TIMEOUT_MS = 30_000;

/**
 * Collects facts on demand, each once (memoised by id and subject), concurrently.
 * A failed collector leaves its typed error in its slot and the run goes on.
 */
export class FactStore {
  private readonly results = new Map<string, Promise<FactResult<unknown>>>();
  readonly runs: CollectorRun[] = [];
  /** "fact@subject" of every collector run that succeeded: a lookup per fact stays O(1) at 10,000 interfaces. */
  private readonly succeeded = new Set<string>();
  /** "fact@subject" of the facts handed in with provide(): collected, though no collector ran. */
  readonly provided = new Set<string>();
  private readonly collectors = new Map<string, Collector>();

  constructor(
    readonly io: HostIO,
    collectors: readonly Collector[],
    private readonly log: Logger,
  ) {
    for (const collector of collectors) {
      if (this.collectors.has(collector.id)) throw new Error(`two collectors for fact ${collector.id}`);
      this.collectors.set(collector.id, collector);
    }
  }

  scopeOf(id: FactId): FactScope {
    const collector = this.collectors.get(id);
    if (!collector) throw new Error(`no collector provides fact ${id}`);
    return collector.scope;
  }

  /**
   * Supplies a fact that was measured rather than read (the bench result), before any check asks.
   */
  provide<K extends FactId>(id: K, value: FactTypes[K], subject = ''): void {
    if (!this.collectors.has(id)) throw new Error(`no collector provides fact ${id}`);
    this.results.set(`${id}@${subject}`, Promise.resolve({ ok: true, value, sources: [], durationMs: 0 }));
    this.provided.add(`${id}@${subject}`);
  }

  /** Whether a collector ran for this fact and subject and succeeded (a provided fact did not run). */
  ranOk(id: string, subject = ''): boolean {
    return this.succeeded.has(`${id}@${subject}`);
  }

  get<K extends FactId>(id: K, subject?: string): Promise<FactResult<FactTypes[K]>> {
    const collector = this.collectors.get(id);
    if (!collector) throw new Error(`no collector provides fact ${id}`);
    const effectiveSubject = collector.scope === 'host' ? '' : (subject ?? '');
    if (collector.scope === 'interface' && !effectiveSubject) throw new Error(`fact ${id} needs an interface`);
    const key = `${id}@${effectiveSubject}`;
    let pending = this.results.get(key);
    if (!pending) {
      pending = this.run(collector, effectiveSubject);
      this.results.set(key, pending);
    }
    return pending as Promise<FactResult<FactTypes[K]>>;
  }

  private async run(collector: Collector, subject: string): Promise<FactResult<unknown>> {
    const sources: Source[] = [];
    const log = this.log.child({ fact: collector.id, ...(subject ? { subject } : {}) });
    const io = this.io;
    const ctx: CollectContext = {
      io,
      log,
      readFile: (path) => {
        sources.push({ kind: 'file', path });
        return io.readFile(path);
      },
      readOptionalFile: async (path) => {
        if (io.readOptionalFile) {
          sources.push({ kind: 'file', path });
          return io.readOptionalFile(path);
        }
        try {
          return await ctx.readFile(path);
        } catch (error) {
          if (error instanceof HostIOError && error.kind === 'not-found') return undefined;
          throw error;
        }
      },
      readDir: (path) => {
        sources.push({ kind: 'file', path });
        return io.readDir(path);
      },
      readLink: (path) => io.readLink(path),
      exec: async (argv, options) => {
        sources.push({ kind: 'command', argv });
        try {
          // Collectors only read: their commands may share a shell (hostio/command-batch.ts).
          return await io.exec(argv, { batch: true, ...options });
        } catch (error) {
          // Attach the hint here, where the argv that failed is known.
          if (error instanceof HostIOError)
            throw new FactCollectionError(toFactError(error, argv).kind, error.message, hintFor(error, argv));
          throw error;
        }
      },
      get: async (id, depSubject) => {
        const result = await this.get(id, depSubject ?? subject);
        if (result.ok) return result.value;
        throw new FactCollectionError('dependency-failed', `needs ${id}: ${result.error.message}`, result.error.hint);
      },
    };
    const started = performance.now();
    const timeoutMs = collector.timeoutMs ?? DEFAULT_COLLECTOR_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new FactCollectionError('timeout', `collector ${collector.id} did not finish in ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      const value = await Promise.race([collector.collect(ctx, subject), watchdog]);
      const durationMs = performance.now() - started;
      this.runs.push({ fact: collector.id, ...(subject ? { subject } : {}), ok: true, durationMs });
      this.succeeded.add(`${collector.id}@${subject}`);
      return { ok: true, value, sources, durationMs };
    } catch (error) {
      const durationMs = performance.now() - started;
      const factError = withCatalogueHint(error, collector, subject, io.offlineInput);
      log.debug({ err: factError }, 'collector failed');
      this.runs.push({ fact: collector.id, ...(subject ? { subject } : {}), ok: false, durationMs, error: factError });
      return { ok: false, error: factError, sources, durationMs };
    } finally {
      clearTimeout(timer);
    }
  }
}
