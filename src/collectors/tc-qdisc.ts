import { defineCollector } from '../contracts/collector.js';
import { parseTcClass, parseTcQdisc, type TcEntry } from '../parsers/tc-qdisc.js';
import { runTool } from './run-tool.js';

export interface TcQdisc {
  /** Egress (and ingress/clsact) qdiscs, root first as tc prints them. */
  qdiscs: TcEntry[];
  /** Classes of classful qdiscs (htb keeps its rates there); empty otherwise. */
  classes: TcEntry[];
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** `tc -s qdisc show` of every interface, split per interface (raw text, one block each). */
    'tc.qdisc.all': Record<string, string>;
    'tc.qdisc': TcQdisc;
  }
}

const CLASSFUL = ['htb', 'hfsc', 'cbq', 'drr', 'qfq', 'ets', 'prio'];

/**
 * Splits `tc -s qdisc show` (all interfaces) into each interface's block, in the form
 * `tc -s qdisc show dev <if>` prints it (without the "dev <if>" words).
 */
export function splitQdiscsByDevice(text: string): Record<string, string> {
  const blocks: Record<string, string[]> = {};
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const header = /^(qdisc\s+\S+\s+\S+)\s+dev\s+(\S+)\s+(\S.*)$/.exec(line);
    if (header) {
      current = blocks[header[2]!] ??= [];
      current.push(`${header[1]} ${header[3]}`);
    } else if (current && line.trim()) {
      current.push(line);
    }
  }
  return Object.fromEntries(Object.entries(blocks).map(([dev, lines]) => [dev, `${lines.join('\n')}\n`]));
}

/** One `tc` run for the whole host: a scan of many interfaces must not pay for one per interface. */
export const tcQdiscAllCollector = defineCollector({
  id: 'tc.qdisc.all',
  scope: 'host',
  description: 'Traffic control of every interface from one tc -s qdisc show',
  reads: { commands: ['tc -s qdisc show'], ask: 'tc -s qdisc show' },
  async collect(ctx) {
    return splitQdiscsByDevice((await runTool(ctx, ['tc', '-s', 'qdisc', 'show'])).stdout);
  },
});

export const tcQdiscCollector = defineCollector({
  id: 'tc.qdisc',
  scope: 'interface',
  description:
    'Traffic control on the interface (tc -s qdisc show, and tc -s class show dev <if> for classful qdiscs): shaper rates (tbf, htb, fq maxrate, cake) and drop counters',
  reads: { commands: ['tc -s qdisc show', 'tc -s class show dev <if>'], ask: 'tc -s qdisc show dev <if>' },
  async collect(ctx, name) {
    const all = await ctx.get('tc.qdisc.all');
    const qdiscs = all[name] ? parseTcQdisc(all[name]) : [];
    // Only a classful qdisc has classes: skip the second command otherwise.
    const classful = qdiscs.some((qdisc) => CLASSFUL.includes(qdisc.kind));
    const classes = classful ? parseTcClass((await runTool(ctx, ['tc', '-s', 'class', 'show', 'dev', name])).stdout) : [];
    return { qdiscs, classes };
  },
});
