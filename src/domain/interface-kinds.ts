import type { InterfaceSummary } from '../report/schema.js';

/** Interfaces made by the kernel in software: no PCIe link, rings, interrupts or pause frames of their own. */
export const SOFTWARE_KINDS: ReadonlySet<InterfaceSummary['kind']> = new Set(['virtual', 'bond', 'bridge', 'vlan', 'other']);

/** A NIC the host owns (its wire, its rings, its PCIe link): the subject of NIC-level tuning. */
export function isPhysical(iface: Pick<InterfaceSummary, 'kind'>): boolean {
  return iface.kind === 'physical';
}

/** Wording for a kind: "a veth interface", "a paravirtual NIC", "an interface of unknown kind". */
export function describeKind(iface: Pick<InterfaceSummary, 'kind'> & { softwareType?: string | null }): string {
  if (iface.kind === 'unknown') return 'an interface of unknown kind';
  if (iface.kind === 'paravirtual') return 'a paravirtual NIC';
  const type = iface.softwareType && iface.softwareType !== iface.kind ? iface.softwareType : iface.kind;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} interface`;
}

export function isSoftware(iface: Pick<InterfaceSummary, 'kind'>): boolean {
  return SOFTWARE_KINDS.has(iface.kind);
}

/** appliesTo() for checks about NIC hardware: a reason on software interfaces, null otherwise. */
export function hardwareOnly(what: string): (iface: InterfaceSummary) => string | null {
  return (iface) => (isSoftware(iface) ? `${iface.name} is ${describeKind(iface)}: it has no ${what} of its own` : null);
}

/**
 * appliesTo() for tuning only the owner of the NIC can do (rings, coalescing, pause frames, offloads
 * the driver lacks): a guest cannot change what the hypervisor emulates, and a veth has none.
 */
export function ownedNicOnly(what: string): (iface: InterfaceSummary) => string | null {
  return (iface) => {
    if (isSoftware(iface)) return `${iface.name} is ${describeKind(iface)}: it has no ${what} of its own`;
    if (iface.kind === 'paravirtual')
      return `${iface.name} is a paravirtual NIC (${iface.driver ?? 'virtual'}): its ${what} are set by the hypervisor, not in the guest`;
    return null;
  };
}
