import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';

const options = z.object({
  /** A table this full is a note: no packet is lost yet. */
  notePercent: z.number().positive().max(100).default(80),
  /** ... this full, one burst of new connections from dropping packets: a warning. */
  warningPercent: z.number().positive().max(100).default(95),
});

export default defineCheck({
  id: 'conntrack-table',
  title: 'Connection-tracking table',
  description:
    'Compares nf_conntrack_count with nf_conntrack_max. A full table drops the first packet of every new connection ("nf_conntrack: table full, dropping packet" in the kernel log) whatever the NIC does. A snapshot: a table that filled earlier shows in the kernel log.',
  scope: 'host',
  requires: [],
  optionalFacts: ['net.conntrack'],
  options,
  symptoms: {
    'conntrack-near-full': symptom({
      severity: 'warning',
      data: z.object({ count: z.number().int().nonnegative(), max: z.number().int().positive(), percent: z.number().nonnegative() }),
      message:
        'The connection-tracking table holds {count} of {max} entries ({percent} %): when it is full, the first packet of every new connection is dropped',
      fix: 'Raise net.netfilter.nf_conntrack_max (and the hash size, /sys/module/nf_conntrack/parameters/hashsize) if the host has the memory, or stop tracking traffic that needs no state (a NOTRACK rule in the raw table).',
    }),
  },
  run(ctx) {
    const { optional, options: opts, report, source } = ctx;
    const result = optional['net.conntrack'];
    if (!result.ok) return skipForFailedFact(ctx, result.error, { unsupported: (message) => message });
    const { count, max } = result.value;
    if (max === 0) return ctx.unknown('nf_conntrack_max is 0: the table size is not set');
    const percent = Number(((count / max) * 100).toFixed(1));
    if (percent < opts.notePercent) return undefined;
    const from = source('net.conntrack', 'nf_conntrack_count');
    report('conntrack-near-full', {
      ...(count >= max ? { severity: 'critical' as const } : percent < opts.warningPercent ? { severity: 'info' as const } : {}),
      evidence: [
        { label: 'nf_conntrack_count', observed: count, expected: `< ${opts.notePercent} % of ${max}`, ...(from ? { source: from } : {}) },
      ],
      data: { count, max, percent },
    });
    return undefined;
  },
});
