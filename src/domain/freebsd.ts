/**
 * FreeBSD's names for what Linux calls by other names: interface capability flags (ifconfig's
 * `options=` and `capabilities=`) as the ethtool features they are, media subtypes as link speeds,
 * and which driver names are physical NICs, virtual NICs or software interfaces. No I/O.
 * Sources: sys/net/if.h (IFCAP_*), sys/net/if_media.h (IFM_*), the drivers' man pages.
 */

/** ifconfig capability flag → the ethtool -k feature of the same meaning. */
export const CAPABILITY_FEATURES: Readonly<Record<string, string>> = {
  RXCSUM: 'rx-checksumming',
  TXCSUM: 'tx-checksumming',
  TSO4: 'tcp-segmentation-offload',
  LRO: 'large-receive-offload',
  VLAN_HWTAGGING: 'rx-vlan-offload',
};

/** ifconfig's argument that turns a capability on (`ifconfig ix0 tso4`; `-tso4` turns it off). */
export const CAPABILITY_ARGUMENTS: Readonly<Record<string, string>> = {
  'rx-checksumming': 'rxcsum',
  'tx-checksumming': 'txcsum',
  'tcp-segmentation-offload': 'tso',
  'large-receive-offload': 'lro',
  'rx-vlan-offload': 'vlanhwtag',
};

/** Physical NIC drivers of FreeBSD (ifconfig names `<driver><unit>`). */
const PHYSICAL_DRIVERS = new Set([
  'ix',
  'ixl',
  'ice',
  'igb',
  'em',
  'igc',
  'lem',
  'mce',
  'mlxen',
  'cxl',
  'cc',
  'cxgb',
  'bnxt',
  'bxe',
  'bce',
  'bge',
  'bnx',
  'sfxge',
  'ql',
  'qlnxe',
  'qlxgb',
  'qlxgbe',
  'oce',
  'mxge',
  'nfe',
  're',
  'rl',
  'alc',
  'ale',
  'age',
  'msk',
  'sk',
  'jme',
  'vge',
  'fxp',
  'dc',
  'ae',
  'axgbe',
  'al',
  'enetc',
  'ixgbe',
  'mgb',
  'ure',
  'axe',
  'cdce',
  'ue',
]);

/** Virtual NICs: a guest's device, owned by the hypervisor (vtnet: virtio, vmx: VMware, hn: Hyper-V). */
const VIRTUAL_DRIVERS = new Set(['vtnet', 'vmx', 'hn', 'xn', 'ena', 'iavf', 'ixv', 'gve', 'vcxl', 'vcc', 'mce_vf', 'le', 'ed']);

export type FreebsdInterfaceKind = 'physical' | 'virtual-nic' | 'software';

/** "ix0" → "ix"; "mce1" → "mce"; "ix1_vlan111" and "lagg0.10" are software interfaces. */
export function freebsdDriverOf(name: string): string | null {
  const match = /^([a-z][a-z_]*?)(\d+)$/.exec(name);
  return match ? match[1]! : null;
}

export function freebsdInterfaceKind(name: string): FreebsdInterfaceKind {
  const driver = freebsdDriverOf(name);
  if (driver && PHYSICAL_DRIVERS.has(driver)) return 'physical';
  if (driver && VIRTUAL_DRIVERS.has(driver)) return 'virtual-nic';
  return 'software';
}

/** The sysctl node of an interface: ix0 → dev.ix.0 (mce0 → dev.mce.0). */
export function sysctlNodeOf(name: string): string | null {
  const match = /^([a-z][a-z_]*?)(\d+)$/.exec(name);
  return match ? `dev.${match[1]!}.${match[2]!}` : null;
}

/**
 * Media subtype (`10Gbase-SR`, `1000baseT`, `25GBase-CR`, `10Gbase-Twinax`, `2500Base-T`) → Mb/s.
 * The number before "base" is in Mb/s unless followed by G.
 */
export function mediaSpeedMbps(subtype: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(G?)base/i.exec(subtype.trim());
  if (!match) return null;
  const value = Number(match[1]) * (match[2] ? 1000 : 1);
  return Number.isFinite(value) && value > 0 ? Math.round(value) : null;
}

/**
 * FreeBSD sysctls with the meaning of a Linux one: the cap on any socket buffer, and the ceilings
 * TCP's buffer autotuning grows to (tcp_rmem / tcp_wmem's third field).
 */
export const SOCKET_BUFFER_SYSCTLS = {
  maxSocketBuffer: 'kern.ipc.maxsockbuf',
  receiveAutotuneMax: 'net.inet.tcp.recvbuf_max',
  sendAutotuneMax: 'net.inet.tcp.sendbuf_max',
  receiveInitial: 'net.inet.tcp.recvspace',
  sendInitial: 'net.inet.tcp.sendspace',
} as const;
