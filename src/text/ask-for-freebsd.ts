import { sysctlNodeOf } from '../domain/freebsd.js';
import type { CommandBook } from './ask-for.js';
import { LINUX_ONLY_CHECKS } from './freebsd-report.js';

/**
 * What to ask a FreeBSD host (TrueNAS CORE, OPNsense, pfSense, OneFS) for: the read-only
 * commands that print each fact nicdoctor reads, in FreeBSD's terms. Facts only Linux has
 * (softnet_stat, tc, irqbalance) are not asked for: those checks say they do not apply.
 */

const node = (iface: string) => sysctlNodeOf(iface) ?? 'dev.<driver>.<unit>';

export const FREEBSD_COMMANDS: CommandBook = {
  perInterface: {
    'net.device': (iface) => `ifconfig -v ${iface}; pciconf -lvc ${iface}`,
    'ethtool.settings': (iface) => `ifconfig -v ${iface}`,
    'ethtool.driver': (iface) => `sysctl ${node(iface)}.%desc ${node(iface)}.fw_version`,
    'ethtool.features': (iface) => `ifconfig -m ${iface}`,
    'ethtool.rings': (iface) => `sysctl ${node(iface)}; grep ${iface} /var/run/dmesg.boot`,
    'ethtool.channels': (iface) => `sysctl ${node(iface)}; grep ${iface} /var/run/dmesg.boot`,
    'ethtool.coalesce': (iface) => `sysctl ${node(iface)}`,
    'ethtool.pause': (iface) => `sysctl ${node(iface)}.fc`,
    'ethtool.stats': (iface) => `sysctl ${node(iface)}`,
    'net.statistics': (iface) => `netstat -I ${iface} -d -b; sysctl ${node(iface)}`,
    'net.queues': (iface) => `sysctl ${node(iface)}; grep ${iface} /var/run/dmesg.boot`,
    'pcie.link': (iface) => `pciconf -lvc ${iface}`,
    'nic.irqs': () => "vmstat -i; cpuset -g -x <irq> (for each of the NIC's irqs)",
  },
  perHost: {
    'proc.interrupts': 'vmstat -i',
    'sysctl.net':
      'sysctl kern.ipc.maxsockbuf net.inet.tcp.sendbuf_max net.inet.tcp.recvbuf_max net.inet.tcp.sendspace net.inet.tcp.recvspace',
    numa: 'sysctl vm.ndomains',
    'cpu.topology': 'sysctl hw.ncpu hw.model kern.smp.cpus',
    cpufreq: 'sysctl dev.cpu.0.freq dev.cpu.0.freq_levels; service powerd status',
    'iperf3.version': 'iperf3 --version',
    interfaces: 'ifconfig -a',
    'net.protocol': 'netstat -s -p tcp',
    'net.mbufs': 'netstat -m',
  },
  perCheck: {
    mtu: (iface) => `ifconfig ${iface}`,
    'nic-drops': (iface) => `netstat -I ${iface} -d; sysctl ${node(iface)}`,
    offloads: (iface) => `ifconfig -m ${iface}`,
    'link-speed': (iface) => `ifconfig -v ${iface}`,
    'pcie-link': (iface) => `pciconf -lvc ${iface}`,
  },
  skipChecks: new Set(Object.keys(LINUX_ONLY_CHECKS)),
  noInterface: 'uname -a; ifconfig -a; pciconf -lvc; sysctl dev.<driver>.<unit>   (for the interface that carries the traffic, e.g. ix0)',
};
