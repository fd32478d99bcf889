import { cpusOfList, type Operation } from '../report/fix-operations.js';
import { CAPABILITY_ARGUMENTS, sysctlNodeOf } from '../domain/freebsd.js';

/**
 * The fixes of a FreeBSD host in its own terms. A fix's operations are typed (ethtool features,
 * channels, rings, pause, sysctl, IRQ affinity): each kind has a FreeBSD way to do the same, which
 * is printed for a human (`manual`/`inspect` operations: `nicdoctor fix --apply` runs neither).
 *   offloads       ifconfig ix0 rxcsum txcsum tso lro; persistently in /etc/rc.conf (ifconfig_ix0="... tso")
 *   queues, rings  loader tunables in /boot/loader.conf (iflib: dev.ix.0.iflib.override_nrxqs / _nrxds;
 *                  before iflib: hw.ix.num_queues), applied at boot
 *   flow control   sysctl dev.ix.0.fc=3
 *   sysctls        kern.ipc.maxsockbuf, net.inet.tcp.sendbuf_max / recvbuf_max in /etc/sysctl.conf
 *   IRQs           cpuset -l <cpu> -x <irq>
 * Appliances set these in their UI rather than in the files, which they rewrite.
 */

export type FreebsdProduct = 'truenas' | 'opnsense' | 'pfsense' | 'onefs' | null;

/** Where an appliance keeps loader tunables and sysctls (it regenerates the files from its database). */
export function tunablesPlace(product: FreebsdProduct): string {
  switch (product) {
    case 'truenas':
      return 'on TrueNAS CORE add it under System → Tunables (type loader for /boot/loader.conf, sysctl for /etc/sysctl.conf), not in the files';
    case 'opnsense':
      return 'on OPNsense add it under System → Settings → Tunables, not in the files';
    case 'pfsense':
      return 'on pfSense add it under System → Advanced → System Tunables (loader tunables in /boot/loader.conf.local)';
    case 'onefs':
      return 'on OneFS use isi_sysctl_cluster so that every node gets it';
    default:
      return 'on TrueNAS CORE: System → Tunables; OPNsense: System → Settings → Tunables; pfSense: System → Advanced → System Tunables';
  }
}

/** Linux sysctl → FreeBSD's, for the socket-buffer fixes (values in bytes keep their meaning). */
const SYSCTL_NAMES: Readonly<Record<string, string>> = {
  'net.core.rmem_max': 'kern.ipc.maxsockbuf',
  'net.core.wmem_max': 'kern.ipc.maxsockbuf',
};

export interface FreebsdFix {
  commands: string[];
  persistent: { file: string; content: string } | null;
}

function lastField(value: string): string {
  return value.trim().split(/\s+/).at(-1) ?? value;
}

/** One operation as FreeBSD commands and the file line that keeps it; null when FreeBSD has no equivalent. */
export function freebsdFixOf(op: Operation): FreebsdFix | null {
  switch (op.kind) {
    case 'ethtool-features': {
      const on = (op.on ?? []).map((name) => featureArgument(name)).filter((arg): arg is string => Boolean(arg));
      const off = (op.off ?? []).map((name) => featureArgument(name)).filter((arg): arg is string => Boolean(arg));
      const args = [...on, ...off.map((arg) => `-${arg}`)];
      if (!args.length) return null;
      return {
        commands: [`ifconfig ${op.iface} ${args.join(' ')}`],
        persistent: { file: '/etc/rc.conf', content: `ifconfig_${op.iface}="<its address settings> ${args.join(' ')}"` },
      };
    }
    case 'ethtool-channels': {
      const node = sysctlNodeOf(op.iface);
      const queues = op.combined ?? op.rx;
      if (!node || queues === undefined) return null;
      const driver = node.split('.')[1]!;
      return {
        commands: [`sysctl ${node}.iflib.override_nrxqs ${node}.iflib.override_ntxqs`],
        persistent: {
          file: '/boot/loader.conf',
          content: `${node}.iflib.override_nrxqs="${queues}"\n${node}.iflib.override_ntxqs="${queues}"\n# before iflib (FreeBSD 11 and older): hw.${driver}.num_queues="${queues}"`,
        },
      };
    }
    case 'ethtool-rings': {
      const node = sysctlNodeOf(op.iface);
      if (!node || (op.rx === undefined && op.tx === undefined)) return null;
      const lines = [
        ...(op.rx !== undefined ? [`${node}.iflib.override_nrxds="${op.rx}"`] : []),
        ...(op.tx !== undefined ? [`${node}.iflib.override_ntxds="${op.tx}"`] : []),
      ];
      return {
        commands: [`sysctl ${node}.iflib.override_nrxds ${node}.iflib.override_ntxds`],
        persistent: { file: '/boot/loader.conf', content: lines.join('\n') },
      };
    }
    case 'ethtool-pause': {
      const node = sysctlNodeOf(op.iface);
      if (!node) return null;
      const value = (op.rx === 'on' ? 1 : 0) + (op.tx === 'on' ? 2 : 0);
      return { commands: [`sysctl ${node}.fc=${value}`], persistent: { file: '/etc/sysctl.conf', content: `${node}.fc=${value}` } };
    }
    case 'ethtool-coalesce': {
      const node = sysctlNodeOf(op.iface);
      if (!node) return null;
      const adaptive = op['adaptive-rx'] === 'on' ? 1 : op['adaptive-rx'] === 'off' ? 0 : null;
      if (adaptive === null) return { commands: [`sysctl ${node} | grep -iE 'aim|itr|moderation|holdoff'`], persistent: null };
      return {
        commands: [`sysctl ${node}.enable_aim=${adaptive}`],
        persistent: { file: '/etc/sysctl.conf', content: `${node}.enable_aim=${adaptive}` },
      };
    }
    case 'sysctl': {
      const name = SYSCTL_NAMES[op.key];
      if (name)
        return {
          commands: [`sysctl ${name}=${lastField(op.value)}`],
          persistent: { file: '/etc/sysctl.conf', content: `${name}=${lastField(op.value)}` },
        };
      if (op.key === 'net.ipv4.tcp_rmem' || op.key === 'net.ipv4.tcp_wmem') {
        const name = op.key === 'net.ipv4.tcp_rmem' ? 'net.inet.tcp.recvbuf_max' : 'net.inet.tcp.sendbuf_max';
        return {
          commands: [`sysctl ${name}=${lastField(op.value)}`],
          persistent: { file: '/etc/sysctl.conf', content: `${name}=${lastField(op.value)}` },
        };
      }
      return null;
    }
    case 'irq-affinity':
      return {
        commands: op.irqs.map((irq, index) => `cpuset -l ${cpuAt(op.cpus, index)} -x ${irq}`),
        persistent: null,
      };
    case 'rps-cpus':
      return null;
    case 'inspect':
    case 'manual':
      return null;
  }
}

function featureArgument(name: string): string | null {
  const long: Record<string, string> = {
    rx: 'rx-checksumming',
    tx: 'tx-checksumming',
    tso: 'tcp-segmentation-offload',
    lro: 'large-receive-offload',
    rxvlan: 'rx-vlan-offload',
  };
  return CAPABILITY_ARGUMENTS[long[name] ?? name] ?? null;
}

/** The index-th CPU of a cpulist, round-robin. */
function cpuAt(list: string, index: number): number {
  const cpus = cpusOfList(list) ?? [0];
  return cpus[index % cpus.length]!;
}
