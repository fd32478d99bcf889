import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks } from '../../checks/index.js';
import { scan } from '../../src/pipeline/scan.js';
import { SosreportHostIO, isSosreport } from '../../src/hostio/sosreport.js';
import { SnapshotError } from '../../src/hostio/snapshot.js';
import { HostIOError } from '../../src/hostio/types.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES, realCapture } from '../helpers/fixtures.js';

const SOS = path.join(FIXTURES, 'sosreport', 'x710-e3-1271');
const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('SosreportHostIO on a sosreport tree built from real captures', () => {
  it('detects the sos layout and refuses other directories', async () => {
    expect(await isSosreport(SOS)).toBe(true);
    expect(await isSosreport(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'))).toBe(false);
    await expect(SosreportHostIO.open(path.join(FIXTURES, 'hosts', 'i40e-small-rings-drops'))).rejects.toThrow(SnapshotError);
  });

  it('maps commands, sysctls and sysfs reads onto sos files', async () => {
    const io = await SosreportHostIO.open(SOS);
    const stats = await io.exec(['ethtool', '-S', 'eth0']);
    expect(stats.exitCode).toBe(0);
    expect(stats.stdout).toBe(realCapture('ethtool/i40e-S-ethq-v2.3.2k-1.txt'));
    // From sysctl_-a of the CentOS 7.7 capture.
    expect((await io.readFile('/proc/sys/net/core/rmem_max')).trim()).toBe('212992');
    expect((await io.readFile('/proc/sys/net/ipv4/tcp_congestion_control')).trim()).toBe('cubic');
    // A key the kernel of the capture did not have reads as absent, not as "not captured".
    await expect(io.readFile('/proc/sys/net/core/netdev_budget_usecs')).rejects.toMatchObject({ kind: 'not-found' });
    expect(await io.readDir('/sys/class/net')).toEqual(['eth0', 'eth1', 'eth2', 'eth3']);
    // The PCI function and driver come from `ethtool -i` bus-info and driver.
    expect(await io.readLink('/sys/class/net/eth0/device')).toBe('../../../bus/pci/devices/0000:01:00.0');
    expect(await io.readLink('/sys/bus/pci/devices/0000:04:00.0/driver')).toBe('../../../../bus/pci/drivers/igb');
    await expect(io.exec(['ethtool', '--json', '-k', 'eth0'])).rejects.toMatchObject({ kind: 'not-captured' });
    await expect(io.readDir('/usr/sbin')).rejects.toBeInstanceOf(HostIOError);
    expect(await io.inventory()).toMatchObject({
      hostname: '1xE3-1271.I217_and_X710',
      cpuModel: 'Intel(R) Xeon(R) CPU E3-1271 v3 @ 3.60GHz',
      logicalCpus: 4,
      physicalCores: 4,
      arch: 'x64',
      uid: 0,
    });
  });

  it('runs the whole pipeline and finds the rings below maximum and the drops; no socket-buffer tier without a captured port speed', async () => {
    const io = await SosreportHostIO.open(SOS);
    const { report } = await scan({ io, checks, log: silentLogger() });
    expect(report.interfaces.map((iface) => [iface.name, iface.driver, iface.pciAddress])).toEqual([
      ['eth0', 'i40e', '0000:01:00.0'],
      ['eth1', 'i40e', '0000:01:00.1'],
      ['eth2', 'e1000e', '0000:00:19.0'],
      ['eth3', 'igb', '0000:04:00.0'],
    ]);
    const findings = report.checks.flatMap((check) => check.findings.map((finding) => `${check.id}/${finding.symptom}@${finding.subject}`));
    for (const iface of ['eth0', 'eth1', 'eth2', 'eth3']) expect(findings).toContain(`rx-rings/rx-ring-below-max@${iface}`);
    expect(findings).toContain('nic-drops/nic-drops@eth0');
    // sos captured no `ethtool <if>`: no negotiated speed, so no tier is judged (none is assumed).
    expect(findings.filter((finding) => finding.startsWith('socket-buffers/') && finding.includes('below-tier'))).toEqual([]);
    const byId = Object.fromEntries(report.checks.map((check) => [check.id, check]));
    expect(byId['numa-locality']?.status).toBe('not-applicable');
    // What sos did not capture is said, not invented.
    expect(byId['link-speed']?.status).toBe('unknown');
    expect(byId['link-speed']?.reason).toMatch(/sosreport holds no output of `ethtool eth0`/);
    expect(report.source.mode).toBe('snapshot');
  });

  it('answers `lspci -vv -s BDF` with that device block of lspci_-nnvv', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-sos-'));
    temps.push(dir);
    await cp(SOS, dir, { recursive: true, verbatimSymlinks: true });
    await mkdir(path.join(dir, 'sos_commands', 'pci'), { recursive: true });
    // lspci -nnvv prints one block per device separated by a blank line: two real blocks.
    const x550 = realCapture('lspci/intel-x550t-ok-sriov-1.txt');
    const bcm = realCapture('lspci/broadcom-bcm57416-downgraded-1.txt');
    await writeFile(path.join(dir, 'sos_commands', 'pci', 'lspci_-nnvv'), `${x550.trimEnd()}\n\n${bcm.trimEnd()}\n`);
    const io = await SosreportHostIO.open(dir);
    const block = await io.exec(['lspci', '-vv', '-s', '0000:24:00.0']);
    expect(block.stdout.startsWith('24:00.0 Ethernet controller [0200]: Intel Corporation Ethernet Controller 10G X550T')).toBe(true);
    expect(block.stdout).not.toContain(bcm.split('\n')[0]!);
    expect((await io.exec(['lspci', '-vv', '-s', '0000:99:00.0'])).stdout).toBe('');
  });

  it('turns a lone ethtool error line into a failed run, as the tool exited', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-sos-'));
    temps.push(dir);
    await cp(SOS, dir, { recursive: true, verbatimSymlinks: true });
    const veth = realCapture('local-vm/ethtool_-g-veth.txt');
    await writeFile(path.join(dir, 'sos_commands', 'networking', 'ethtool_-g_veth0'), veth);
    const io = await SosreportHostIO.open(dir);
    const result = await io.exec(['ethtool', '-g', 'veth0']);
    // The real capture is "netlink error: Operation not supported".
    expect(veth).toMatch(/Operation not supported/);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toBe(veth);
    expect(result.stdout).toBe('');
  });
});

describe('SosreportHostIO: interfaces from the kernel log and lspci', () => {
  /** A sosreport holding only sos's dmesg and lspci (real captures), as a partial extract does. */
  async function partialSos(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'nicdoctor-sos-evidence-'));
    temps.push(dir);
    for (const [relative, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
      await writeFile(path.join(dir, relative), text);
    }
    return dir;
  }

  it('names NICs from the kernel log, with their PCI function and link speed, and says where the speed came from', async () => {
    const dir = await partialSos({ 'sos_commands/kernel/dmesg': realCapture('dmesg/i40e-xl710-probe-rename-link-1.txt') });
    const io = await SosreportHostIO.open(dir);
    expect(await io.readDir('/sys/class/net')).toEqual(['enp193s0f0', 'enp193s0f1']);
    expect(await io.readLink('/sys/class/net/enp193s0f0/device')).toBe('../../../bus/pci/devices/0000:c1:00.0');
    expect((await io.readFile('/sys/class/net/enp193s0f0/speed')).trim()).toBe('40000');
    expect(await io.derivedFrom('/sys/class/net/enp193s0f0/speed')).toBe('kernel log');
    const outcome = await scan({ io, checks, log: silentLogger() });
    expect(outcome.report.interfaces.find((iface) => iface.name === 'enp193s0f0')).toMatchObject({
      kind: 'physical',
      driver: 'i40e',
      speedMbps: 40_000,
      speedSource: 'kernel log',
    });
  });

  it('adds no interface the kernel log names when sos kept `ip address` (what exists now), but still maps those that exist', async () => {
    const dir = await partialSos({
      'sos_commands/kernel/dmesg': realCapture('dmesg/i40e-xl710-probe-rename-link-1.txt'),
      'sos_commands/networking/ip_-d_address':
        '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN\n2: enp193s0f0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP\n',
    });
    const io = await SosreportHostIO.open(dir);
    expect(await io.readDir('/sys/class/net')).toEqual(['enp193s0f0']);
    expect((await io.readFile('/sys/class/net/enp193s0f0/speed')).trim()).toBe('40000');
  });

  it('a NIC bound to igb_uio in lspci -nnvv is examined by its PCI address', async () => {
    const dir = await partialSos({ 'sos_commands/pci/lspci_-nnvv': realCapture('lspci/huawei-hi1822-igb-uio-dpdk-1.txt') });
    const outcome = await scan({ io: await SosreportHostIO.open(dir), checks, log: silentLogger() });
    expect(outcome.report.interfaces).toEqual([
      expect.objectContaining({ name: 'pci-05_00.0', driver: 'igb_uio', pciAddress: '0000:05:00.0' }),
    ]);
    expect(outcome.report.checks.find((result) => result.id === 'pcie-link')?.status).toBe('pass');
  });
});
