import path from 'node:path';
import { defineCollector } from '../contracts/collector.js';
import type { InterfaceSummary } from '../report/schema.js';
import { nicInterruptRows } from '../parsers/proc-interrupts.js';
import { driverFromCounters, identify, type IdentitySignals } from './interface-identity.js';
import type { CollectContext } from '../contracts/collector.js';
import type { FactId, FactTypes } from '../contracts/facts.js';
import { pciAddressOfSubject } from '../domain/pci-subject.js';
import { isPciAddress, nearestPciDevice, parseIntOrNull, readAttribute, resolveLink } from '../hostio/sysfs-read.js';

export interface NetDevice {
  name: string;
  kind: InterfaceSummary['kind'];
  /** veth, vxlan, tun, ifb, ... for software interfaces. */
  softwareType: string | null;
  /** The signals that decided the kind. */
  identity: string[];
  /** Kernel driver bound to the device (sysfs), null for software interfaces. */
  driver: string | null;
  pciAddress: string | null;
  /** Real sysfs path of the PCI function, where link, NUMA and IRQ attributes live. */
  pciPath: string | null;
  /** Real sysfs path of the interface (/sys/devices/.../net/<if>). */
  netPath: string;
  /** Negotiated speed of a physical port or a bond with members: a real link speed. */
  speedMbps: number | null;
  /** Where the speed was read: "sysfs", or the output a capture derived it from ("ethtool", "kernel log", "prose"). */
  speedSource?: string | null;
  /** What a virtual, paravirtual or unidentified interface reports (a veth says 10000): not a link speed. */
  nominalSpeedMbps: number | null;
  duplex: string | null;
  mtu: number | null;
  operstate: string | null;
  /** IFF_UP: configured up by the administrator (sysfs flags or `ip link` UP); null when unknown. */
  adminUp: boolean | null;
  carrier: boolean | null;
  carrierChanges: number | null;
  numaNode: number | null;
  localCpuList: string | null;
  master: string | null;
  bondSlaves: string[];
  /** ARPHRD type: 1 Ethernet, 32 InfiniBand, 772 loopback. */
  linkType: number | null;
}

declare module '../contracts/facts.js' {
  interface FactTypes {
    'net.device': NetDevice;
  }
}

export const SYS_CLASS_NET = '/sys/class/net';

export const netDeviceCollector = defineCollector({
  id: 'net.device',
  scope: 'interface',
  description: 'Interface attributes from /sys/class/net/<if>: speed, MTU, state, driver, PCI address, NUMA node',
  reads: {
    commands: ['lspci -vv -s <pci>'],
    files: [
      '/sys/class/net/<if>',
      '/sys/class/net/<if>/*',
      '/sys/devices/**/net/<if>/*',
      '/sys/devices/**/<pci>/*',
      '/sys/bus/pci/devices/<pci>/*',
    ],
    ask: 'ethtool <if>; ethtool -i <if>; ip -d link show dev <if>',
  },
  async collect(ctx, name) {
    const classPath = path.join(SYS_CLASS_NET, name);
    // On current kernels /sys/class/net/<if> is a link into /sys/devices; follow it so that
    // relative links below it resolve the way the kernel resolves them.
    const netPath = (await resolveLink(ctx, classPath)) ?? classPath;
    const attr = (file: string) => readAttribute(ctx, path.join(netPath, file));
    const [speed, duplex, mtu, operstate, carrier, carrierChanges, type, uevent, interfaceDevice, masterPath, flags] = await Promise.all([
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
      attr('flags'),
    ]);
    // A NIC with no interface (vfio-pci, igb_uio, unbound) is named by its PCI address: its device is that function.
    const subjectAddress = pciAddressOfSubject(name);
    const functionPath = subjectAddress ? path.join('/sys/bus/pci/devices', subjectAddress) : undefined;
    const devicePath = interfaceDevice ?? (functionPath ? ((await resolveLink(ctx, functionPath)) ?? functionPath) : undefined);
    const devtype = /^DEVTYPE=(\S+)/m.exec(uevent ?? '')?.[1] ?? null;
    const pci = devicePath ? nearestPciDevice(devicePath) : null;
    const [driverPath, numa, localCpuList, slaves] = await Promise.all([
      devicePath ? resolveLink(ctx, path.join(devicePath, 'driver'), devicePath) : undefined,
      pci ? readAttribute(ctx, path.join(pci.path, 'numa_node')) : undefined,
      pci ? readAttribute(ctx, path.join(pci.path, 'local_cpulist')) : undefined,
      devtype === 'bond' ? readAttribute(ctx, path.join(netPath, 'bonding', 'slaves')) : undefined,
    ]);
    const sysfsDriver = driverPath ? path.basename(driverPath) : null;
    const sysfs = uevent !== undefined || type !== undefined;
    const signals: IdentitySignals & { ipFlags?: string[]; ipState?: string | null; nameAddressBasis?: string[] } = {
      name,
      sysfs,
      devtype,
      hasDevice: devicePath !== undefined,
      driver: sysfsDriver,
      ...(await otherSignals(ctx, name, sysfs)),
    };
    const identified = identify(signals);
    const identity = { ...identified, basis: [...identified.basis, ...(signals.nameAddressBasis ?? [])] };
    const derivedAddress = !pci && signals.busInfo && isPciAddress(signals.busInfo) ? signals.busInfo.toLowerCase() : null;
    const counterDriver =
      sysfsDriver || signals.ethtoolDriver || signals.lspciDriver || (identity.kind !== 'physical' && identity.kind !== 'paravirtual')
        ? null
        : driverFromCounters(signals.counterNames ?? []);
    // Driver-specific meanings (ITR encodings, counter families) need the driver, from whichever output names it.
    if (counterDriver) identity.basis.push(`driver ${counterDriver} inferred from its ethtool -S counter names`);
    const driver = sysfsDriver ?? signals.ethtoolDriver ?? signals.lspciDriver ?? counterDriver;
    const bondSlaves = slaves ? slaves.split(/\s+/).filter(Boolean) : [];
    const reported = parseIntOrNull(speed);
    // The kernel reports -1 (or a huge unsigned value) when it does not know the speed.
    const speedMbps = reported !== null && reported > 0 && reported < 10_000_000 ? reported : null;
    const isLinkSpeed = identity.kind === 'physical' || (identity.kind === 'bond' && bondSlaves.length > 0);
    const numaNode = parseIntOrNull(numa);
    return {
      name,
      kind: identity.kind,
      softwareType: identity.softwareType,
      identity: identity.basis,
      driver,
      pciAddress: pci?.address ?? (signals.busInfo && isPciAddress(signals.busInfo) ? signals.busInfo.toLowerCase() : null),
      pciPath: pci?.path ?? (derivedAddress ? `/sys/bus/pci/devices/${derivedAddress}` : null),
      netPath,
      speedMbps: isLinkSpeed ? speedMbps : null,
      speedSource: speedMbps === null ? null : ((await ctx.io.derivedFrom?.(path.join(classPath, 'speed'))) ?? 'sysfs'),
      nominalSpeedMbps: isLinkSpeed ? null : speedMbps,
      duplex: duplex && duplex !== 'unknown' ? duplex : null,
      mtu: parseIntOrNull(mtu),
      operstate: operstate ?? signals.ipState ?? null,
      adminUp:
        flags !== undefined && /^0x[0-9a-f]+$/i.test(flags)
          ? (Number.parseInt(flags, 16) & 1) === 1
          : (signals.ipFlags?.includes('UP') ?? null),
      carrier: carrier === undefined ? null : carrier === '1',
      carrierChanges: parseIntOrNull(carrierChanges),
      numaNode: numaNode !== null && numaNode >= 0 ? numaNode : null,
      localCpuList: localCpuList || null,
      master: masterPath ? path.basename(masterPath) : null,
      bondSlaves,
      linkType: parseIntOrNull(type),
    };
  },
});

/** enp3s0 → 0000:03:00.0, enP2p1s0f1np1 → 0002:01:00.1 (systemd's path names use decimal numbers). */
function pciAddressFromName(name: string): string | null {
  const match = /^en(?:P(\d+))?p(\d+)s(\d+)(?:f(\d+))?(?:n\S+|d\d+)?$/.exec(name);
  if (!match) return null;
  const [domain, bus, slot, fn] = [Number(match[1] ?? 0), Number(match[2]), Number(match[3]), Number(match[4] ?? 0)];
  if (domain > 0xffff || bus > 0xff || slot > 0x1f || fn > 7) return null;
  const hex = (value: number, width: number) => value.toString(16).padStart(width, '0');
  return `${hex(domain, 4)}:${hex(bus, 2)}:${hex(slot, 2)}.${fn}`;
}

/** A fact's value, or undefined when it could not be had: identity uses whatever is there. */
async function maybe<K extends FactId>(ctx: CollectContext, id: K, subject?: string): Promise<FactTypes[K] | undefined> {
  try {
    return await ctx.get(id, subject);
  } catch {
    return undefined;
  }
}

/**
 * The signals beyond sysfs. On a live host sysfs settles the kind and only the software type
 * is looked up (one `ip -d link` for every interface); a capture without sysfs gets every
 * signal it holds: ethtool -i/-S/settings, /proc/interrupts vectors, lspci, ip -d link.
 */
async function otherSignals(
  ctx: CollectContext,
  name: string,
  sysfs: boolean,
): Promise<Partial<IdentitySignals> & { ipFlags?: string[]; ipState?: string | null; nameAddressBasis?: string[] }> {
  const virtualized = (await ctx.io.inventory().catch(() => undefined))?.virtualization != null;
  const links = await maybe(ctx, 'ip.links');
  const link = links?.find((candidate) => candidate.name === name);
  const base = {
    ipKind: link?.kind ?? null,
    parentBus: link?.parentBus ?? null,
    ipFlags: link?.flags,
    ipState: link?.state ?? null,
    virtualized,
  };
  if (sysfs) return base;
  const [driverInfo, settings, stats, interrupts] = await Promise.all([
    maybe(ctx, 'ethtool.driver', name),
    maybe(ctx, 'ethtool.settings', name),
    maybe(ctx, 'ethtool.stats', name),
    maybe(ctx, 'proc.interrupts'),
  ]);
  let busInfo = driverInfo?.busInfo ?? link?.parentDev ?? null;
  // systemd's predictable name encodes the PCI address (enp3s0 = bus 3, slot 0): used only when
  // the capture's lspci holds a device there.
  let nameAddressBasis: string[] = [];
  const fromName = busInfo ? null : pciAddressFromName(name);
  if (fromName && (await lspciDevice(ctx, fromName))) {
    busInfo = fromName;
    nameAddressBasis = [`name ${name} = PCI ${fromName}, present in lspci`];
  }
  const pciAddress = busInfo && isPciAddress(busInfo) ? busInfo.toLowerCase() : null;
  const vectors = interrupts
    ? nicInterruptRows(interrupts, { name, driver: driverInfo?.driver ?? null, pciAddress, virtioDevice: null }).map(
        ({ row, name: action }) => ({ name: action ?? row.actions[0] ?? '', chip: row.chip }),
      )
    : [];
  const lspci = pciAddress ? await lspciDevice(ctx, pciAddress) : undefined;
  return {
    ...base,
    nameAddressBasis,
    ethtoolDriver: driverInfo?.driver ?? null,
    busInfo,
    port: settings?.port ?? null,
    supportedLinkModes: settings?.supportedLinkModes ?? null,
    counterNames: stats?.counters.map((counter) => counter.name) ?? [],
    vectors,
    lspciDriver: lspci?.driver ?? null,
    lspciDescription: lspci?.description ?? null,
  };
}

/** `lspci -vv -s <BDF>`: the device line and its "Kernel driver in use". */
async function lspciDevice(
  ctx: CollectContext,
  address: string,
): Promise<{ driver: string | null; description: string | null } | undefined> {
  try {
    const result = await ctx.exec(['lspci', '-vv', '-s', address]);
    if (result.exitCode !== 0 || !result.stdout.trim()) return undefined;
    const first = result.stdout.split('\n', 1)[0] ?? '';
    return {
      driver: /Kernel driver in use:\s*(\S+)/.exec(result.stdout)?.[1] ?? null,
      description: /^\S+\s+(\S.*)$/.exec(first)?.[1] ?? null,
    };
  } catch {
    return undefined;
  }
}

export function summarize(device: NetDevice): InterfaceSummary {
  return {
    name: device.name,
    kind: device.kind,
    softwareType: device.softwareType,
    identity: device.identity,
    driver: device.driver,
    pciAddress: device.pciAddress,
    speedMbps: device.speedMbps,
    ...(device.speedSource ? { speedSource: device.speedSource } : {}),
    nominalSpeedMbps: device.nominalSpeedMbps,
    duplex: device.duplex,
    mtu: device.mtu,
    operstate: device.operstate,
    numaNode: device.numaNode,
    master: device.master,
  };
}
