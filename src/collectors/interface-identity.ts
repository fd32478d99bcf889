import type { InterfaceSummary } from '../report/schema.js';
import { isPciAddress } from '../hostio/sysfs-read.js';

/**
 * What kind of interface this is, from every signal a host or a capture holds. sysfs (the
 * `device` link and DEVTYPE) settles it on a live host; a partial capture (a sosreport without
 * /sys, a pasted ticket) still shows a FIBRE 10000Mb/s port, hardware counters or per-queue
 * MSI-X vectors. With nothing to go on, the kind is `unknown`, never silently "virtual".
 */
export interface IdentitySignals {
  name: string;
  /** sysfs was readable for this interface (uevent or type): its answers are authoritative. */
  sysfs: boolean;
  devtype: string | null;
  /** The interface has a sysfs `device` (a bus device: PCI, virtio, USB, ...). */
  hasDevice: boolean;
  driver: string | null;
  /** `ip -d link` kind (veth, vxlan, bridge, ...) and bus (`parentbus pci`). */
  ipKind?: string | null;
  parentBus?: string | null;
  /** `ethtool -i` */
  ethtoolDriver?: string | null;
  busInfo?: string | null;
  /** `ethtool <if>`: Port and supported link modes. */
  port?: string | null;
  supportedLinkModes?: readonly string[] | null;
  /** `ethtool -S` counter names. */
  counterNames?: readonly string[];
  /** Names of /proc/interrupts vectors that belong to this interface, with their chips. */
  vectors?: ReadonlyArray<{ name: string; chip: string | null }>;
  /** `Kernel driver in use` of the lspci block of its bus address. */
  lspciDriver?: string | null;
  /** lspci's description of that device ("Virtio network device", "Ethernet controller: Intel ..."). */
  lspciDescription?: string | null;
  /** The host runs under a hypervisor. */
  virtualized?: boolean;
}

export interface Identity {
  kind: InterfaceSummary['kind'];
  /** veth, vxlan, tun, ifb, ... for software interfaces; null otherwise. */
  softwareType: string | null;
  /** The signals that decided it, for the report ("ethtool Port: FIBRE"). */
  basis: string[];
}

/** Drivers of virtual NICs a hypervisor presents: the guest does not own the wire. */
export const PARAVIRTUAL_DRIVERS: ReadonlySet<string> = new Set([
  'virtio_net',
  'vmxnet3',
  'hv_netvsc',
  'xen-netfront',
  'vif',
  'netvsc',
  'gve',
  'ena',
  'ibmveth',
]);
/** NICs QEMU and other hypervisors emulate: real drivers, but inside a VM the device is software. */
const EMULATED_DRIVERS: ReadonlySet<string> = new Set(['e1000', '8139cp', '8139too', 'ne2k-pci', 'pcnet32', 'vmxnet']);

/** Kernel software devices by `ip -d link` kind or `ethtool -i` driver name. */
const SOFTWARE_TYPES: ReadonlyMap<string, InterfaceSummary['kind']> = new Map([
  ['bridge', 'bridge'],
  ['openvswitch', 'bridge'],
  ['bond', 'bond'],
  ['bonding', 'bond'],
  ['team', 'bond'],
  ['vlan', 'vlan'],
  ['802.1q vlan support', 'vlan'],
  ...[
    'veth',
    'vxlan',
    'geneve',
    'gre',
    'gretap',
    'ip6gre',
    'ipip',
    'sit',
    'ip6tnl',
    'tun',
    'tap',
    'ifb',
    'dummy',
    'macvlan',
    'macvtap',
    'ipvlan',
    'ipvtap',
    'wireguard',
    'nlmon',
    'vrf',
    'vti',
    'bareudp',
    'netkit',
    'erspan',
    'xfrm',
    'gtp',
    'batadv',
    'hsr',
    'macsec',
    'can',
    'vcan',
    'nsh',
    'l2tp',
  ].map((type): [string, InterfaceSummary['kind']] => [type, 'virtual']),
]);

/** Interface names that container runtimes, CNIs, hypervisors and tunnels give their software devices. */
const SOFTWARE_NAMES: ReadonlyArray<[RegExp, InterfaceSummary['kind'], string]> = [
  [/^(docker\d+|br-[0-9a-f]{6,}|virbr\d+|cni\d+|cbr\d+|lxcbr\d+|lxdbr\d+|kube-bridge|ovs-system|br-int|br-ex|br-tun)$/, 'bridge', 'bridge'],
  [
    /^(veth|cali|lxc|vnet|tap|tun|flannel|vxlan|genev_sys|cilium_|weave|vx-|kube-ipvs|nodelocaldns|wg|ifb|dummy|gre|ipip|sit|tunl|ip6tnl|nlmon)/,
    'virtual',
    '',
  ],
  [/^bond\d+$/, 'bond', 'bond'],
];

/** `ethtool -S` counters only a hardware MAC keeps (virtio and veth have per-queue counters too, not these). */
const HARDWARE_COUNTER =
  /^(port\.|mac_|phy_)|\.nic$|(^|[._])(rx_missed_errors|rx_crc_errors|rx_no_buffer_count|rx_discards_phy|rx_out_of_buffer|rx_fifo_errors|rx_long_length_errors|rx_short_length_errors|rx_align_errors|rx_symbol_err|rx_length_errors|rx_long_byte_count|tx_carrier_errors|rx_pause|tx_pause|link_xoff|link_xon|rx_prio\d|tx_prio\d|rx_csum_offload|rx_phy|tx_phy|fdir_|rx_flow_control|tx_flow_control|alloc_rx_page_failed|rx_pkts_nic|tx_pkts_nic|rx_bytes_nic|tx_timeout_count|rx_size_\d+|tx_size_\d+)/i;

/**
 * Counter names only one driver family prints in `ethtool -S` (from each driver's ethtool string
 * tables), for a capture with `ethtool -S` but no `ethtool -i`: the driver decides what a setting
 * means (ixgbe's rx-usecs 1 is dynamic ITR) and which counters are the NIC's. First match wins:
 * the order puts a family before the ones whose names it shares (ixgbe before igb: both have os2bmc_*).
 */
const COUNTER_FAMILIES: ReadonlyArray<[string, (names: ReadonlySet<string>, all: readonly string[]) => boolean]> = [
  ['ice', (_, all) => all.some((name) => /\.nic$/.test(name))],
  // i40e's port.* block is dozens of counters; one "port.rx_dropped" alone is not enough.
  [
    'i40e',
    (_, all) =>
      all.some((name) => /^port\./.test(name)) &&
      (all.some((name) => /^veb\.|^rx-\d+\.|^tx-\d+\./.test(name)) || all.filter((name) => /^port\.(rx|tx)_/.test(name)).length >= 3),
  ],
  ['iavf', (_, all) => all.some((name) => /^rx-\d+\.(?:rx_)?packets$/.test(name)) && !all.some((name) => /^port[._]/.test(name))],
  ['mlx5_core', (_, all) => all.some((name) => /^rx_out_of_buffer$|^rx_vport_|_phy$|^ch\d+_|^rx\d+_cache_/.test(name))],
  [
    'bnxt_en',
    (_, all) =>
      all.some((name) => /^\[\d+\]: (?:tpa_events|rx_buf_errors|missed_irqs)$|^rx_total_|^rx_(?:good|fcs_err)_frames$/.test(name)),
  ],
  ['bnx2x', (_, all) => all.some((name) => /^rx_brb_(?:discard|truncate)$|^\[\d+\]: tpa_aggregations$/.test(name))],
  [
    'ixgbe',
    (_, all) =>
      all.some((name) =>
        /^(?:fdir_(?:match|miss|overflow)|rx_no_dma_resources|hw_rsc_(?:aggregated|flushed)|lsc_int|fcoe_\w+)$/.test(name),
      ),
  ],
  ['igb', (_, all) => all.some((name) => /^rx_queue_\d+_alloc_failed$|^os2bmc_/.test(name))],
  ['e1000e', (names) => ['corr_ecc_errors', 'rx_dma_failed', 'rx_header_split'].some((name) => names.has(name))],
  ['ena', (_, all) => all.some((name) => /^ena_admin_q_|^queue_\d+_(?:rx|tx)_cnt$|^bw_(?:in|out)_allowance_exceeded$/.test(name))],
  ['tg3', (names) => ['rxbds_empty', 'nic_irqs', 'dma_writeq_full', 'mbuf_lwm_thresh_hit'].some((name) => names.has(name))],
  ['be2net', (_, all) => all.some((name) => /^(?:rx_drops_no_pbuf|eth_red_drops|rxpp_fifo_overflow_drop)$|^rxq\d+: /.test(name))],
  ['sfc', (_, all) => all.some((name) => /^port_rx_/.test(name))],
  ['vmxnet3', (names) => ['ucast pkts rx', 'drv dropped rx total', 'LRO pkts rx'].some((name) => names.has(name))],
  ['r8169', (names) => ['tx_underrun', 'rx_missed', 'align_errors', 'unicast'].every((name) => names.has(name))],
  // virtio_net keeps per-queue software counters only, with its virtqueue "kicks" (4.19+). Queue
  // packets/bytes alone are every multi-queue driver's (a `| grep queue` of igb reads the same): not enough.
  [
    'virtio_net',
    (_, all) => all.some((name) => /^(?:rx|tx)_queue_\d+_kicks$/.test(name)) && all.every((name) => /^(?:rx|tx)_queue_\d+_\w+$/.test(name)),
  ],
];

/** The driver family whose counter names these are; null when no family's names are among them. */
export function driverFromCounters(names: readonly string[]): string | null {
  const set = new Set(names);
  return COUNTER_FAMILIES.find(([, matches]) => matches(set, names))?.[0] ?? null;
}

function softwareType(word: string | null | undefined): [InterfaceSummary['kind'], string] | null {
  if (!word) return null;
  const kind = SOFTWARE_TYPES.get(word.toLowerCase());
  return kind ? [kind, word.toLowerCase() === '802.1q vlan support' ? 'vlan' : word.toLowerCase()] : null;
}

function hardwareKind(driver: string | null, virtualized: boolean | undefined): InterfaceSummary['kind'] {
  if (driver && PARAVIRTUAL_DRIVERS.has(driver)) return 'paravirtual';
  if (driver && virtualized && EMULATED_DRIVERS.has(driver)) return 'paravirtual';
  return 'physical';
}

export function identify(signals: IdentitySignals): Identity {
  // With no driver named anywhere, the counter families of `ethtool -S` still tell virtio or ena from a NIC.
  const driver =
    signals.driver ??
    signals.ethtoolDriver ??
    signals.lspciDriver ??
    (signals.counterNames ? driverFromCounters(signals.counterNames) : null);
  // sysfs settles it: DEVTYPE for bonds, bridges and VLANs, a `device` link for bus devices.
  if (signals.sysfs) {
    const fromDevtype = softwareType(signals.devtype);
    const typed = fromDevtype ?? softwareType(signals.ipKind);
    if (fromDevtype) return { kind: fromDevtype[0], softwareType: fromDevtype[1], basis: [`sysfs DEVTYPE=${signals.devtype}`] };
    if (signals.hasDevice)
      return {
        kind: hardwareKind(driver, signals.virtualized),
        softwareType: null,
        basis: ['sysfs device link', ...(driver ? [`driver ${driver}`] : [])],
      };
    if (signals.devtype) return { kind: 'other', softwareType: signals.devtype, basis: [`sysfs DEVTYPE=${signals.devtype}`] };
    return {
      kind: typed?.[0] ?? 'virtual',
      softwareType: typed?.[1] ?? null,
      basis: ['no sysfs device link', ...(signals.ipKind ? [`ip -d link: ${signals.ipKind}`] : [])],
    };
  }

  // A capture without sysfs: weigh what it holds. A software kind named by ip or ethtool wins.
  const typed = softwareType(signals.ipKind) ?? softwareType(signals.ethtoolDriver);
  if (typed)
    return {
      kind: typed[0],
      softwareType: typed[1],
      basis: [signals.ipKind ? `ip -d link: ${signals.ipKind}` : `ethtool -i driver: ${signals.ethtoolDriver}`],
    };
  const basis: string[] = [];
  if (signals.hasDevice) basis.push('device link');
  if (signals.busInfo && isPciAddress(signals.busInfo)) basis.push(`ethtool -i bus-info ${signals.busInfo}`);
  if (signals.parentBus === 'pci' || signals.parentBus === 'virtio') basis.push(`ip -d link parentbus ${signals.parentBus}`);
  if (signals.lspciDriver) basis.push(`lspci: Kernel driver in use: ${signals.lspciDriver}`);
  else if (signals.ethtoolDriver && signals.busInfo && signals.busInfo !== 'N/A' && !basis.length)
    basis.push(`ethtool -i bus-info ${signals.busInfo}`);
  if (signals.port && /FIBRE|Direct Attach|Twisted Pair|BNC|AUI|MII/i.test(signals.port) && (signals.supportedLinkModes?.length ?? 0) > 0) {
    basis.push(`ethtool Port: ${signals.port} with link modes ${signals.supportedLinkModes!.slice(0, 2).join(', ')}`);
  } else if (signals.port && /FIBRE|Direct Attach/i.test(signals.port)) {
    basis.push(`ethtool Port: ${signals.port}`);
  }
  const hardwareCounters = (signals.counterNames ?? []).filter((name) => HARDWARE_COUNTER.test(name));
  if (hardwareCounters.length > 0) basis.push(`hardware counters in ethtool -S (${hardwareCounters.slice(0, 3).join(', ')})`);
  const msix = (signals.vectors ?? []).filter(
    (vector) => /PCI-MSI|PCI-MSIX|IR-PCI|ITS-MSI|MSI-X/i.test(vector.chip ?? '') || /TxRx|-rx-|-tx-|comp\d|@pci:/.test(vector.name),
  );
  if (msix.length > 0)
    basis.push(
      `${msix.length} interrupt vector(s) in /proc/interrupts (${msix[0]!.name}${msix.length > 1 ? ` … ${msix.at(-1)!.name}` : ''})`,
    );
  const virtioDescribed = /virtio|VMware VMXNET|Hyper-V|Xen/i.test(signals.lspciDescription ?? '');
  if (
    virtioDescribed ||
    signals.parentBus === 'virtio' ||
    (signals.vectors ?? []).some((vector) => /^virtio\d+-(input|output)/.test(vector.name))
  ) {
    return {
      kind: 'paravirtual',
      softwareType: null,
      basis: [...basis, virtioDescribed ? `lspci: ${signals.lspciDescription}` : 'virtio device'],
    };
  }
  if (driver && PARAVIRTUAL_DRIVERS.has(driver)) return { kind: 'paravirtual', softwareType: null, basis: [...basis, `driver ${driver}`] };
  if (basis.length > 0)
    return {
      kind: hardwareKind(driver, signals.virtualized),
      softwareType: null,
      basis: [...basis, ...(driver ? [`driver ${driver}`] : [])],
    };
  // Names are the weakest signal: used only when nothing else speaks.
  for (const [pattern, kind, type] of SOFTWARE_NAMES) {
    if (pattern.test(signals.name))
      return { kind, softwareType: type || (/^[a-z]+/.exec(signals.name)?.[0] ?? null), basis: [`name ${signals.name}`] };
  }
  if (/^[^.]+\.\d+$/.test(signals.name) || /^vlan\d+$/.test(signals.name))
    return { kind: 'vlan', softwareType: 'vlan', basis: [`name ${signals.name}`] };
  return { kind: 'unknown', softwareType: null, basis: driver ? [`driver ${driver} (not enough to tell hardware from software)`] : [] };
}
