import { CAUSE_TITLES } from './causes.js';

/**
 * The long form of every cause (src/domain/causes.ts numbers them): what the user sees, how
 * nicdoctor detects it, the numbers it judges by and why, the fix, and where to read more. This
 * is the one source: docs/causes.md is generated from it (scripts/generate-docs.mjs) and
 * `nicdoctor explain cause <n>` prints the same text, so the two cannot drift.
 */
export interface CauseLink {
  title: string;
  url: string;
}

export interface CauseEntry {
  id: number;
  title: string;
  symptom: string;
  detection: string;
  numbers: string;
  fix: string;
  links: readonly CauseLink[];
}

const KERNEL = 'https://docs.kernel.org';
const SCALING: CauseLink = {
  title: 'Linux kernel: Scaling in the Linux networking stack (RSS, RPS, RFS, XPS)',
  url: `${KERNEL}/networking/scaling.html`,
};
const FASTERDATA_HOST: CauseLink = { title: 'ESnet fasterdata: Linux host tuning', url: 'https://fasterdata.es.net/host-tuning/linux/' };
const FASTERDATA_100G: CauseLink = {
  title: 'ESnet fasterdata: 100G host tuning',
  url: 'https://fasterdata.es.net/host-tuning/linux/100g-tuning/',
};
const FASTERDATA_NIC: CauseLink = { title: 'ESnet fasterdata: NIC tuning', url: 'https://fasterdata.es.net/host-tuning/linux/nic-tuning/' };
const IPERF3_MULTI: CauseLink = {
  title: 'ESnet fasterdata: multi-stream iperf3',
  url: 'https://fasterdata.es.net/performance-testing/network-troubleshooting-tools/iperf/multi-stream-iperf3/',
};
const IPERF3_RELEASES: CauseLink = { title: 'iperf3 release notes (esnet/iperf)', url: 'https://github.com/esnet/iperf/releases' };
const ETHTOOL_MAN: CauseLink = { title: 'ethtool(8) manual', url: 'https://man7.org/linux/man-pages/man8/ethtool.8.html' };
const PCI_H: CauseLink = {
  title: 'Linux kernel drivers/pci/pci.h (PCIE_SPEED2MBS_ENC: usable bandwidth per lane)',
  url: 'https://github.com/torvalds/linux/blob/master/drivers/pci/pci.h',
};
const IP_SYSCTL: CauseLink = { title: 'Linux kernel: IP sysctl reference', url: `${KERNEL}/networking/ip-sysctl.html` };
const NET_SYSCTL: CauseLink = { title: 'Linux kernel: /proc/sys/net (core) sysctls', url: `${KERNEL}/admin-guide/sysctl/net.html` };
const NAPI: CauseLink = { title: 'Linux kernel: NAPI', url: `${KERNEL}/networking/napi.html` };
const STATISTICS: CauseLink = { title: 'Linux kernel: interface statistics', url: `${KERNEL}/networking/statistics.html` };
const I40E: CauseLink = {
  title: 'Linux kernel: Intel i40e driver documentation',
  url: `${KERNEL}/networking/device_drivers/ethernet/intel/i40e.html`,
};
const ICE: CauseLink = {
  title: 'Linux kernel: Intel ice driver documentation',
  url: `${KERNEL}/networking/device_drivers/ethernet/intel/ice.html`,
};
const MLX5: CauseLink = {
  title: 'Linux kernel: NVIDIA mlx5 driver documentation',
  url: `${KERNEL}/networking/device_drivers/ethernet/mellanox/mlx5/index.html`,
};

export const CAUSE_CATALOGUE: readonly CauseEntry[] = [
  {
    id: 1,
    title: CAUSE_TITLES[1]!,
    symptom:
      'Throughput stops at the same ceiling however many streams or processes run, and the ceiling is well below the port speed: the card cannot move more bytes over its PCIe link than the link carries.',
    detection:
      'The pcie-link check reads `current_link_speed`/`current_link_width` against `max_link_speed`/`max_link_width` in sysfs for the NIC and every bridge above it (or `LnkCap`/`LnkSta` from `lspci -vv`), and kernel-pcie reads the boot-time line "… Gb/s available PCIe bandwidth, limited by …", which names the device that limits it.',
    numbers:
      'Usable bandwidth per lane after line encoding is the kernel’s own table: Gen1 2.0, Gen2 4.0, Gen3 7.877, Gen4 15.754, Gen5 31.508 Gb/s. Transaction-layer overhead leaves roughly 89 % of that for DMA, so a 10G port on Gen2 x1 tops out near 3.5 Gb/s and a 100G port on Gen3 x8 near 56 Gb/s. A finding is raised when the usable PCIe bandwidth is below what the ports need at line rate, or when the link trained below what both ends support (downgraded).',
    fix: 'Move the card to a slot that is electrically x8/x16 and wired to the CPU rather than the chipset, set the slot’s width and generation in the firmware setup instead of Auto, and reseat the card. A downgraded link that recovers after a reseat points at the slot or riser.',
    links: [PCI_H, { title: 'Linux kernel: PCI sysfs attributes', url: `${KERNEL}/PCI/sysfs-pci.html` }, FASTERDATA_100G],
  },
  {
    id: 2,
    title: CAUSE_TITLES[2]!,
    symptom:
      'Adding parallel streams (`-P`) to iperf3 does not raise the total, and one CPU core sits at 100 % while the others idle: the test tool, not the network, is the limit.',
    detection:
      'The iperf3 check reads the iperf3 version on this host (and the peer’s, in a bench), and the bench reads per-process CPU use from iperf3’s JSON (`cpu_utilization_percent`).',
    numbers:
      'iperf3 before 3.16 runs every stream of one process on a single thread. One modern core moves roughly 20–40 Gb/s, so below 3.16 a single process cannot fill 40/100G. nicdoctor’s bench runs one process per port and sums them.',
    fix: 'Upgrade iperf3 on both ends to 3.16 or later (3.19.1 or later when authentication is used), or run one iperf3 server and client per core on separate ports and add the results.',
    links: [IPERF3_MULTI, IPERF3_RELEASES],
  },
  {
    id: 3,
    title: CAUSE_TITLES[3]!,
    symptom: 'A multi-threaded iperf3 (3.16+) still behaves as if single-threaded: every stream thread shares one CPU.',
    detection: 'The iperf3 check looks for `-A`/`--affinity` together with several streams on a 3.16+ iperf3.',
    numbers:
      'With `-A`, iperf3 pins the whole process before it starts the stream threads, so all threads inherit one CPU: the ceiling is that of one core whatever `-P` says.',
    fix: 'Drop `-A` and pin with `taskset -c <cpus>` or `numactl -N <node>` so the threads may spread over several CPUs of the NIC’s node.',
    links: [IPERF3_MULTI, IPERF3_RELEASES],
  },
  {
    id: 4,
    title: CAUSE_TITLES[4]!,
    symptom:
      'On a multi-socket host, throughput is lower than expected and varies with where the test processes land; at 40/100G the wrong socket can halve it.',
    detection:
      'The numa-locality check reads the NIC’s `device/numa_node` and `device/local_cpulist`, the CPUs its interrupts are allowed on (`/proc/irq/N/smp_affinity_list`), and the NUMA layout.',
    numbers:
      'Every packet crossing the inter-socket link costs memory bandwidth and latency; ESnet measured up to a factor of two at 40/100G. A node of -1 means firmware did not report locality, which is reported as unknown rather than judged.',
    fix: 'Run the application and the NIC’s interrupts on the NIC’s node (`numactl -N <node>`, the vendor’s `set_irq_affinity_bynode.sh`), and keep memory local (`numactl -m`).',
    links: [FASTERDATA_100G, { title: 'numactl(8) manual', url: 'https://man7.org/linux/man-pages/man8/numactl.8.html' }],
  },
  {
    id: 5,
    title: CAUSE_TITLES[5]!,
    symptom:
      'One CPU spends its time in softirq and drops packets while others are idle; more streams do not help because every queue interrupts the same CPU.',
    detection:
      'The irq-affinity check reads the NIC’s rows of `/proc/interrupts` (names such as `mlx5_comp3@pci:…`, `i40e-eth0-TxRx-3`), their allowed CPUs, and during a bench the per-CPU deltas; it also notes irqbalance running after affinities were set by hand, since it rewrites them.',
    numbers:
      'A finding is raised when all queue interrupts are allowed on one CPU, or when during a bench most of the NIC’s interrupts land on one CPU (the share threshold is in the check’s options).',
    fix: 'Spread the queue interrupts over the NIC-local cores: let irqbalance do it, or stop irqbalance and use the vendor’s pinning script at 40/100G. Do not run both.',
    links: [SCALING, { title: 'Linux kernel: SMP IRQ affinity', url: `${KERNEL}/core-api/irq/irq-affinity.html` }],
  },
  {
    id: 6,
    title: CAUSE_TITLES[6]!,
    symptom: 'Many flows arrive but only one or a few CPUs process them: the NIC spreads traffic over fewer receive queues than it could.',
    detection:
      'The rss-queues check compares `ethtool -l` current channels with the maximum and with the NIC-local CPUs; rss-indirection reads `ethtool -x` to see whether the indirection table sends everything to one queue or has a zero hash key.',
    numbers:
      'One TCP flow always hashes to one queue, so this matters with many flows. Drivers cap channels (ixgbe 16, i40e 64); a single queue on a 10G+ port with several local cores is a finding.',
    fix: 'Raise the channel count with `ethtool -L <if> combined <n>` (n up to the NIC-local cores and the driver maximum); where hardware queues are few, enable RPS (`rps_cpus`) to spread the work in software.',
    links: [SCALING, ETHTOOL_MAN],
  },
  {
    id: 7,
    title: CAUSE_TITLES[7]!,
    symptom: 'Packets are dropped at the NIC during bursts and TCP retransmits, although the average rate is well below the link speed.',
    detection:
      'The rx-rings check compares `ethtool -g` current ring sizes with the maximum; nic-drops reads driver counters that mean “no descriptor was free” (`rx_missed_errors`, `rx_no_buffer_count`, mlx5 `rx_out_of_buffer`, `rx_discards_phy`).',
    numbers:
      'A ring of 512 descriptors at 10 Gb/s holds well under a millisecond of full-size frames; one scheduling hiccup longer than that drops. ESnet recommends the driver maximum (often 4096 or 8192 on 40/100G NICs). Rings below the maximum with drops are a diagnosis; without drops they are a note.',
    fix: 'Raise the rings with `ethtool -G <if> rx <max> tx <max>` (the link resets briefly) and make it persistent with a systemd .link file or the distribution’s network configuration.',
    links: [FASTERDATA_NIC, ETHTOOL_MAN, STATISTICS],
  },
  {
    id: 8,
    title: CAUSE_TITLES[8]!,
    symptom: 'The interrupt rate is very high and CPU use is high at a moderate packet rate, or latency is higher than it should be.',
    detection:
      'The coalescing check reads `ethtool -c`: adaptive-rx/tx, rx-usecs and rx-frames, and judges them against the host’s profile.',
    numbers:
      'rx-usecs 0 with rx-frames 1 means one interrupt per packet; Intel’s rx-usecs 80 is about 12,500 interrupts per second per queue. A throughput host wants adaptive coalescing on; a measurement host may turn it off on purpose, so the verdict follows `--profile`.',
    fix: 'On a throughput host enable adaptive coalescing: `ethtool -C <if> adaptive-rx on adaptive-tx on`, or set a fixed rx-usecs in the tens of microseconds.',
    links: [ETHTOOL_MAN, FASTERDATA_NIC, NAPI],
  },
  {
    id: 9,
    title: CAUSE_TITLES[9]!,
    symptom:
      'System CPU per Gb/s is high and the ceiling is lower than the link; with a broken segmentation offload, throughput may collapse after the first second.',
    detection:
      'The offloads check reads `ethtool -k`: TSO, GSO, GRO, LRO, checksumming and scatter-gather, noting the ones marked `[fixed]` (the driver will not change them) and ones requested but off.',
    numbers:
      'Without TSO/GSO the kernel builds every 1500-byte segment itself, and without GRO it processes every received frame separately: several times the per-byte CPU cost. Off is a finding only on a throughput host.',
    fix: 'Turn them back on with `ethtool -K <if> tso on gso on gro on rx on tx on sg on`; a feature that is `[fixed] off` needs another driver or firmware.',
    links: [ETHTOOL_MAN, { title: 'Linux kernel: segmentation offloads', url: `${KERNEL}/networking/segmentation-offloads.html` }],
  },
  {
    id: 10,
    title: CAUSE_TITLES[10]!,
    symptom: 'One stream tops out near window ÷ round-trip time; more streams help because each brings its own window.',
    detection:
      'The socket-buffers check reads `net.core.rmem_max`/`wmem_max` and the third field of `net.ipv4.tcp_rmem`/`tcp_wmem`, and compares them with the tier for the link speed.',
    numbers:
      'The window must cover the bandwidth-delay product: 10 Gb/s × 10 ms = 12.5 MB. The tiers follow ESnet’s tuning: below 40G, 64 MiB max and 32 MiB autotuning limit; 40G and up, 512 MiB and 256 MiB; 100G and up, 2 GiB and 1 GiB.',
    fix: 'Write the tier’s values to a sysctl.d drop-in and load it with `sysctl --system`.',
    links: [FASTERDATA_HOST, IP_SYSCTL, NET_SYSCTL],
  },
  {
    id: 11,
    title: CAUSE_TITLES[11]!,
    symptom:
      'At 1500 bytes a fast link costs more CPU per byte and reaches a lower ceiling; when MTU differs along the path, large transfers stall while small ones work.',
    detection:
      'The mtu check reads each interface’s MTU, bond members against their bond, and overlays (VXLAN, Geneve) against the device under them.',
    numbers:
      'TCP goodput = speed × (MTU − 52) ÷ (MTU + 38): 9.41 Gb/s at 1500 and 9.90 at 9000 on 10G. A standard MTU on a 40G+ link is a note; a member or overlay MTU that cannot carry its parent’s packets is a fault.',
    fix: 'Use jumbo frames end to end (hosts, switches, peer) or not at all; verify with `ping -M do -s <MTU-28> <peer>`, and enable `net.ipv4.tcp_mtu_probing=1` with jumbo frames.',
    links: [FASTERDATA_HOST, IP_SYSCTL],
  },
  {
    id: 12,
    title: CAUSE_TITLES[12]!,
    symptom: 'The per-stream rate is lower than the hardware allows and varies from run to run.',
    detection: 'The cpu-frequency check reads `scaling_governor`, current and maximum frequencies from cpufreq in sysfs.',
    numbers:
      'ESnet’s rule of thumb is at least 3 GHz per 30 Gb/s flow. A governor other than `performance`, or a maximum capped below the hardware’s, lowers that per-core budget.',
    fix: 'Set the governor to performance (`cpupower frequency-set -g performance`) and choose the firmware’s performance power profile.',
    links: [FASTERDATA_100G, { title: 'Linux kernel: CPU performance scaling', url: `${KERNEL}/admin-guide/pm/cpufreq.html` }],
  },
  {
    id: 13,
    title: CAUSE_TITLES[13]!,
    symptom: 'Results are inconsistent, and the total drops by around 15 % once test processes outnumber physical cores.',
    detection:
      'The cpu-frequency check reads `/sys/devices/system/cpu/smt/active`; the bench compares its process count with the physical cores.',
    numbers:
      'Two hyperthreads of one core share its execution units and caches; two busy network threads on siblings each get much less than a core.',
    fix: 'Run at most one busy process per physical core (pin to one sibling of each), or turn SMT off for measurement hosts.',
    links: [
      FASTERDATA_100G,
      {
        title: 'Linux kernel: sysfs CPU ABI (smt/control, smt/active)',
        url: 'https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-devices-system-cpu',
      },
    ],
  },
  {
    id: 14,
    title: CAUSE_TITLES[14]!,
    symptom: 'Bursts overflow the receiver and drops rise, notably on Intel ice NICs whose driver defaults pause frames off.',
    detection: 'The flow-control check reads `ethtool -a` (autoneg, RX and TX pause).',
    numbers:
      'Pause frames let a receiver ask its link partner to wait a few microseconds instead of dropping. Off is a note unless drops are also seen; in a lossless fabric pause (or PFC) is required.',
    fix: '`ethtool -A <if> rx on tx on`, with pause also enabled on the switch port.',
    links: [ETHTOOL_MAN, ICE],
  },
  {
    id: 15,
    title: CAUSE_TITLES[15]!,
    symptom: 'Packets are lost although the NIC counts no drops: the kernel’s per-CPU backlog overflowed or the softirq ran out of budget.',
    detection:
      'The softnet check reads `/proc/net/softnet_stat` (hex, one row per CPU): the second column counts drops, the third “time squeeze” (budget exhausted).',
    numbers:
      'Any growth of the drop column during a test is a finding. The defaults (`netdev_max_backlog` 1000, `netdev_budget` 300) are sized for slower links.',
    fix: 'Raise `net.core.netdev_max_backlog` and `net.core.netdev_budget`/`netdev_budget_usecs`, and spread the load over more CPUs with RSS or RPS.',
    links: [NET_SYSCTL, SCALING, NAPI],
  },
  {
    id: 16,
    title: CAUSE_TITLES[16]!,
    symptom: 'Throughput is flat at a lower speed, the link goes down and up, or CRC and symbol errors grow.',
    detection:
      'The link-speed check compares the negotiated speed with the best mode both ends support or advertise (`ethtool <if>`) and counts `carrier_changes`; nic-drops reads CRC, symbol and alignment error counters.',
    numbers:
      'A 10G-capable port at 1G caps everything at 0.94 Gb/s. Physical error counters above zero on a healthy optic are unusual; growing ones point at the cable, optic or switch port.',
    fix: 'Replace or reseat the cable or optic, check the switch port and its speed/FEC settings, and make autonegotiation consistent on both ends; update NIC firmware when the vendor lists a link fix.',
    links: [ETHTOOL_MAN, STATISTICS],
  },
  {
    id: 17,
    title: CAUSE_TITLES[17]!,
    symptom: 'Retransmits grow with the number of streams while the sum barely moves.',
    detection:
      'The bench reads retransmits per stream; the qdisc check reads `tc -s qdisc` drops; socket-buffers reads the default qdisc and congestion control.',
    numbers:
      'Unpaced senders emit line-rate bursts that overflow switch buffers. With `fq` as the default qdisc, TCP pacing spreads them out.',
    fix: 'Set `net.core.default_qdisc=fq`, consider BBR or pacing (`--fq-rate`), and use fewer, better-tuned streams.',
    links: [FASTERDATA_HOST, { title: 'tc-fq(8) manual', url: 'https://man7.org/linux/man-pages/man8/tc-fq.8.html' }],
  },
  {
    id: 18,
    title: CAUSE_TITLES[18]!,
    symptom: 'File copies run at 6–8 Gb/s while a memory-to-memory iperf3 test reaches line rate.',
    detection: 'A bench that reaches the link’s goodput ceiling while the user reports slow transfers.',
    numbers: 'When iperf3 reaches the ceiling of the link, the network path is not what limits the application.',
    fix: 'Look at storage (RAID, ZFS, disk throughput), the file-transfer protocol (SMB Multichannel on Windows clients, single-threaded copy tools) and the application; the network is fine.',
    links: [FASTERDATA_HOST],
  },
  {
    id: 19,
    title: CAUSE_TITLES[19]!,
    symptom: 'A test reports a low or odd number that says more about how it was run than about the host.',
    detection:
      'The throughput and iperf3 checks recognise “the server is busy”, client/server version skew, very small write sizes, and short tests without omitted slow start.',
    numbers: 'A single iperf3 server serves one test at a time; slow start distorts tests of a few seconds unless `-O` omits it.',
    fix: 'Run one server per port, the same iperf3 version on both ends, `-O 1` or more, and tests of ten seconds or longer. These are labelled, never reported as host faults.',
    links: [IPERF3_MULTI, IPERF3_RELEASES],
  },
  {
    id: 20,
    title: CAUSE_TITLES[20]!,
    symptom: 'The PCIe link is wide and fast enough, yet DMA efficiency is lower than it could be.',
    detection: 'The pcie-link check reads `DevCap` against `DevCtl` MaxPayload and MaxReadReq from `lspci -vv`.',
    numbers:
      'Each TLP carries a fixed header; 128-byte payloads spend a larger share on headers than 256 or 512. It is reported, never failed, since firmware sets it for the whole hierarchy.',
    fix: 'Set MaxPayload/MaxReadReq in the firmware setup where offered; do not change it with setpci on a running system.',
    links: [PCI_H, { title: 'Linux kernel: PCI Express port bus driver', url: `${KERNEL}/PCI/pciebus-howto.html` }],
  },
  {
    id: 21,
    title: CAUSE_TITLES[21]!,
    symptom:
      'Traffic stalls for seconds, the kernel logs `NETDEV WATCHDOG: … transmit queue N timed out`, the driver resets the adapter, or firmware reports errors (Intel MDD events, mlx5 health syndromes).',
    detection:
      'Kernel-log events from `dmesg`, `journalctl -k` or a sosreport’s kern.log, counted with their first and last time and the interface or PCI address; known issues (known-issues/*.yaml) match the driver and firmware versions from `ethtool -i`.',
    numbers:
      'One watchdog timeout during a cable pull is noise; repeated ones, or resets in a loop, are a fault. A driver or firmware version listed in a known issue with the same symptom is reported with its upstream fix.',
    fix: 'Update the NIC firmware and driver to the versions the vendor’s release notes name as fixed, and look at the known issue’s link; collect the kernel log around the first event for the vendor.',
    links: [I40E, ICE, MLX5, { title: 'Linux kernel: devlink health', url: `${KERNEL}/networking/devlink/devlink-health.html` }],
  },
  {
    id: 22,
    title: CAUSE_TITLES[22]!,
    symptom:
      'The kernel logs PCIe AER corrected or uncorrected errors for the NIC or the bridge above it; throughput drops or the device resets.',
    detection:
      'Kernel-log AER lines (`AER: Corrected error received`, `PCIe Bus Error: severity=…`) attributed to the NIC’s PCI address or its upstream port.',
    numbers:
      'Corrected errors are retried by hardware and cost bandwidth; a steady stream of them signals a marginal link. Uncorrected errors trigger recovery and may take the device offline.',
    fix: 'Reseat the card, try another slot or riser, check the slot’s generation setting (forcing one generation lower can stabilise a marginal link), and update platform firmware.',
    links: [{ title: 'Linux kernel: PCIe AER driver guide', url: `${KERNEL}/PCI/pcieaer-howto.html` }],
  },
  {
    id: 23,
    title: CAUSE_TITLES[23]!,
    symptom:
      'The port has no link or a slower one; the kernel says the module is unsupported or rejected, or the optic’s receive power or temperature is outside its limits.',
    detection:
      'Kernel-log module events (“unsupported SFP+ module type was detected”) and `ethtool -m`: module type and nominal rate against the port speed, and RX/TX power, bias and temperature against the module’s own warning and alarm thresholds.',
    numbers:
      'The thresholds come from the module itself (SFF-8472 for SFP, SFF-8636 for QSFP), so nicdoctor compares each reading with the alarm and warning limits the module reports, not with fixed numbers.',
    fix: 'Use a module the NIC vendor supports (or enable the driver’s documented option for third-party modules), clean or replace the fibre, and check that both ends use the same optic type and rate.',
    links: [
      ETHTOOL_MAN,
      { title: 'Linux kernel: ethtool netlink interface (module EEPROM)', url: `${KERNEL}/networking/ethtool-netlink.html` },
    ],
  },
  {
    id: 24,
    title: CAUSE_TITLES[24]!,
    symptom:
      'New connections fail or packets vanish under load while the NIC is healthy: `nf_conntrack: table full, dropping packet`, listen-queue overflows, or TCP memory pressure.',
    detection:
      'Kernel-log conntrack events, `nf_conntrack_count` against `nf_conntrack_max`, `/proc/net/netstat` (ListenOverflows, ListenDrops, PruneCalled) and `/proc/net/sockstat` memory against `tcp_mem`.',
    numbers:
      'A conntrack table at its maximum drops every new flow. Socket memory above the middle value of `tcp_mem` puts TCP into pressure mode, which shrinks buffers for every socket.',
    fix: 'Raise `net.netfilter.nf_conntrack_max` (and the hash size) or exempt high-rate flows from tracking; raise the listen backlog (`somaxconn` and the application’s backlog); size `tcp_mem` for the host’s memory.',
    links: [{ title: 'Linux kernel: netfilter conntrack sysctls', url: `${KERNEL}/networking/nf_conntrack-sysctl.html` }, IP_SYSCTL],
  },
  {
    id: 25,
    title: CAUSE_TITLES[25]!,
    symptom:
      'A bond carries less than the sum of its members: a member is down or slower than the others, LACP churns, or one flow can never use more than one member.',
    detection:
      '`/proc/net/bonding/<bond>`: mode, transmit hash policy, each member’s MII status, speed and LACP partner state; member MTU and offloads from the other checks.',
    numbers:
      'Every hash policy sends one flow over one member, so a single stream never exceeds one member’s speed; `layer2` hashes on MAC addresses only, which puts all traffic to one gateway on one member.',
    fix: 'Repair or replace the member that is down or slow, use `layer3+4` hashing for many flows, run several streams, and match LACP settings (rate, aggregation) with the switch.',
    links: [{ title: 'Linux kernel: bonding driver', url: `${KERNEL}/networking/bonding.html` }],
  },
];

/** The anchor every reference to a cause uses: docs/causes.md#cause-<n>. */
export function causeAnchor(id: number): string {
  return `cause-${id}`;
}

export const CAUSES_PAGE = 'docs/causes.md';
