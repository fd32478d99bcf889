import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { SosreportHostIO } from '../../src/hostio/sosreport.js';
import { scan } from '../../src/pipeline/scan.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES, realCapture } from '../helpers/fixtures.js';

const SOS = path.join(FIXTURES, 'sosreport', 'x710-e3-1271');
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The real sosreport tree, with more real captures where sos stores them. */
async function sosWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-sos-stack-'));
  temps.push(dir);
  await cp(SOS, dir, { recursive: true, verbatimSymlinks: true });
  for (const [relative, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await writeFile(path.join(dir, relative), text);
  }
  return dir;
}

describe('optics and the rest of the stack from a sosreport', () => {
  it('reads ethtool_-m_<if> (sos networking plugin), proc/net/sockstat, and tcp_mem and conntrack from sysctl_-a', async () => {
    const dir = await sosWith({
      'sos_commands/networking/ethtool_-m_eth0': realCapture('ethtool-module/ixgbe-sfp-10g-lr-no-light-1.txt'),
      'sos_commands/networking/ethtool_-m_eth1': realCapture('ethtool-module/sfp-10g-sr-boyang-1.txt'),
      'proc/net/sockstat': realCapture('procnet/sockstat-hotsos-k8s-vm-1.txt'),
      'etc/sysctl.d/50-default.conf': realCapture('sysctl/systemd-50-default-conf.txt'),
    });
    const io = await SosreportHostIO.open(dir);
    const { report } = await scan({ io, checks, log: silentLogger() });
    const byId = new Map(report.checks.map((check) => [check.id, check]));
    const optics = byId.get('optical-module')!;
    expect(optics.subjects?.find((s) => s.subject === 'eth0')).toMatchObject({ status: 'fail' });
    expect(optics.subjects?.find((s) => s.subject === 'eth1')).toMatchObject({ status: 'pass' });
    expect(optics.findings).toEqual([
      expect.objectContaining({ subject: 'eth0', severity: 'critical', data: expect.objectContaining({ quantity: 'rxPower' }) }),
    ]);
    expect(report.diagnoses.map((diagnosis) => diagnosis.ruleId)).toContain('optical-receive-power-out-of-range');
    // CentOS 7.7's tcp_mem and nf_conntrack_count 2 of 65536, the VM's sockstat: nothing to say.
    expect(byId.get('socket-memory')).toMatchObject({ status: 'pass', findings: [] });
    expect(byId.get('conntrack-table')).toMatchObject({ status: 'pass', findings: [] });
    // systemd's default file against the CentOS host's running values (sysctl_-a): notes, never a diagnosis.
    const drift = byId.get('sysctl-drift')!;
    expect(drift.status).toBe('pass');
    expect(drift.findings.every((finding) => finding.severity === 'info')).toBe(true);
  });
});
