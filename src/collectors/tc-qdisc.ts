import { defineCollector } from '../engine/collector.js';
import { parseTcClass, parseTcQdisc, type TcEntry } from '../parsers/tc-qdisc.js';
import { runTool } from './run-tool.js';

export interface TcQdisc {
  /** Egress (and ingress/clsact) qdiscs, root first as tc prints them. */
  qdiscs: TcEntry[];
  /** Classes of classful qdiscs (htb keeps its rates there); empty otherwise. */
  classes: TcEntry[];
}

declare module '../engine/facts.js' {
  interface FactTypes {
    'tc.qdisc': TcQdisc;
  }
}

export const tcQdiscCollector = defineCollector({
  id: 'tc.qdisc',
  scope: 'interface',
  description: 'Traffic control on the interface from tc -s qdisc/class show dev <if>: shaper rates (tbf, htb, fq maxrate, cake) and drop counters',
  async collect(ctx, name) {
    const qdiscs = parseTcQdisc((await runTool(ctx, ['tc', '-s', 'qdisc', 'show', 'dev', name])).stdout);
    // Only a classful qdisc has classes: skip the second command otherwise.
    const classful = qdiscs.some((qdisc) => ['htb', 'hfsc', 'cbq', 'drr', 'qfq', 'ets', 'prio'].includes(qdisc.kind));
    const classes = classful ? parseTcClass((await runTool(ctx, ['tc', '-s', 'class', 'show', 'dev', name])).stdout) : [];
    return { qdiscs, classes };
  },
});
