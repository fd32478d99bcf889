import { HostIOError, type ExecResult, type HostIO, type HostIOErrorKind, type HostInventory } from '../../src/hostio/types.js';

/**
 * One scripted HostIO for collector, hostio and engine tests: a few files, listings, links and
 * command answers, and the HostIO errors a real snapshot or host gives for anything else. Tests
 * that can use a real capture tree open it with SnapshotHostIO instead; this is for the answers
 * no capture holds (a failing command, an unreadable file, a tool that is not installed).
 */

/** A command's answer (exit code 0 and empty output unless given), or the error exec rejects with. */
export type FakeAnswer = Partial<Omit<ExecResult, 'argv' | 'durationMs'>> | HostIOError;

export interface FakeHostSpec {
  /** 'snapshot' unless given: what the report says the facts came from. */
  mode?: HostIO['mode'];
  /** File contents by absolute path, or the error reading it gives (permission-denied, io). */
  files?: Record<string, string | HostIOError>;
  /** Directory listings; a directory not listed here lists the files under it, if any. */
  dirs?: Record<string, string[]>;
  /** Symbolic link targets by path. */
  links?: Record<string, string>;
  /** Answers by argv joined with spaces ('ethtool -S eth0'), or a function (undefined: not scripted). */
  commands?: Record<string, FakeAnswer> | ((argv: string[]) => FakeAnswer | undefined);
  inventory?: HostInventory;
  /**
   * The error kind for a file, directory or link the spec does not hold: 'not-found' (a live host)
   * unless given ('not-captured' is what a snapshot says). A command not scripted is 'not-captured'.
   */
  missing?: HostIOErrorKind;
}

export interface FakeHost extends HostIO {
  /** Every argv exec was called with, in order (scripted or not). */
  readonly commandsRun: string[][];
}

export function fakeHost(spec: FakeHostSpec = {}): FakeHost {
  const files = spec.files ?? {};
  const missingKind = spec.missing ?? 'not-found';
  const missing = (what: string) => new HostIOError(missingKind, `${what}: not in the fake host`);
  const commandsRun: string[][] = [];
  const answerFor = (argv: string[]): FakeAnswer | undefined =>
    typeof spec.commands === 'function' ? spec.commands(argv) : spec.commands?.[argv.join(' ')];
  return {
    mode: spec.mode ?? 'snapshot',
    commandsRun,
    async exec(argv) {
      commandsRun.push(argv);
      const answer = answerFor(argv);
      if (answer === undefined) throw new HostIOError('not-captured', `${argv.join(' ')}: not scripted`);
      if (answer instanceof HostIOError) throw answer;
      return { argv, exitCode: answer.exitCode ?? 0, stdout: answer.stdout ?? '', stderr: answer.stderr ?? '', durationMs: 1 };
    },
    async readFile(path) {
      const content = files[path];
      if (content === undefined) throw missing(path);
      if (content instanceof HostIOError) throw content;
      return content;
    },
    async readDir(path) {
      const listed = spec.dirs?.[path];
      if (listed) return [...listed];
      const prefix = `${path}/`;
      const names = new Set(
        Object.keys(files)
          .filter((file) => file.startsWith(prefix))
          .map((file) => file.slice(prefix.length).split('/')[0]!),
      );
      if (names.size === 0) throw missing(path);
      return [...names].sort();
    },
    async readLink(path) {
      const target = spec.links?.[path];
      if (target === undefined) throw missing(path);
      return target;
    },
    async inventory() {
      if (!spec.inventory) throw new HostIOError('not-captured', 'inventory: not in the fake host');
      return spec.inventory;
    },
  };
}
