import { describe, expect, it } from 'vitest';
import sysctlDrift from '../../checks/sysctl-drift.js';
import { failed } from '../helpers/check-harness.js';
import { checkTester } from '../helpers/check-tester.js';

const tester = checkTester(sysctlDrift);

// systemd's shipped sysctl.d/50-default.conf (fixtures/real/sysctl) against this project's KVM guest's running values.
const entries = [
  { key: 'net.ipv4.conf.all.rp_filter', onDisk: '2', file: '/usr/lib/sysctl.d/50-default.conf', running: '0' },
  { key: 'net.ipv4.conf.all.accept_source_route', onDisk: '0', file: '/usr/lib/sysctl.d/50-default.conf', running: '0' },
  { key: 'net.core.default_qdisc', onDisk: 'fq_codel', file: '/usr/lib/sysctl.d/50-default.conf', running: 'pfifo_fast' },
  { key: 'net.ipv4.conf.all.promote_secondaries', onDisk: '1', file: '/usr/lib/sysctl.d/50-default.conf', running: null },
];

describe('sysctl-drift check', () => {
  it('notes every network key whose running value differs from the file boot applies, and passes', async () => {
    const result = await tester.run({ 'sysctl.on-disk': { files: ['/usr/lib/sysctl.d/50-default.conf'], entries } });
    expect(result.status).toBe('pass');
    expect(result.findings.map((finding) => [finding.severity, finding.data.key, finding.data.running, finding.data.onDisk])).toEqual([
      ['info', 'net.ipv4.conf.all.rp_filter', '0', '2'],
      ['info', 'net.core.default_qdisc', 'pfifo_fast', 'fq_codel'],
    ]);
    expect(result.findings[1]!.message).toBe(
      'net.core.default_qdisc is pfifo_fast now, but /usr/lib/sysctl.d/50-default.conf sets fq_codel: the next boot (or sysctl --system) changes it',
    );
  });

  it('says nothing when what runs is what boots', async () => {
    const same = entries.map((entry) => ({ ...entry, running: entry.running === null ? null : entry.onDisk }));
    const result = await tester.run({ 'sysctl.on-disk': { files: ['/usr/lib/sysctl.d/50-default.conf'], entries: same } });
    expect(result.findings).toEqual([]);
  });

  it('does not apply without sysctl files, and is unknown when they could not be read', async () => {
    expect((await tester.run({ 'sysctl.on-disk': { files: [], entries: [] } })).status).toBe('not-applicable');
    expect((await tester.run({ 'sysctl.on-disk': failed('permission-denied') })).status).toBe('unknown');
  });
});
