import path from 'node:path';
import { defineCollector, type CollectContext } from '../contracts/collector.js';
import { HostIOError } from '../hostio/types.js';
import { readAttribute } from '../hostio/sysfs-read.js';
import { procSysPath } from '../parsers/sysctl.js';
import { normalizeSysctlValue, parseSysctlConf } from '../parsers/sysctl-conf.js';

/**
 * Where sysctl --system and systemd-sysctl read settings, in their order of precedence: a file
 * name in an earlier directory hides the same name in a later one; files apply in the order of
 * their names, and /etc/sysctl.conf last.
 */
export const SYSCTL_DIRS = ['/etc/sysctl.d', '/run/sysctl.d', '/usr/local/lib/sysctl.d', '/usr/lib/sysctl.d', '/lib/sysctl.d'];
export const SYSCTL_CONF = '/etc/sysctl.conf';

const MAX_FILES = 100;
const MAX_KEYS = 500;

/** A setting that boot applies, and what the kernel runs with now. */
export interface SysctlOnDiskEntry {
  key: string;
  /** The value the last file to set it gives. */
  onDisk: string;
  file: string;
  /** The running value (/proc/sys), words joined by one space; null when this kernel has no such key. */
  running: string | null;
}

export interface SysctlOnDisk {
  files: string[];
  entries: SysctlOnDiskEntry[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'sysctl.on-disk': SysctlOnDisk;
  }
}

/** A directory's .conf files; null when the capture did not hold the directory at all. */
async function listConf(ctx: CollectContext, dir: string): Promise<string[] | null> {
  try {
    return (await ctx.readDir(dir)).filter((name) => name.endsWith('.conf'));
  } catch (error) {
    // A directory that does not exist holds no settings; one a capture did not hold says nothing.
    if (error instanceof HostIOError) return error.kind === 'not-captured' ? null : [];
    throw error;
  }
}

/** The files boot applies, in the order it applies them. */
async function sysctlFiles(ctx: CollectContext): Promise<string[]> {
  const byName = new Map<string, string>();
  const listings = await Promise.all(SYSCTL_DIRS.map((dir) => listConf(ctx, dir)));
  // A capture that holds none of the directories (a ticket, a partial sosreport) cannot say that no
  // file sets a key: the fact is not captured, rather than "no sysctl file on disk".
  if (listings.every((listing) => listing === null))
    throw new HostIOError('not-captured', `the capture holds none of ${SYSCTL_DIRS.join(', ')}`);
  SYSCTL_DIRS.forEach((dir, index) => {
    for (const name of listings[index] ?? []) if (!byName.has(name)) byName.set(name, path.posix.join(dir, name));
  });
  const ordered = [...byName.keys()].sort().map((name) => byName.get(name)!);
  return [...ordered.slice(0, MAX_FILES), SYSCTL_CONF];
}

export const sysctlOnDiskCollector = defineCollector({
  id: 'sysctl.on-disk',
  scope: 'host',
  description:
    'Network sysctl settings (net.*) that boot applies (/etc/sysctl.conf, /etc/sysctl.d, /run/sysctl.d, /usr/lib/sysctl.d) with the value each key runs with now (/proc/sys)',
  reads: {
    files: [
      '/etc/sysctl.conf',
      '/etc/sysctl.d',
      '/run/sysctl.d',
      '/usr/local/lib/sysctl.d',
      '/usr/lib/sysctl.d',
      '/lib/sysctl.d',
      '/etc/sysctl.d/*',
      '/run/sysctl.d/*',
      '/usr/local/lib/sysctl.d/*',
      '/usr/lib/sysctl.d/*',
      '/lib/sysctl.d/*',
    ],
    ask: 'cat /etc/sysctl.conf /etc/sysctl.d/*.conf',
    never: { text: 'pasted configuration files carry no file names to order them by' },
  },
  async collect(ctx) {
    const files: string[] = [];
    const last = new Map<string, { value: string; file: string }>();
    for (const file of await sysctlFiles(ctx)) {
      const text = await ctx.readOptionalFile(file).catch((error: unknown) => {
        if (error instanceof HostIOError) return undefined;
        throw error;
      });
      if (text === undefined) continue;
      files.push(file);
      // Network keys only: the rest (kernel.pid_max, fs.protected_*) is not this tool's to judge,
      // and distributions ship files a container or a VM never applies.
      for (const setting of parseSysctlConf(text))
        if (setting.key.startsWith('net.')) last.set(setting.key, { value: setting.value, file });
    }
    const entries: SysctlOnDiskEntry[] = [];
    for (const [key, { value, file }] of [...last].slice(0, MAX_KEYS)) {
      const running = await readAttribute(ctx, procSysPath(key));
      entries.push({ key, onDisk: value, file, running: running === undefined ? null : normalizeSysctlValue(running) });
    }
    return { files, entries };
  },
});
