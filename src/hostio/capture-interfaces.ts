import { USERSPACE_NIC_DRIVERS, pciSubjectName } from '../domain/pci-subject.js';
import type { KernelLog } from '../parsers/kernel-log.js';
import type { LspciDevice } from '../parsers/lspci.js';

/**
 * What a capture (a sosreport, a pasted ticket) says about an interface where sysfs is missing,
 * and from which output each value came, so the report can say "25000 Mb/s (kernel log)".
 */
export interface InterfaceInfo {
  driver: string | null;
  busInfo: string | null;
  speed: string | null;
  /** Where `speed` came from when it was not read from sysfs: "ethtool", "kernel log", "prose". */
  speedSource?: string | null;
  duplex: string | null;
  carrier: string | null;
  mtu: string | null;
  operstate: string | null;
}

export function blankInterfaceInfo(): InterfaceInfo {
  return { driver: null, busInfo: null, speed: null, speedSource: null, duplex: null, carrier: null, mtu: null, operstate: null };
}

export interface KernelLogMerge {
  /** List NICs the log names that the capture does not (false when the capture has its own interface list). */
  addNames: boolean;
}

/**
 * Fills what the kernel log knows into the interfaces a capture holds: the PCI function and
 * driver of its probe and rename lines, and the speed of its last "Link is Up" line, each only
 * where a more trusted output (ethtool, sysfs) said nothing. With `addNames`, a NIC the log
 * names at a PCI address becomes an interface of the capture. Returns the names it added.
 */
export function mergeKernelLog(interfaces: Map<string, InterfaceInfo>, log: KernelLog, options: KernelLogMerge): string[] {
  const added: string[] = [];
  const claimed = new Set([...interfaces.values()].map((info) => info.busInfo).filter(Boolean));
  for (const nic of log.nics) {
    if (!nic.name) continue;
    let info = interfaces.get(nic.name);
    if (!info) {
      if (!options.addNames || !nic.address || claimed.has(nic.address)) continue;
      info = blankInterfaceInfo();
      interfaces.set(nic.name, info);
      added.push(nic.name);
    }
    if (!info.busInfo && nic.address && !claimed.has(nic.address)) {
      info.busInfo = nic.address;
      claimed.add(nic.address);
    }
    if (!info.driver && nic.driver && nic.address && info.busInfo === nic.address) info.driver = nic.driver;
    if (!info.speed && nic.linkUp && nic.speedMbps) {
      info.speed = String(nic.speedMbps);
      info.speedSource = 'kernel log';
      info.duplex ??= nic.duplex;
    }
  }
  return added;
}

/** A network device of lspci that no interface stands for: a DPDK/vfio NIC, or one no driver claimed. */
export interface UnclaimedNic {
  name: string;
  address: string;
  driver: string | null;
}

const NETWORK_CLASS = /^(?:Ethernet controller|Network controller|Infiniband controller)\b/i;

/**
 * lspci's network devices that have no network interface: bound to a userspace driver
 * (vfio-pci, uio_pci_generic, igb_uio) or to none while lspci shows which modules could drive
 * it ("Kernel modules: ixgbe" and no "Kernel driver in use"). Devices an interface already
 * claims (by `ethtool -i` bus-info or the kernel log) are left out.
 */
export function unclaimedNics(devices: readonly LspciDevice[], claimed: ReadonlySet<string>): UnclaimedNic[] {
  const result: UnclaimedNic[] = [];
  for (const device of devices) {
    if (!device.address || !NETWORK_CLASS.test(device.description ?? '') || device.virtualFunction) continue;
    const address = device.address.length === 7 ? `0000:${device.address}` : device.address;
    if (claimed.has(address)) continue;
    const userspace = device.kernelDriver !== null && USERSPACE_NIC_DRIVERS.has(device.kernelDriver);
    const unbound = device.kernelDriver === null && device.kernelModules !== null;
    const name = pciSubjectName(address);
    if ((userspace || unbound) && name) result.push({ name, address, driver: device.kernelDriver });
  }
  return result;
}
