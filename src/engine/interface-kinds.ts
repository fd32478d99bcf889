import type { InterfaceSummary } from '../report/schema.js';

/** Interfaces made by the kernel in software: no PCIe link, rings, interrupts or pause frames of their own. */
export const SOFTWARE_KINDS: ReadonlySet<InterfaceSummary['kind']> = new Set(['virtual', 'bond', 'bridge', 'vlan', 'other']);

export function isSoftware(iface: Pick<InterfaceSummary, 'kind'>): boolean {
  return SOFTWARE_KINDS.has(iface.kind);
}

/** appliesTo() for checks about NIC hardware: a reason on software interfaces, null otherwise. */
export function hardwareOnly(what: string): (iface: InterfaceSummary) => string | null {
  return (iface) => (isSoftware(iface) ? `${iface.name} is a ${iface.kind} interface: it has no ${what} of its own` : null);
}
