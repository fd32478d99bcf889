import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';
import { skipForFailedFact } from '../src/contracts/optional-fact.js';
import { hardwareOnly, isSoftware } from '../src/domain/interface-kinds.js';
import { currentRxQueues } from '../src/parsers/ethtool-channels.js';
import { isZeroKey, queueShares } from '../src/domain/rss.js';
import type { Evidence } from '../src/report/schema.js';

const options = z.object({
  /** On ports this fast a table that feeds one queue is critical rather than a warning. */
  fastLinkMbps: z.number().positive().default(10_000),
  /** The busiest queue may hold up to this multiple of its fair share (1 / rings) of the table. */
  unevenRatio: z.number().gt(1).default(2),
});

const queueIndex = z.number().int().nonnegative();

const percent = (fraction: number) => Math.round(fraction * 1000) / 10;

export default defineCheck({
  id: 'rss-indirection',
  title: 'RSS indirection table and hash key',
  description:
    'Reads the RSS indirection table and hash key (`ethtool -x`): a table whose entries all point at one queue, a table where one queue holds more than twice its fair share (queues configured but unused), and an all-zero Toeplitz key (every flow hashes alike) each keep traffic on fewer CPUs than the queues suggest. A driver without an indirection table (ethtool -x "Operation not supported", e.g. virtio_net without RSS) is not applicable rather than unknown: there is no table to misconfigure, and the queue count itself is judged by rss-queues.',
  scope: 'interface',
  appliesTo: hardwareOnly('RSS indirection table (RSS is configured on the physical NIC)'),
  // ethtool -x is optional so that "the driver has no table" becomes not-applicable here instead
  // of the engine's generic unknown; other failures (permissions, missing ethtool) stay unknown.
  requires: ['net.device'],
  optionalFacts: ['ethtool.rxfh', 'ethtool.channels'],
  options,
  symptoms: {
    'all-to-one-queue': symptom({
      severity: 'warning',
      data: z.object({
        queue: queueIndex,
        /** Entries read from the table. */
        entries: z.number().int().positive(),
        rings: z.number().int().positive(),
        /** false when ethtool printed only part of the table. */
        complete: z.boolean(),
        linkMbps: z.number().nonnegative().nullable(),
      }),
      message:
        'Every entry of the RSS indirection table of {subject} ({entries} read) points at queue {queue}, although {rings} receive rings exist: all received flows land on one queue and one CPU',
      fix: 'ethtool -X {subject} equal {rings} (spreads the table evenly over the {rings} rings); check that no tool (DPDK/Onload, a tuning script) rewrote it',
    }),
    'uneven-indirection': symptom({
      severity: 'warning',
      data: z.object({
        usedQueues: z.number().int().positive(),
        rings: z.number().int().positive(),
        busiestQueue: queueIndex,
        busiestPercent: z.number().min(0).max(100),
        fairPercent: z.number().min(0).max(100),
        /** The check's unevenRatio option: how many fair shares the busiest queue may hold. */
        ratio: z.number().positive(),
        complete: z.boolean(),
      }),
      message:
        'The RSS indirection table of {subject} uses {usedQueues} of {rings} rings and gives queue {busiestQueue} {busiestPercent}% of the entries (fair share {fairPercent}%, allowed up to {ratio}x)',
      fix: 'ethtool -X {subject} equal {rings} (or ethtool -X {subject} default), unless the weights were set on purpose',
    }),
    'zero-hash-key': symptom({
      severity: 'warning',
      data: z.object({ keyBytes: z.number().int().positive(), rings: z.number().int().positive() }),
      message:
        'The RSS hash key of {subject} is all zeros ({keyBytes} bytes): with Toeplitz hashing every flow gets the same hash, so all traffic goes to one queue whatever the indirection table says',
      fix: "ethtool -X {subject} hkey $(openssl rand -hex {keyBytes} | sed 's/../&:/g; s/:$//') (a random {keyBytes}-byte key), or reload the driver to restore its default key",
    }),
  },
  run(ctx) {
    const { facts, optional, options: opts, subject, report, notApplicable, unknown, source } = ctx;
    const device = facts['net.device'];
    if (isSoftware(device)) {
      return notApplicable(
        `${subject} is a ${device.kind} interface: it has no RSS indirection table of its own (RSS is configured on the physical NIC)`,
      );
    }
    const rxfhResult = optional['ethtool.rxfh'];
    const driver = device.driver ?? 'unknown';
    if (!rxfhResult.ok) {
      return skipForFailedFact(ctx, rxfhResult.error, {
        unsupported: () =>
          `the ${driver} driver has no RSS indirection table (ethtool -x is not supported): there is no table to misconfigure; the queue count is judged by rss-queues`,
        command: `ethtool -x ${subject}`,
      });
    }
    const rxfh = rxfhResult.value;
    const rxfhSource = source('ethtool.rxfh');
    const withSource = (evidence: Evidence): Evidence => (rxfhSource ? { ...evidence, source: rxfhSource } : evidence);
    const channels = optional['ethtool.channels'];
    const channelsSource = source('ethtool.channels');
    const channelEvidence: Evidence[] = channels.ok
      ? [
          {
            label: 'receive channels in use (ethtool -l)',
            observed: currentRxQueues(channels.value),
            unit: 'queues',
            ...(channelsSource ? { source: channelsSource } : {}),
          },
        ]
      : [];

    // The key matters even without a readable table: a zero Toeplitz key defeats any table.
    const toeplitzInUse = rxfh.hashFunctions === null || rxfh.hashFunctions['toeplitz'] !== false;
    if (rxfh.hashKey && isZeroKey(rxfh.hashKey) && toeplitzInUse && rxfh.ringCount > 1) {
      report('zero-hash-key', {
        evidence: [
          withSource({
            label: 'RSS hash key',
            observed: rxfh.hashKey.map((byte) => byte.toString(16).padStart(2, '0')).join(':'),
            expected: 'random bytes',
          }),
        ],
        data: { keyBytes: rxfh.hashKey.length, rings: rxfh.ringCount },
      });
    }

    if (rxfh.indirection === null) {
      return notApplicable(
        `the ${driver} driver has no RSS indirection table (ethtool -x: "Operation not supported"); with ${rxfh.ringCount} receive ring(s) the queue count is judged by rss-queues`,
      );
    }
    if (rxfh.ringCount <= 1) {
      return notApplicable(`${subject} has a single receive ring: the indirection table has nothing to spread (see rss-queues)`);
    }
    if (rxfh.indirection.length === 0) {
      return unknown(`ethtool -x ${subject} printed the table header but no entries`, 'run ethtool -x by hand and check its output');
    }

    const shares = queueShares(rxfh.indirection, rxfh.ringCount);
    const used = shares.filter((share) => share.entries > 0);
    const tableLabel = rxfh.indirectionComplete ? 'indirection table entries' : 'indirection table entries (table partly read)';
    const fast = device.speedMbps !== null && device.speedMbps >= opts.fastLinkMbps;

    if (used.length === 1) {
      const only = used[0]!;
      report('all-to-one-queue', {
        ...(fast ? { severity: 'critical' as const } : {}),
        evidence: [
          withSource({
            label: `${tableLabel} pointing at queue ${only.queue}`,
            observed: only.entries,
            expected: Math.round(rxfh.indirection.length / rxfh.ringCount),
            unit: 'entries',
          }),
          withSource({ label: 'queues used by the table', observed: 1, expected: rxfh.ringCount, unit: 'queues' }),
          ...channelEvidence,
        ],
        data: {
          queue: only.queue,
          entries: rxfh.indirection.length,
          rings: rxfh.ringCount,
          complete: rxfh.indirectionComplete,
          linkMbps: device.speedMbps,
        },
      });
      return undefined;
    }

    const fair = 1 / rxfh.ringCount;
    const busiest = shares.reduce((top, share) => (share.share > top.share ? share : top));
    if (busiest.share > opts.unevenRatio * fair) {
      report('uneven-indirection', {
        evidence: [
          withSource({
            label: `share of ${tableLabel} on queue ${busiest.queue}`,
            observed: percent(busiest.share),
            expected: `≤ ${percent(opts.unevenRatio * fair)}`,
            unit: '%',
          }),
          withSource({ label: 'queues used by the table', observed: used.length, expected: rxfh.ringCount, unit: 'queues' }),
          ...channelEvidence,
        ],
        data: {
          usedQueues: used.length,
          rings: rxfh.ringCount,
          busiestQueue: busiest.queue,
          busiestPercent: percent(busiest.share),
          fairPercent: percent(fair),
          ratio: opts.unevenRatio,
          complete: rxfh.indirectionComplete,
        },
      });
    }
    return undefined;
  },
});
