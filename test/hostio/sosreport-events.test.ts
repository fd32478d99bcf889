import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/pipeline/scan.js';
import { SosreportHostIO } from '../../src/hostio/sosreport.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES, realCapture } from '../helpers/fixtures.js';

const SOS = path.join(FIXTURES, 'sosreport', 'x710-e3-1271');
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function sosWith(files: Record<string, string>): Promise<SosreportHostIO> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-sos-events-'));
  temps.push(dir);
  await cp(SOS, dir, { recursive: true, verbatimSymlinks: true });
  for (const [relative, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await writeFile(path.join(dir, relative), text);
  }
  return SosreportHostIO.open(dir);
}

const findingsOf = async (io: SosreportHostIO, check: string) =>
  (await scan({ io, checks, log: silentLogger() })).report.checks.find((result) => result.id === check)!;

describe('kernel events and bonds read from a sosreport', () => {
  it('var/log/kern.log when sos holds no dmesg, and proc/net/bonding/*, reach the checks', async () => {
    const io = await sosWith({
      'var/log/kern.log': realCapture('kernel-events/ovs-over-mtu-tap-syslog-1.txt'),
      'proc/net/bonding/bond0': realCapture('bonding/8023ad-aggregator-split-networkd-1.txt'),
    });
    const events = await findingsOf(io, 'kernel-events');
    expect(events.findings.map((finding) => [finding.symptom, finding.data.count])).toEqual([['over-mtu-drops', 3]]);
    const bonds = await findingsOf(io, 'bonding');
    expect(bonds.findings.map((finding) => `${finding.symptom}@${finding.subject}`)).toEqual(['member-not-aggregated@bond0']);
  });

  it('sos_commands/kernel/dmesg is read first; a sosreport without them raises neither (bonds not copied: unknown, not a fault)', async () => {
    const io = await sosWith({ 'sos_commands/kernel/dmesg': realCapture('kernel-events/igb-tx-unit-hang-syslog-1.txt') });
    expect((await findingsOf(io, 'kernel-events')).findings.map((finding) => finding.symptom)).toEqual(['tx-timeouts']);
    const plain = await SosreportHostIO.open(SOS);
    const report = (await scan({ io: plain, checks, log: silentLogger() })).report;
    expect(report.checks.find((result) => result.id === 'bonding')!.status).toBe('unknown');
    expect(report.checks.find((result) => result.id === 'kernel-events')!.status).not.toBe('fail');
  });
});
