import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import type { Report } from '../../src/report/schema.js';
import { analyzeText } from '../../src/text/analyze.js';
import { commandDirectoryText, commandOfFileName } from '../../src/text/command-dir.js';
import { collectScriptFreebsd } from '../../src/collect-script/generate-freebsd.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES, REAL, realCapture } from '../helpers/fixtures.js';

const ROOT = path.resolve(FIXTURES, '..');
const ticket = (name: string) => readFileSync(path.join(ROOT, 'fixtures', 'eval', name, 'ticket.txt'), 'utf8');

async function reportOf(text: string): Promise<Report> {
  const outcomes = await analyzeText(text, { checks, log: silentLogger() });
  expect(outcomes).toHaveLength(1);
  return outcomes[0]!.report;
}

const check = (report: Report, id: string) => report.checks.find((entry) => entry.id === id)!;
const linuxWords = /\bethtool\b|\blspci\b|\bip -s\b|\/sys\/class|\/proc\/interrupts|\btc -s\b/;

describe('a pasted FreeBSD (OPNsense) ticket', () => {
  it('is recognised as FreeBSD, its pciconf and ifconfig read, its link fault found, in FreeBSD terms', async () => {
    const report = await reportOf(ticket('freebsd-opnsense-netgate6100-x553-sfp-no-carrier'));
    expect(report.host.os).toBe('FreeBSD');
    expect(report.source.segments?.filter((part) => part.recognised).map((part) => part.kind)).toEqual(['pciconf', 'freebsd-ifconfig']);
    expect(report.interfaces.map((iface) => iface.name)).toEqual(['ix0', 'ix1', 'ix2', 'ix3']);
    expect(report.diagnoses.map((diagnosis) => `${diagnosis.cause}@${diagnosis.subject}`)).toContain('16@ix0');
    // Checks with no FreeBSD input say so instead of "unknown".
    expect(check(report, 'softnet')).toMatchObject({
      status: 'not-applicable',
      reason: expect.stringMatching(/^FreeBSD has no softnet_stat/),
    });
    expect(check(report, 'qdisc').status).toBe('not-applicable');
    // What to ask for and how to fix are FreeBSD commands.
    expect((report.askFor ?? []).length).toBeGreaterThan(0);
    for (const ask of report.askFor ?? []) expect(ask.command).not.toMatch(linuxWords);
    expect((report.askFor ?? []).map((ask) => ask.command)).toContain('pciconf -lvc ix0');
    for (const fix of report.diagnoses.flatMap((diagnosis) => diagnosis.fixes))
      for (const command of fix.commands) expect(command).not.toMatch(linuxWords);
    for (const finding of report.checks.flatMap((entry) => entry.findings)) expect(finding.fix ?? '').not.toMatch(linuxWords);
  });

  it('judges the PCIe link from pciconf -lvc (LnkSta(LnkCap)) and the link speed from the media line', async () => {
    const text = `${realCapture('freebsd/pciconf-lvc-82599eb-x8-gen2.txt')}\n${realCapture('freebsd/ifconfig-ix1-10gbase-sr-active.txt').replace(/ix1/g, 'ix0')}`;
    const report = await reportOf(text);
    expect(report.interfaces.find((iface) => iface.name === 'ix0')).toMatchObject({ speedMbps: 10_000 });
    expect(check(report, 'pcie-link').status).toBe('pass');
    // The speed is read; without ifconfig -m's supported media there is no capability to compare it with.
    expect(check(report, 'link-speed').status).not.toBe('unknown');
  });

  it('does not tell a firewall to turn on offloads that ifconfig -m was not asked for (options= lists only what is on)', async () => {
    const report = await reportOf(ticket('freebsd-opnsense-ix1-10gbase-sr-router-offloads-off'));
    expect(report.diagnoses).toEqual([]);
    expect((report.askFor ?? []).map((ask) => ask.command)).toContain('ifconfig -m ix1');
  });

  it('reads socket-buffer limits from FreeBSD sysctls', async () => {
    const report = await reportOf(
      '$ sysctl kern.ipc.maxsockbuf net.inet.tcp.sendbuf_max net.inet.tcp.recvbuf_max hw.ncpu\nkern.ipc.maxsockbuf: 2097152\nnet.inet.tcp.sendbuf_max: 2097152\nnet.inet.tcp.recvbuf_max: 2097152\nhw.ncpu: 8\n' +
        realCapture('freebsd/ifconfig-ix1-10gbase-sr-active.txt'),
    );
    expect(report.host.logicalCpus).toBe(8);
    expect(check(report, 'socket-buffers').status).not.toBe('unknown');
  });

  it('leaves a Linux ticket Linux', async () => {
    const report = await reportOf('$ ethtool -i eth0\ndriver: ixgbe\nversion: 5.1.0-k\nbus-info: 0000:03:00.0\n');
    expect(report.host.os).toBe('unknown');
    expect(check(report, 'softnet').status).not.toBe('not-applicable');
  });
});

describe('a directory of outputs, one file per command', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('names each file by its command and reads them as one text', async () => {
    expect(commandOfFileName('pciconf_-lvc')).toBe('pciconf -lvc');
    expect(commandOfFileName('sysctl_dev.ix.0.txt')).toBe('sysctl dev.ix.0');
    expect(commandOfFileName('ifconfig -v ix0.out')).toBe('ifconfig -v ix0');
    expect(commandOfFileName('notes.txt')).toBeNull();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-freebsd-dir-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'pciconf_-lv'), realCapture('freebsd/pciconf-lv-netgate6100-x553.txt'));
    writeFileSync(path.join(dir, 'ifconfig -v ix0.txt'), realCapture('freebsd/ifconfig-v-ix0-x553-no-carrier.txt'));
    writeFileSync(path.join(dir, 'README'), 'not an output\n');
    const report = await reportOf(await commandDirectoryText(dir));
    expect(report.host.os).toBe('FreeBSD');
    expect(report.source.segments?.filter((part) => part.recognised).map((part) => part.command)).toEqual([
      'ifconfig -v ix0',
      'pciconf -lv',
    ]);
  });
});

describe('collect --script --os freebsd under dash, FreeBSD commands as fixture scripts', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'nicdoctor-freebsd-script-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes the snapshot archive layout, read-only, that analyze reads as FreeBSD', () => {
    const bin = path.join(work, 'bin');
    mkdirSync(bin);
    const fake = (name: string, body: string) => {
      writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
      chmodSync(path.join(bin, name), 0o755);
    };
    const capture = (file: string) => path.join(REAL, 'freebsd', file);
    fake(
      'uname',
      'case "$1" in -a) echo "FreeBSD fw1 13.2-RELEASE-p4 FreeBSD 13.2-RELEASE-p4 stable/24.1 amd64" ;; -n) echo fw1 ;; -r) echo 13.2-RELEASE-p4 ;; -m) echo amd64 ;; esac',
    );
    fake('freebsd-version', 'echo 13.2-RELEASE-p4');
    fake('ifconfig', `case "$1" in -l) echo "ix0 lo0 ix0_vlan5" ;; *) cat '${capture('ifconfig-v-ix0-x553-no-carrier.txt')}' ;; esac`);
    fake('pciconf', `cat '${capture('pciconf-lvc-82599eb-x8-gen2.txt')}'`);
    fake('sysctl', `case "$1" in dev.ix.0) cat '${capture('sysctl-dev-ix0-pfsense.txt')}' ;; *) exit 1 ;; esac`);
    fake('netstat', `case "$1" in -m) cat '${capture('netstat-m-mbufs-denied.txt')}' ;; *) exit 1 ;; esac`);
    fake('vmstat', 'exit 1');
    fake('iperf3', 'exit 1');
    const script = collectScriptFreebsd().replace(/^PATH=.*$/m, `PATH=${bin}:/usr/bin:/bin`);
    writeFileSync(path.join(work, 'collect.sh'), script);
    const out = path.join(work, 'out', 'fw1.tar.gz');
    mkdirSync(path.dirname(out));
    execFileSync('dash', [path.join(work, 'collect.sh'), out], { cwd: work, stdio: 'pipe', timeout: 60_000 });
    expect(readdirSync(path.dirname(out))).toEqual(['fw1.tar.gz']);
    const listing = execFileSync('tar', ['-tzf', out], { encoding: 'utf8', timeout: 30_000 });
    expect(listing).toMatch(/^nicdoctor-collect-fw1-\d{8}T\d{6}Z\/snapshot\.json$/m);
    expect(listing).toMatch(/\/cmd\/sysctl_dev\.ix\.0$/m);
    expect(listing).not.toMatch(/sysctl_dev\.ix0_vlan|sysctl_dev\.lo/);
    const json = execFileSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'cli.js'), 'analyze', out, '--format', 'json'], {
      encoding: 'utf8',
      timeout: 60_000,
    }).toString();
    const report = JSON.parse(json) as Report;
    expect(report.host.os).toBe('FreeBSD 13.2-RELEASE-p4');
    expect(report.host.hostname).toBe('fw1');
    expect(report.source.segments?.filter((part) => part.recognised).map((part) => part.kind)).toEqual(
      expect.arrayContaining(['freebsd-ifconfig', 'pciconf', 'sysctl', 'netstat-m', 'uname', 'freebsd-version']),
    );
    // ix0's name in ifconfig and pciconf: one NIC, its PCIe link x8 at 5 GT/s, its link down.
    expect(report.interfaces.map((iface) => iface.name)).toEqual(['ix0']);
    expect(report.diagnoses.map((diagnosis) => `${diagnosis.cause}@${diagnosis.subject}`)).toContain('16@ix0');
    expect(check(report, 'pcie-link').status).toBe('pass');
  });
});
