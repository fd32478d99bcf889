import { defineCollector, TOOL_PACKAGES } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { HostIOError } from '../hostio/types.js';
import { toolDirs } from '../hostio/tool-path.js';

/** The tools checks and the bench run, with the packages that provide them. */
export const TOOLS = ['ethtool', 'lspci', 'iperf3', 'numactl', 'taskset', 'irqbalance', 'tc', 'ip'] as const;
export type ToolName = (typeof TOOLS)[number];

/** RHEL/Fedora names where they differ from Debian's (TOOL_PACKAGES); tc is split out of iproute there. */
const RPM_PACKAGES: Partial<Record<ToolName, string>> = { ip: 'iproute', tc: 'iproute-tc' };

/** Where distributions install these tools; sbin first because ethtool and irqbalance live there. */
export const STANDARD_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

export interface ToolPresence {
  name: ToolName;
  /** Where it was found, null when it is in none of the searched directories. */
  path: string | null;
  debianPackage: string;
  rpmPackage: string;
}

export interface Tools {
  /** Directories that could be listed, in search order. */
  searchedDirs: string[];
  tools: ToolPresence[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    tools: Tools;
  }
}

export const toolsCollector = defineCollector({
  id: 'tools',
  scope: 'host',
  description:
    'Which diagnostic tools are installed (ethtool, lspci, iperf3, numactl, taskset, irqbalance, tc, ip): directory listings of PATH and the sbin directories',
  reads: {
    files: ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', '/**'],
    ask: null,
    never: {
      text: 'a pasted text does not show which tools the host has installed',
      sosreport: 'sos does not list the binary directories',
    },
  },
  async collect(ctx) {
    // Listing directories is cheap and is recorded in snapshots, unlike running `<tool> --version`.
    // nicdoctor runs its commands from these directories (tool-path.ts), never the caller's PATH;
    // a replayed snapshot must not use the directories of the machine that analyses it.
    const fromPath = ctx.io.mode === 'snapshot' ? [] : toolDirs();
    const dirs = [...new Set([...fromPath, ...STANDARD_DIRS])];
    const listings = await Promise.all(
      dirs.map(async (dir) => {
        try {
          return { dir, names: new Set(await ctx.readDir(dir)) };
        } catch (error) {
          if (error instanceof HostIOError) return { dir, error };
          throw error;
        }
      }),
    );
    const readable = listings.filter((listing): listing is { dir: string; names: Set<string> } => 'names' in listing);
    if (readable.length === 0) {
      const first = listings.find((listing) => 'error' in listing)?.error;
      throw new FactCollectionError(
        first?.kind === 'not-captured' ? 'not-captured' : 'failed',
        `none of ${dirs.join(', ')} could be listed${first ? `: ${first.message}` : ''}`,
      );
    }
    return {
      searchedDirs: readable.map((listing) => listing.dir),
      tools: TOOLS.map((name) => {
        const found = readable.find((listing) => listing.names.has(name));
        const debianPackage = TOOL_PACKAGES[name] ?? name;
        return { name, path: found ? `${found.dir}/${name}` : null, debianPackage, rpmPackage: RPM_PACKAGES[name] ?? debianPackage };
      }),
    };
  },
});
