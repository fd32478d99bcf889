/**
 * Encapsulation overhead of overlay and guest devices: what a frame of the overlay's MTU grows
 * by on the underlay (IPv4 outer header). A VXLAN at MTU 1450 fits a 1500 underlay exactly.
 */
export interface Tunnel {
  /** vxlan, geneve, gretap, ..., "ovs-vport" or "guest" (a guest's tap, vnet, macvtap). */
  type: string;
  /**
   * Bytes the encapsulation adds to an overlay packet of MTU size; null when the device's MTU
   * sizes nothing: Open vSwitch tunnel vports are created at 65000 and the datapath uses the
   * bridge ports' MTU, and a guest's tap follows the guest's own MTU.
   */
  overheadBytes: number | null;
  /** Why the MTU is not judged, when overheadBytes is null. */
  unjudged: string | null;
}

// RFC 7348 (VXLAN: inner Ethernet 14 + VXLAN 8 + UDP 8 + IPv4 20), RFC 8926 (Geneve, without
// options), RFC 2784/2890 (GRE 4 + IPv4 20; gretap adds the inner Ethernet 14), RFC 2003 (IPIP),
// RFC 4213 (SIT), WireGuard (IPv4 20 + UDP 8 + 32), RFC 2473 (ip6tnl: IPv6 40).
const OVERHEAD: ReadonlyMap<string, number> = new Map([
  ['vxlan', 50],
  ['geneve', 50],
  ['gretap', 38],
  ['gre', 24],
  ['ipip', 20],
  ['sit', 20],
  ['wireguard', 60],
  ['ip6tnl', 40],
]);

const UNJUDGED: ReadonlyMap<string, string> = new Map([
  [
    'ovs-vport',
    'an Open vSwitch tunnel port: the kernel datapath creates it at MTU 65000 and sizes packets by the bridge ports, so its MTU limits nothing',
  ],
  ['guest', "a guest's device (tap/vnet): its MTU follows the guest's, which is judged inside the guest"],
]);

/** Names CNIs, Open vSwitch and hypervisors give these devices, for captures without `ip -d link`. */
const NAMES: ReadonlyArray<[RegExp, string]> = [
  [/^(vxlan_sys_\d+|genev_sys_\d+|gre_sys|stt_sys_\d+)$/, 'ovs-vport'],
  [/^(flannel\.\d+|vxlan|vx-|cilium_vxlan)/, 'vxlan'],
  [/^cilium_geneve/, 'geneve'],
  [/^gretap/, 'gretap'],
  [/^gre\d/, 'gre'],
  [/^tunl\d/, 'ipip'],
  [/^wg\d/, 'wireguard'],
  [/^(vnet\d|tap[0-9a-f]|macvtap)/, 'guest'],
];

const GUEST_TYPES: ReadonlySet<string> = new Set(['tap', 'macvtap']);

/** The tunnel an interface is, from its `ip -d link` kind or its name; null for any other device. */
export function tunnelOf(name: string, softwareType: string | null | undefined): Tunnel | null {
  // The name first: an OVS vport is a vxlan/geneve device by kind, but its MTU means nothing.
  const byName = NAMES.find(([pattern]) => pattern.test(name))?.[1] ?? null;
  const byType = softwareType ? (GUEST_TYPES.has(softwareType) ? 'guest' : softwareType) : null;
  const type = byName === 'ovs-vport' ? byName : byType && (OVERHEAD.has(byType) || UNJUDGED.has(byType)) ? byType : byName;
  if (type === null) return null;
  return { type, overheadBytes: OVERHEAD.get(type) ?? null, unjudged: UNJUDGED.get(type) ?? null };
}
