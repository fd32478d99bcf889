import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { netDeviceCollector, type NetDevice } from '../../src/collectors/net-device.js';
import { pcieLinkCollector, type PcieLink } from '../../src/collectors/pcie-link.js';
import { defineCollector, FactStore } from '../../src/contracts/collector.js';
import type { FactResult } from '../../src/contracts/facts.js';
import { SnapshotHostIO } from '../../src/hostio/snapshot.js';
import { commandKey } from '../../src/hostio/types.js';
import { silentLogger } from '../../src/util/log.js';
import { FIXTURES, REAL } from '../helpers/fixtures.js';
import { netDevice } from '../helpers/net-device.js';

/**
 * The collector runs through the real SnapshotHostIO on snapshot directories assembled in a temp
 * dir from the real sysfs captures (fixtures/real/sysfs): files copied, SYMLINKS.txt turned back
 * into links, /sys/class/net/<if> linked into /sys/devices as on a live host.
 */
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const INVENTORY = {
  hostname: 'test',
  kernel: '6.1.0',
  os: 'Debian 12',
  arch: 'x64',
  cpuModel: 'test',
  logicalCpus: 2,
  physicalCores: 2,
  virtualization: null,
  uid: 0,
};

interface SnapshotSpec {
  /** fixtures/real/sysfs/<capture>, whose devices/ tree is copied to /sys/devices. */
  capture?: string;
  /** interface name → its sysfs directory below /sys/devices (e.g. pci0000:a2/0000:a2:00.0/net/eth0). */
  nets?: Record<string, string>;
  /** Command outputs by argv; a `{ error }` records a command that could not run. */
  commands?: Array<{ argv: string[]; stdout?: string; error?: string }>;
}

async function snapshot(spec: SnapshotSpec): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'nicdoctor-pcie-'));
  dirs.push(root);
  await writeFile(path.join(root, 'snapshot.json'), JSON.stringify({ format: 'nicdoctor-snapshot', version: 1, inventory: INVENTORY }));
  const sys = path.join(root, 'fs', 'sys');
  await mkdir(path.join(sys, 'class', 'net'), { recursive: true });
  if (spec.capture) {
    const from = path.join(REAL, 'sysfs', spec.capture, 'devices');
    await cp(from, path.join(sys, 'devices'), { recursive: true, filter: (source) => path.basename(source) !== 'SYMLINKS.txt' });
    await restoreLinks(from, path.join(sys, 'devices'));
  }
  for (const [name, devicePath] of Object.entries(spec.nets ?? {})) {
    await symlink(path.join('..', '..', 'devices', devicePath), path.join(sys, 'class', 'net', name));
  }
  await mkdir(path.join(root, 'cmd'), { recursive: true });
  for (const command of spec.commands ?? []) {
    const key = commandKey(command.argv);
    if (command.error) await writeFile(path.join(root, 'cmd', `${key}.json`), JSON.stringify({ error: command.error }));
    else await writeFile(path.join(root, 'cmd', key), command.stdout ?? '');
  }
  return root;
}

/** Re-creates the links each capture lists in SYMLINKS.txt ("net/eth0/device -> ../../../0000:a2:00.0"). */
async function restoreLinks(captureDevices: string, target: string): Promise<void> {
  const listings = (await readdir(captureDevices, { recursive: true })).filter((name) => path.basename(name) === 'SYMLINKS.txt');
  for (const listing of listings) {
    const dir = path.dirname(listing);
    const text = await readFile(path.join(captureDevices, listing), 'utf8');
    for (const line of text.split('\n')) {
      const match = /^(.+?) -> (.+)$/.exec(line.trim());
      if (!match) continue;
      const linkPath = path.join(target, dir, match[1]!);
      await mkdir(path.dirname(linkPath), { recursive: true });
      await symlink(match[2]!, linkPath).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  }
}

async function collect(root: string, subject: string, device?: NetDevice): Promise<FactResult<PcieLink>> {
  const io = await SnapshotHostIO.open(root);
  // A hand-made net.device points the collector at a PCI function that has no netdev in the capture (NVMe, IB).
  const netDevice = device
    ? defineCollector({ id: 'net.device', scope: 'interface', description: 'test', reads: { ask: null }, collect: async () => device })
    : netDeviceCollector;
  const store = new FactStore(io, [netDevice, pcieLinkCollector], silentLogger());
  return store.get('pcie.link', subject);
}

function value(result: FactResult<PcieLink>): Extract<PcieLink, { present: true }> {
  if (!result.ok) throw new Error(`pcie.link failed: ${result.error.kind}: ${result.error.message}`);
  if (!result.value.present) throw new Error(`pcie.link not present: ${result.value.reason}`);
  return result.value;
}

const X722 = 'pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0/0000:60:00.0';

describe('pcie.link collector on real sysfs captures', () => {
  it('reads the X722 link from sysfs (2.5 GT/s x1 of 8 GT/s x1), its ids and the bridges above it', async () => {
    const root = await snapshot({ capture: 'intel-x722-lewisburg-hwloc-1', nets: { enp96s0f0: `${X722}/net/enp96s0f0` } });
    const link = value(await collect(root, 'enp96s0f0'));
    expect(link).toMatchObject({
      address: '0000:60:00.0',
      path: `/sys/devices/${X722}`,
      vendorId: '0x8086',
      deviceId: '0x37d2',
      virtualFunction: false,
      physicalFunction: null,
      link: {
        address: '0000:60:00.0',
        speedGts: 2.5,
        width: 1,
        maxSpeedGts: 8,
        maxWidth: 1,
        speedMarker: null,
        widthMarker: null,
        source: { kind: 'file', path: `/sys/devices/${X722}/current_link_speed` },
      },
      linkUnavailable: null,
    });
    // hwloc kept no link attributes on the bridges: they are listed, nearest first, without a link.
    expect(link.upstream).toEqual([
      { address: '0000:5f:03.0', path: '/sys/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0', link: null },
      { address: '0000:5e:00.0', path: '/sys/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0', link: null },
      { address: '0000:5d:02.0', path: '/sys/devices/pci0000:5d/0000:5d:02.0', link: null },
    ]);
    // lspci was not captured: MaxPayload is simply unavailable, the fact still stands.
    expect(link.payload).toBeNull();
    expect(link.payloadUnavailable).toMatch(/lspci/);
  });

  it('reads the healthy E810 (16 GT/s x8 = max) and takes MaxPayload from lspci when it was captured', async () => {
    const lspci =
      '\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0\n\t\t\tMaxPayload 256 bytes, MaxReadReq 512 bytes\n\t\tLnkSta:\tSpeed 16GT/s, Width x8\n';
    const root = await snapshot({
      capture: 'intel-e810-ice-1',
      nets: { enp162s0f0np0: 'pci0000:a2/0000:a2:00.0/net/enp162s0f0np0' },
      commands: [{ argv: ['lspci', '-vv', '-s', '0000:a2:00.0'], stdout: lspci }],
    });
    const result = await collect(root, 'enp162s0f0np0');
    const link = value(result);
    expect(link.link).toMatchObject({ speedGts: 16, width: 8, maxSpeedGts: 16, maxWidth: 8 });
    expect(link.vendorId).toBe('0x8086');
    expect(link.upstream).toEqual([]);
    expect(link.payload).toEqual({
      supportedBytes: 512,
      configuredBytes: 256,
      maxReadRequestBytes: 512,
      source: { kind: 'command', argv: ['lspci', '-vv', '-s', '0000:a2:00.0'] },
    });
    // Every file and command read is a source of the fact.
    expect(result.sources).toContainEqual({ kind: 'file', path: '/sys/devices/pci0000:a2/0000:a2:00.0/max_link_width' });
    expect(result.sources).toContainEqual({ kind: 'command', argv: ['lspci', '-vv', '-s', '0000:a2:00.0'] });
  });

  it('reads the I350 (5.0 GT/s x4 = max) below its root port', async () => {
    const root = await snapshot({
      capture: 'intel-i350-igb-nodeexporter-1',
      nets: { ens10f0: 'pci0000:40/0000:40:01.3/0000:45:00.0/net/ens10f0' },
    });
    const link = value(await collect(root, 'ens10f0'));
    expect(link.link).toMatchObject({ speedGts: 5, width: 4, maxSpeedGts: 5, maxWidth: 4 });
    expect(link.upstream.map((bridge) => bridge.address)).toEqual(['0000:40:01.3']);
  });

  it('walks up to the root port and reads its link (AMD root port above an endpoint held to 8 GT/s)', async () => {
    const root = await snapshot({ capture: 'amd-rootport-nvme-nodeexporter-1' });
    const device = netDevice('nvme-as-nic', { pciAddress: '0000:01:00.0', pciPath: '/sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0' });
    const link = value(await collect(root, 'nvme-as-nic', device));
    expect(link.link).toMatchObject({ speedGts: 8, width: 4, maxSpeedGts: 16, maxWidth: 4 });
    expect(link.upstream).toEqual([
      {
        address: '0000:00:02.1',
        path: '/sys/devices/pci0000:00/0000:00:02.1',
        link: {
          address: '0000:00:02.1',
          speedGts: 8,
          width: 4,
          maxSpeedGts: 8,
          maxWidth: 8,
          speedMarker: null,
          widthMarker: null,
          source: { kind: 'file', path: '/sys/devices/pci0000:00/0000:00:02.1/current_link_speed' },
        },
      },
    ]);
  });

  it('reads the ConnectX-4 (8 GT/s x16) three bridges deep', async () => {
    const root = await snapshot({ capture: 'mellanox-cx4-ib-hwloc-1' });
    const pciPath = '/sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:04.0/0000:1a:00.0';
    const link = value(await collect(root, 'ib0', netDevice('ib0', { driver: 'mlx5_core', pciAddress: '0000:1a:00.0', pciPath })));
    expect(link.link).toMatchObject({ speedGts: 8, width: 16, maxSpeedGts: 8, maxWidth: 16 });
    expect(link.upstream.map((bridge) => bridge.address)).toEqual(['0000:19:04.0', '0000:18:00.0', '0000:17:00.0']);
  });
});

describe('pcie.link collector: lspci fallback and edge cases', () => {
  const NIC_PATH = '/sys/devices/pci0000:00/0000:02:08.0/0000:09:00.0';
  const nic = netDevice('eno1', { driver: 'bnxt_en', pciAddress: '0000:09:00.0', pciPath: NIC_PATH });
  const nicArgv = ['lspci', '-vv', '-s', '0000:09:00.0'];
  const bridgeArgv = ['lspci', '-vv', '-s', '0000:02:08.0'];

  it('falls back to lspci when sysfs has no link attributes, for the NIC and the bridge above it', async () => {
    const root = await snapshot({
      commands: [
        { argv: nicArgv, stdout: await readFile(path.join(REAL, 'lspci/broadcom-bcm57416-downgraded-1.txt'), 'utf8') },
        { argv: bridgeArgv, stdout: await readFile(path.join(REAL, 'lspci/amd-600chipset-dsp-parent-of-bcm57416-1.txt'), 'utf8') },
      ],
    });
    const link = value(await collect(root, 'eno1', nic));
    expect(link.link).toEqual({
      address: '0000:09:00.0',
      speedGts: 8,
      width: 4,
      maxSpeedGts: 8,
      maxWidth: 8,
      speedMarker: null,
      widthMarker: 'downgraded',
      source: { kind: 'command', argv: nicArgv },
    });
    expect(link.payload).toEqual({
      supportedBytes: 512,
      configuredBytes: 512,
      maxReadRequestBytes: 512,
      source: { kind: 'command', argv: nicArgv },
    });
    expect(link.upstream).toEqual([
      {
        address: '0000:02:08.0',
        path: '/sys/devices/pci0000:00/0000:02:08.0',
        link: expect.objectContaining({
          speedGts: 8,
          width: 4,
          maxSpeedGts: 16,
          maxWidth: 4,
          source: { kind: 'command', argv: bridgeArgv },
        }),
      },
    ]);
  });

  it('fails with permission-denied when lspci hides the capabilities (not root)', async () => {
    const root = await snapshot({
      commands: [{ argv: nicArgv, stdout: '09:00.0 Ethernet controller: Broadcom Inc. BCM57416\n\tCapabilities: <access denied>\n' }],
    });
    const result = await collect(root, 'eno1', nic);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ kind: 'permission-denied', hint: 'run nicdoctor as root' });
  });

  it('fails with tool-missing, and an install hint, when lspci is not installed', async () => {
    const root = await snapshot({ commands: [{ argv: nicArgv, error: 'tool-missing' }] });
    const result = await collect(root, 'eno1', nic);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ kind: 'tool-missing', hint: expect.stringContaining('pciutils') });
  });

  it('says a device without PCI Express registers has no link (firecracker virtio lspci, driver not paravirtual)', async () => {
    const argv = ['lspci', '-vv', '-s', '0000:00:03.0'];
    const root = await snapshot({
      commands: [{ argv, stdout: await readFile(path.join(REAL, 'local-vm/lspci-vv-firecracker-virtio.txt'), 'utf8') }],
    });
    const device = netDevice('eth0', { driver: 'unknown', pciAddress: '0000:00:03.0', pciPath: '/sys/devices/pci0000:00/0000:00:03.0' });
    const link = value(await collect(root, 'eth0', device));
    expect(link.link).toBeNull();
    expect(link.linkUnavailable).toMatch(/no PCI Express link registers/);
  });

  it('marks an SR-IOV VF from its physfn link and reads nothing more', async () => {
    const root = await snapshot({});
    const vfPath = path.join(root, 'fs/sys/devices/pci0000:20/0000:20:01.1/0000:25:10.0');
    await mkdir(vfPath, { recursive: true });
    await writeFile(path.join(vfPath, 'current_link_speed'), 'Unknown\n');
    await writeFile(path.join(vfPath, 'current_link_width'), '0\n');
    await symlink('../0000:24:00.0', path.join(vfPath, 'physfn'));
    const device = netDevice('enp37s16', {
      driver: 'ixgbevf',
      pciAddress: '0000:25:10.0',
      pciPath: '/sys/devices/pci0000:20/0000:20:01.1/0000:25:10.0',
    });
    const link = value(await collect(root, 'enp37s16', device));
    expect(link).toMatchObject({
      virtualFunction: true,
      physicalFunction: '0000:24:00.0',
      link: { speedGts: null, width: 0 },
      upstream: [],
      payload: null,
    });
  });

  it('is not present for interfaces without a PCI device, nor for paravirtual NICs', async () => {
    const root = await snapshot({});
    const veth = await collect(root, 'veth0', netDevice('veth0', { kind: 'virtual', driver: null, pciAddress: null, pciPath: null }));
    expect(veth.ok && veth.value).toEqual({ present: false, reason: 'veth0 is not a PCI device (virtual)' });
    const virtio = await collect(
      root,
      'eth0',
      netDevice('eth0', {
        kind: 'paravirtual',
        driver: 'virtio_net',
        pciAddress: '0000:00:03.0',
        pciPath: '/sys/devices/pci0000:00/0000:00:03.0',
      }),
    );
    expect(virtio.ok && virtio.value).toMatchObject({ present: false, reason: expect.stringContaining('paravirtual') });
  });
});

describe('pcie.link collector on the scenario snapshot', () => {
  it('reads fixtures/hosts/ixgbe-10g-pcie-degraded through the lspci fallback (old kernel, no sysfs link attributes)', async () => {
    const link = value(await collect(path.join(FIXTURES, 'hosts', 'ixgbe-10g-pcie-degraded'), 'eth2'));
    expect(link.address).toBe('0000:81:00.0');
    expect(link.link).toMatchObject({
      speedGts: 2.5,
      width: 4,
      maxSpeedGts: 5,
      maxWidth: 8,
      source: { kind: 'command', argv: ['lspci', '-vv', '-s', '0000:81:00.0'] },
    });
  });
});
