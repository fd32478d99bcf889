import { defineCollector } from '../contracts/collector.js';
import { FactCollectionError } from '../contracts/facts.js';
import { SYSCTL_NET_KEYS, parseProcSysValue, procSysPath, sysctlNetFrom, type SysctlNet, type SysctlNetKey } from '../parsers/sysctl.js';
import { readAttribute } from '../hostio/sysfs-read.js';

export type { SysctlNet, TcpMem } from '../parsers/sysctl.js';

declare module '../contracts/facts.js' {
  interface FactTypes {
    'sysctl.net': SysctlNet;
  }
}

export const sysctlCollector = defineCollector({
  id: 'sysctl.net',
  scope: 'host',
  description: 'Network sysctls read from /proc/sys: socket buffer limits, tcp_rmem/tcp_wmem, qdisc, congestion control, MTU probing',
  reads: { files: ['/proc/sys/net/core/*', '/proc/sys/net/ipv4/*'], ask: "sysctl -a 2>/dev/null | grep -E '^net\\.(core|ipv4\\.tcp)'" },
  async collect(ctx) {
    // /proc/sys directly rather than `sysctl -a`: sixteen small reads, no process, no root needed.
    const raw = await Promise.all(SYSCTL_NET_KEYS.map(async (key) => [key, await readAttribute(ctx, procSysPath(key))] as const));
    const values = new Map<SysctlNetKey, string>();
    for (const [key, text] of raw) if (text !== undefined) values.set(key, parseProcSysValue(text));
    // One missing key is an older kernel; none at all means /proc/sys/net is not there to read.
    if (values.size === 0) throw new FactCollectionError('not-found', '/proc/sys/net: none of the network sysctls could be read');
    return sysctlNetFrom((key) => values.get(key));
  },
});
