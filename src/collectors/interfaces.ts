import path from 'node:path';
import { defineCollector, type CollectContext } from '../contracts/collector.js';
import { USERSPACE_NIC_DRIVERS, pciSubjectName } from '../domain/pci-subject.js';
import { isPciAddress, readAttribute, resolveLink } from '../hostio/sysfs-read.js';
import { isValidInterfaceName } from '../util/validate.js';
import { SYS_CLASS_NET, type NetDevice } from './net-device.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    /** Every network interface on the host except loopback. */
    interfaces: NetDevice[];
  }
}

export const interfacesCollector = defineCollector({
  id: 'interfaces',
  scope: 'host',
  description: "The host's network interfaces (/sys/class/net), loopback excluded",
  reads: {
    files: ['/sys/class/net', '/sys/bus/pci/devices', '/sys/bus/pci/devices/<pci>/class', '/sys/bus/pci/devices/<pci>/net'],
    ask: 'ip -d link show',
  },
  async collect(ctx) {
    const entries = (await ctx.readDir(SYS_CLASS_NET)).filter(
      (name) => name !== 'lo' && !name.startsWith('.') && name !== 'bonding_masters',
    );
    // A snapshot or sosreport can list names no kernel allows ("../x", "a b"): left out, and said.
    const names = entries.filter(isValidInterfaceName);
    for (const name of entries.filter((entry) => !isValidInterfaceName(entry)))
      ctx.log.warn({ name: JSON.stringify(name) }, 'not a valid interface name (dev_valid_name); left out');
    // A NIC handed to DPDK (vfio-pci, igb_uio) or bound to nothing has no interface: it is examined by its PCI address.
    const interfaceless = (await interfacelessNics(ctx)).filter((name) => !names.includes(name));
    const devices = await Promise.all([...names, ...interfaceless].map((name) => ctx.get('net.device', name)));
    return devices.filter((device) => device.linkType !== 772);
  },
});

const PCI_DEVICES = '/sys/bus/pci/devices';

/**
 * Network-class PCI functions (class 0x02xxxx) with no `net/` directory: bound to a userspace
 * driver or to none. Virtual functions are left out (a hypervisor hands dozens to guests). A
 * capture without /sys/bus/pci lists none; sosreports and pasted text find them in lspci.
 */
async function interfacelessNics(ctx: CollectContext): Promise<string[]> {
  let entries: string[];
  try {
    entries = (await ctx.readDir(PCI_DEVICES)).filter(isPciAddress);
  } catch {
    return [];
  }
  const found = await Promise.all(
    entries.map(async (address) => {
      const base = path.join(PCI_DEVICES, address);
      try {
        if (!/^0x02/i.test((await readAttribute(ctx, path.join(base, 'class'))) ?? '')) return null;
        if ((await resolveLink(ctx, path.join(base, 'physfn'))) !== undefined) return null;
        const hasInterface = await ctx.readDir(path.join(base, 'net')).then(
          (list) => list.length > 0,
          () => false,
        );
        if (hasInterface) return null;
        const driver = await resolveLink(ctx, path.join(base, 'driver'));
        // A kernel NIC driver that made no interface (yet, or it failed to probe) is not this case.
        if (driver && !USERSPACE_NIC_DRIVERS.has(path.basename(driver))) return null;
        return pciSubjectName(address);
      } catch {
        return null;
      }
    }),
  );
  return found.filter((name): name is string => name !== null);
}
