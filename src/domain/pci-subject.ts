/**
 * A NIC with no network interface — bound to vfio-pci, uio_pci_generic or igb_uio for DPDK, or
 * to no driver at all — is still a NIC whose PCIe link can be judged. It is examined under a
 * name made from its PCI address, since the kernel gives it none. Interface names allow at most
 * 15 bytes and no ':' (dev_valid_name): "pci-03_00.0" for 0000:03:00.0, "pci0004-01_00.1"
 * for another domain.
 */

const SUBJECT = /^pci(?:([0-9a-f]{4}))?-([0-9a-f]{2})_([0-9a-f]{2})\.([0-7])$/;
const ADDRESS = /^([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/;

/** Drivers that take a NIC away from the kernel's network stack (userspace I/O, device assignment). */
export const USERSPACE_NIC_DRIVERS: ReadonlySet<string> = new Set(['vfio-pci', 'uio_pci_generic', 'igb_uio', 'pci-stub', 'vfio_pci']);

/** The subject name for a PCI function ("0000:03:00.0" → "pci-03_00.0"); null for anything else. */
export function pciSubjectName(address: string): string | null {
  const match = ADDRESS.exec(address.toLowerCase());
  if (!match) return null;
  const [, domain, bus, slot, fn] = match;
  return `pci${domain === '0000' ? '' : domain}-${bus}_${slot}.${fn}`;
}

/** The PCI function a subject name stands for, or null when the name is an interface's. */
export function pciAddressOfSubject(name: string): string | null {
  const match = SUBJECT.exec(name);
  if (!match) return null;
  const [, domain, bus, slot, fn] = match;
  return `${domain ?? '0000'}:${bus}:${slot}.${fn}`;
}
