/**
 * TCP goodput ceiling of an Ethernet link (CAUSES.md, derived): each packet carries 38 bytes of
 * framing on the wire (preamble, header, FCS, gap) and 52 bytes of IPv4+TCP headers with
 * timestamps, so goodput = speed x (MTU - 52) / (MTU + 38). 10G at MTU 1500 → 9.41 Gb/s.
 */
export const ETHERNET_FRAMING_BYTES = 38;
export const IPV4_TCP_TIMESTAMP_HEADER_BYTES = 52;

export function tcpGoodputMbps(linkMbps: number, mtu: number): number {
  if (mtu <= IPV4_TCP_TIMESTAMP_HEADER_BYTES) return 0;
  return (linkMbps * (mtu - IPV4_TCP_TIMESTAMP_HEADER_BYTES)) / (mtu + ETHERNET_FRAMING_BYTES);
}

export function formatGbps(mbps: number, digits = 2): string {
  return `${(mbps / 1000).toFixed(digits)} Gb/s`;
}
