#!/bin/bash
# The hand-written baseline of `npm run bench:scan`: the loop a support engineer writes to gather
# what a scan reads, one command after another (ethtool with nine flags per interface, sysfs
# attributes and statistics, lspci -vv, /proc files, IRQ affinity, sysctls, tool versions).
#
# Provenance: copied unchanged (below this header) from the project's shared benchmark baselines,
# bench/serial-collect.sh of the nicdoctor team's shared workspace (its README: "the loop a
# support engineer would write to gather what a scan reads"), named in issue 21 as the honest
# baseline for the scan. Copied 2026-12-02. Do not edit: its figures are compared across runs.
# The baseline a support engineer would write: gather the same facts nicdoctor reads, serially.
for i in $(ls /sys/class/net); do
  for f in "" -i -l -g -k -c -S -x -a; do ethtool $f $i; done
  cat /sys/class/net/$i/{mtu,speed,duplex,carrier,operstate,carrier_changes} 2>/dev/null
  cat /sys/class/net/$i/statistics/* 2>/dev/null
done
lspci -vv
cat /proc/interrupts /proc/net/softnet_stat /proc/net/dev /proc/cmdline
for i in /proc/irq/*/smp_affinity_list; do cat $i; done
sysctl net.core.rmem_max net.core.wmem_max net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.core.netdev_max_backlog net.core.netdev_budget net.ipv4.tcp_congestion_control net.core.default_qdisc net.ipv4.tcp_mtu_probing
iperf3 --version; lscpu; numactl --hardware
cat /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor
pgrep -x irqbalance
