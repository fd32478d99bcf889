import { z } from 'zod';
import { defineCheck, symptom } from '../src/contracts/check.js';

const options = z.object({
  /** At most this many keys are listed one by one; the rest are counted. */
  maxListed: z.number().int().positive().default(20),
});

export default defineCheck({
  id: 'sysctl-drift',
  title: 'Sysctl settings on disk against the running ones',
  description:
    'Reads the sysctl files boot applies (/etc/sysctl.conf, /etc/sysctl.d, /run/sysctl.d, /usr/lib/sysctl.d, in their order of precedence) and compares each network key (net.*) with the value the kernel runs with. A difference is a note: the host was tuned by hand since boot (and loses it at the next reboot), or a file was changed and not applied yet.',
  scope: 'host',
  requires: ['sysctl.on-disk'],
  options,
  symptoms: {
    'sysctl-differs': symptom({
      severity: 'info',
      data: z.object({ key: z.string(), onDisk: z.string(), running: z.string(), file: z.string() }),
      message: '{key} is {running} now, but {file} sets {onDisk}: the next boot (or sysctl --system) changes it',
      fix: 'Decide which value is right: put it in {file} (or a later file in /etc/sysctl.d) and apply it with sysctl --system, so that what runs and what boots agree.',
    }),
  },
  run({ facts, options: opts, report, notApplicable }) {
    const { files, entries } = facts['sysctl.on-disk'];
    if (files.length === 0) return notApplicable('no sysctl file on disk (/etc/sysctl.conf, /etc/sysctl.d) to compare with');
    const differing = entries.filter((entry) => entry.running !== null && entry.running !== entry.onDisk);
    for (const entry of differing.slice(0, opts.maxListed)) {
      report('sysctl-differs', {
        evidence: [{ label: entry.key, observed: entry.running!, expected: entry.onDisk, source: { kind: 'file', path: entry.file } }],
        data: { key: entry.key, onDisk: entry.onDisk, running: entry.running!, file: entry.file },
      });
    }
    return undefined;
  },
});
