/**
 * Linux interface names a ticket's words use ("TSO on `thunderbolt0` mishandles forwarded frames",
 * "eth2 drops packets"), for a text whose outputs name none. Only names of the kernel's, udev's
 * and the usual drivers' and tools' schemes count, with their unit number: words that merely
 * look like names (a model "X710", a macOS client's "en0") are left out.
 */

const MAX_CHARS = 200_000;
const MAX_NAMES = 16;
// eth0, enp65s0f1, ens16f0, eno1, enx0c…, enP2p1s0, ib0, bond0, team0, br0, vlan100, veth1a2b,
// vxlan0, tap0, tun0, vif1.0, virbr0, docker0, cni0, flannel.1, cilium_host, cali1a…, weave,
// ovs-system, wlan0, wlp2s0, wwan0, thunderbolt0, usb0, p1p1, em1, vmbr0.
const SCHEMES = String.raw`(?:eth\d+(?:\.\d+)?|en(?:p\d+s\d+(?:f\d+)?(?:np\d+)?(?:d\d+)?|s\d+(?:f\d+)?(?:np\d+)?|o\d+(?:np\d+)?|x[0-9a-f]{12}|P\d+p\d+s\d+(?:f\d+)?)(?:\.\d+)?|ib\d+|bond\d+|team\d+|br\d+|vmbr\d+|vlan\d+|veth[0-9a-z]{1,12}|vxlan[0-9a-z._-]{0,10}\d|tap\d+|tun\d+|vif\d+\.\d+|virbr\d+|docker\d+|cni\d+|flannel\.\d+|cilium_(?:host|net|vxlan)|wlan\d+|wlp\d+s\d+|wwan\d+|thunderbolt\d+|usb\d+|p\d+p\d+|em\d+)`;
const NAME = new RegExp(String.raw`(?<![\w.:/-])(${SCHEMES})(?![\w:/-]|\.\d)`, 'g');

/** The interface names the text's words use, in order, at most 16. */
export function interfacesNamedInProse(prose: string): string[] {
  const found = new Set<string>();
  for (const match of prose.slice(0, MAX_CHARS).matchAll(NAME)) {
    found.add(match[1]!);
    if (found.size >= MAX_NAMES) break;
  }
  return [...found];
}
