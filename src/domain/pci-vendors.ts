/**
 * PCI vendor ids of network adapter makers, so a group of interfaces reads "Intel 8086:1593
 * (ice)" instead of bare hex. Only the vendor: device names change with every board and come
 * from pci.ids, which a capture rarely carries.
 */
const VENDORS: Readonly<Record<string, string>> = {
  '0x8086': 'Intel',
  '0x15b3': 'Mellanox/NVIDIA',
  '0x14e4': 'Broadcom',
  '0x1077': 'QLogic/Marvell',
  '0x1425': 'Chelsio',
  '0x1924': 'Solarflare/AMD',
  '0x1d0f': 'Amazon',
  '0x1af4': 'virtio (Red Hat)',
  '0x15ad': 'VMware',
  '0x1414': 'Microsoft',
  '0x1ae0': 'Google',
  '0x10ec': 'Realtek',
  '0x1d6a': 'Aquantia/Marvell',
  '0x19e5': 'Huawei',
  '0x19ee': 'Netronome',
  '0x1dd8': 'Pensando/AMD',
  '0x1fc9': 'Tehuti',
  '0x10df': 'Emulex',
  '0x177d': 'Cavium/Marvell',
};

/** "0x8086" → "Intel"; null for a vendor not in the table. */
export function pciVendorName(vendorId: string): string | null {
  return VENDORS[vendorId.toLowerCase()] ?? null;
}

/** "Intel 8086:1593" (or "8086:1593" for a vendor not in the table). */
export function pciModelName(vendorId: string, deviceId: string): string {
  const ids = `${vendorId.replace(/^0x/i, '')}:${deviceId.replace(/^0x/i, '')}`.toLowerCase();
  const vendor = pciVendorName(vendorId);
  return vendor ? `${vendor} ${ids}` : ids;
}
