import { defineCollector, type CollectContext } from '../contracts/collector.js';
import { HostIOError } from '../hostio/types.js';
import { parseCpuList, parseCpuMask } from '../parsers/cpulist.js';
import { readAttribute } from '../hostio/sysfs-read.js';

export interface IrqBalance {
  running: boolean;
  pids: number[];
  /** The environment file that configures it, when one exists. */
  configPath: string | null;
  /** CPUs it leaves alone (IRQBALANCE_BANNED_CPULIST, or the IRQBALANCE_BANNED_CPUS hex mask). */
  bannedCpus: number[];
  /** IRQs it leaves alone (--banirq in IRQBALANCE_ARGS / IRQBALANCE_OPTS). */
  bannedIrqs: number[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    irqbalance: IrqBalance;
  }
}

// Debian/Ubuntu, then RHEL/SUSE.
const CONFIG_PATHS = ['/etc/default/irqbalance', '/etc/sysconfig/irqbalance'];

export const irqbalanceCollector = defineCollector({
  id: 'irqbalance',
  scope: 'host',
  description: 'Whether irqbalance runs (/proc/<pid>/comm) and the CPUs and IRQs its configuration excludes',
  reads: {
    files: ['/proc', '/proc/<n>/comm', '/etc/default/irqbalance', '/etc/sysconfig/irqbalance'],
    ask: 'systemctl status irqbalance',
    never: { text: 'no pasted format says whether irqbalance runs; its status output is prose' },
  },
  async collect(ctx) {
    const [pids, config] = await Promise.all([findProcesses(ctx, 'irqbalance'), readConfig(ctx)]);
    const settings = config ? shellAssignments(config.text) : new Map<string, string>();
    const cpulist = settings.get('IRQBALANCE_BANNED_CPULIST');
    const mask = settings.get('IRQBALANCE_BANNED_CPUS');
    const args = `${settings.get('IRQBALANCE_ARGS') ?? ''} ${settings.get('IRQBALANCE_OPTS') ?? ''}`;
    const bannedIrqs = [...args.matchAll(/(?:--banirq[=\s]|-i\s*)(\d+)/g)].map((match) => Number(match[1]));
    return {
      running: pids.length > 0,
      pids,
      configPath: config?.path ?? null,
      bannedCpus: cpulist ? parseCpuList(cpulist) : mask ? parseCpuMask(mask) : [],
      bannedIrqs,
    };
  },
});

async function findProcesses(ctx: CollectContext, comm: string): Promise<number[]> {
  const pids = (await ctx.readDir('/proc')).filter((entry) => /^\d+$/.test(entry));
  // Read through io, not ctx: hundreds of /proc/<pid>/comm reads would drown the fact's
  // provenance; the /proc listing is the recorded source (a snapshot still records each read).
  const names = await Promise.all(
    pids.map(async (pid) => {
      try {
        return (await ctx.io.readFile(`/proc/${pid}/comm`)).trim();
      } catch (error) {
        if (error instanceof HostIOError) return undefined; // the process exited meanwhile
        throw error;
      }
    }),
  );
  return pids
    .filter((_, index) => names[index] === comm)
    .map(Number)
    .sort((a, b) => a - b);
}

async function readConfig(ctx: CollectContext): Promise<{ path: string; text: string } | undefined> {
  const texts = await Promise.all(CONFIG_PATHS.map((path) => readAttribute(ctx, path)));
  const index = texts.findIndex((text) => text !== undefined);
  return index < 0 ? undefined : { path: CONFIG_PATHS[index]!, text: texts[index]! };
}

/** KEY=value and KEY="value" lines of a shell environment file; comments ignored. */
export function shellAssignments(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2]!.trim();
    const quoted = /^(["'])(.*)\1/.exec(value);
    value = quoted ? quoted[2]! : withoutComment(value);
    settings.set(match[1]!, value.trim());
  }
  return settings;
}

/** The value before a " # comment" (found without a regex that rescans the line from every space). */
function withoutComment(value: string): string {
  const hash = value.search(/\s#/);
  return hash < 0 ? value : value.slice(0, hash).trimEnd();
}
