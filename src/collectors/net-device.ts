import path from 'node:path';
import { defineCollector } from '../engine/collector.js';
import type { InterfaceSummary } from '../report/schema.js';
import { nearestPciDevice, parseIntOrNull, readAttribute, resolveLink } from './sysfs-read.js';

export interface NetDevice {
  name: string;
  kind: InterfaceSummary['kind'];
  /** Kernel driver bound to the device (sysfs), null for software interfaces. */
  driver: string | null;
  pciAddress: string | null;
  /** Real sysfs path of the PCI function, where link, NUMA and IRQ attributes live. */
  pciPath: string | null;
  /** Real sysfs path of the interface (/sys/devices/.../net/<if>). */
  netPath: string;
  speedMbps: number | null;
  duplex: string | null;
  mtu: number | null;
  operstate: string | null;
  carrier: boolean | null;
  carrierChanges: number | null;
  numaNode: number | null;
  localCpuList: string | null;
  master: string | null;
  bondSlaves: string[];
  /** ARPHRD type: 1 Ethernet, 32 InfiniBand, 772 loopback. */
  linkType: number | null;
}

declare module '../engine/facts.js' {
  interface FactTypes {
    'net.device': NetDevice;
  }
}

const PARAVIRTUAL_DRIVERS = new Set(['virtio_net', 'vmxnet3', 'hv_netvsc', 'xen-netfront', 'netvsc', 'gve', 'ena']);

export const SYS_CLASS_NET = '/sys/class/net';

export const netDeviceCollector = defineCollector({
  id: 'net.device',
  scope: 'interface',
  description: 'Interface attributes from /sys/class/net/<if>: speed, MTU, state, driver, PCI address, NUMA node',
  async collect(ctx, name) {
    const classPath = path.join(SYS_CLASS_NET, name);
    // On current kernels /sys/class/net/<if> is a link into /sys/devices; follow it so that
    // relative links below it resolve the way the kernel resolves them.
    const netPath = (await resolveLink(ctx, classPath)) ?? classPath;
    const attr = (file: string) => readAttribute(ctx, path.join(netPath, file));
    const [speed, duplex, mtu, operstate, carrier, carrierChanges, type, uevent, devicePath, masterPath] = await Promise.all([
      attr('speed'),
      attr('duplex'),
      attr('mtu'),
      attr('operstate'),
      attr('carrier'),
      attr('carrier_changes'),
      attr('type'),
      attr('uevent'),
      resolveLink(ctx, path.join(netPath, 'device'), netPath),
      resolveLink(ctx, path.join(netPath, 'master'), netPath),
    ]);
    const devtype = /^DEVTYPE=(\S+)/m.exec(uevent ?? '')?.[1] ?? null;
    const pci = devicePath ? nearestPciDevice(devicePath) : null;
    const [driverPath, numa, localCpuList, slaves] = await Promise.all([
      devicePath ? resolveLink(ctx, path.join(devicePath, 'driver'), devicePath) : undefined,
      pci ? readAttribute(ctx, path.join(pci.path, 'numa_node')) : undefined,
      pci ? readAttribute(ctx, path.join(pci.path, 'local_cpulist')) : undefined,
      devtype === 'bond' ? readAttribute(ctx, path.join(netPath, 'bonding', 'slaves')) : undefined,
    ]);
    const driver = driverPath ? path.basename(driverPath) : null;
    const speedMbps = parseIntOrNull(speed);
    const numaNode = parseIntOrNull(numa);
    return {
      name,
      kind: classify(devtype, devicePath, driver),
      driver,
      pciAddress: pci?.address ?? null,
      pciPath: pci?.path ?? null,
      netPath,
      // The kernel reports -1 (or a huge unsigned value) when it does not know the speed.
      speedMbps: speedMbps !== null && speedMbps > 0 && speedMbps < 10_000_000 ? speedMbps : null,
      duplex: duplex && duplex !== 'unknown' ? duplex : null,
      mtu: parseIntOrNull(mtu),
      operstate: operstate ?? null,
      carrier: carrier === undefined ? null : carrier === '1',
      carrierChanges: parseIntOrNull(carrierChanges),
      numaNode: numaNode !== null && numaNode >= 0 ? numaNode : null,
      localCpuList: localCpuList || null,
      master: masterPath ? path.basename(masterPath) : null,
      bondSlaves: slaves ? slaves.split(/\s+/).filter(Boolean) : [],
      linkType: parseIntOrNull(type),
    };
  },
});

function classify(devtype: string | null, devicePath: string | undefined, driver: string | null): InterfaceSummary['kind'] {
  if (devtype === 'bond') return 'bond';
  if (devtype === 'bridge') return 'bridge';
  if (devtype === 'vlan') return 'vlan';
  if (driver && PARAVIRTUAL_DRIVERS.has(driver)) return 'paravirtual';
  if (devicePath) return 'physical';
  return devtype ? 'other' : 'virtual';
}

export function summarize(device: NetDevice): InterfaceSummary {
  return {
    name: device.name,
    kind: device.kind,
    driver: device.driver,
    pciAddress: device.pciAddress,
    speedMbps: device.speedMbps,
    duplex: device.duplex,
    mtu: device.mtu,
    operstate: device.operstate,
    numaNode: device.numaNode,
    master: device.master,
  };
}
