import { STANDARD_DIRS } from '../collectors/tools.js';
import { SYSCTL_DIRS } from '../collectors/sysctl-on-disk.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, LISTING_FILE } from '../hostio/snapshot-layout.js';
import { SYSCTL_NET_KEYS } from '../parsers/sysctl.js';
import { VERSION } from '../util/version.js';

/**
 * `nicdoctor collect --script`: a POSIX sh script for hosts where nothing may be installed. It
 * reads what the collectors read — the same commands (argv as nicdoctor runs them) and the same
 * sysfs/procfs files, symbolic links kept as links — and writes the snapshot layout
 * (snapshot-layout.ts) into one tar.gz that `nicdoctor analyze` accepts.
 *
 * Rules for the script: no bash-isms (it runs under dash and busybox sh), read-only (it writes
 * only below its own temporary directory and the archive), a timeout on every command when
 * `timeout` exists, and it works without root (it says what root would add).
 */

const ETHTOOL_FLAGS = [[], ['-i'], ['-k'], ['--json', '-k'], ['-g'], ['-l'], ['-c'], ['-a'], ['-S'], ['-x'], ['-m']];
const NET_ATTRIBUTES = ['speed', 'duplex', 'mtu', 'operstate', 'carrier', 'carrier_changes', 'type', 'uevent', 'flags'];
const PCI_ATTRIBUTES = [
  'numa_node',
  'local_cpulist',
  'vendor',
  'device',
  'current_link_speed',
  'current_link_width',
  'max_link_speed',
  'max_link_width',
];
const CPU_TOPOLOGY = ['thread_siblings_list', 'physical_package_id', 'core_id'];
const CPU_FREQ = ['scaling_governor', 'scaling_cur_freq', 'scaling_max_freq', 'cpuinfo_max_freq', 'scaling_driver'];
const IRQBALANCE_CONFIG = ['/etc/default/irqbalance', '/etc/sysconfig/irqbalance'];

const words = (list: readonly string[]) => list.join(' ');

/**
 * What every collection script starts with: safe output checks, the private work directory, and
 * the helpers that record a command (run), a file (file), a link (link) and a listing, in the
 * snapshot layout. Shared by the Linux script and the FreeBSD one (generate-freebsd.ts).
 */
export function shellHelpers(): string {
  return `set -u
umask 077
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export LC_ALL=C

HOST=$(uname -n 2>/dev/null | tr -c 'A-Za-z0-9._-' '_' | sed 's/_*$//')
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
NAME="nicdoctor-collect-\${HOST:-host}-$STAMP"
OUT=\${1:-./$NAME.tar.gz}
case "$OUT" in
  -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
  *.tar.gz|*.tgz) ;;
  *) echo "collect.sh: the output must end in .tar.gz: $OUT" >&2; exit 2 ;;
esac
# A link at the output, even a dangling one, may be another user's plant: never written through.
if [ -L "$OUT" ]; then echo "collect.sh: $OUT is a symbolic link; give a new file name" >&2; exit 2; fi
if [ -e "$OUT" ]; then echo "collect.sh: $OUT exists; give a new file name" >&2; exit 2; fi

WORK=$(mktemp -d "\${TMPDIR:-/tmp}/nicdoctor-collect.XXXXXX") || { echo "collect.sh: cannot create a temporary directory" >&2; exit 1; }
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ROOT="$WORK/$NAME"
FS="$ROOT/fs"
mkdir -p "$FS" "$ROOT/cmd"

if command -v timeout >/dev/null 2>&1; then TIMEOUT="timeout 15"; else TIMEOUT=""; fi

# JSON string: backslash, quote and control characters escaped.
json() { printf '%s' "$1" | sed -e 's/\\\\/\\\\\\\\/g' -e 's/"/\\\\"/g' -e 's/\t/\\\\t/g' | tr -d '\\r' | awk 'BEGIN { ORS = "" } NR > 1 { print "\\\\n" } { print }'; }

# commandKey() of src/hostio/types.ts: every character outside [A-Za-z0-9._,:=+@-] becomes _.
key() {
  k=""
  for part in "$@"; do
    p=$(printf '%s' "$part" | tr -c 'A-Za-z0-9._,:=+@-' '_')
    if [ -z "$k" ]; then k=$p; else k="\${k}_$p"; fi
  done
  printf '%s' "$k"
}

# Runs a command (never through a shell string) and records stdout and its exit code and stderr.
run() {
  k=$(key "$@")
  argv=""
  for part in "$@"; do argv="$argv\${argv:+,}\\"$(json "$part")\\""; done
  if ! command -v "$1" >/dev/null 2>&1; then
    printf '{"argv":[%s],"error":"tool-missing","message":"%s: not installed"}\\n' "$argv" "$(json "$1")" > "$ROOT/cmd/$k.json"
    return 0
  fi
  $TIMEOUT "$@" > "$ROOT/cmd/$k" 2> "$WORK/stderr" < /dev/null
  code=$?
  if [ -n "$TIMEOUT" ] && [ "$code" -eq 124 ]; then
    rm -f "$ROOT/cmd/$k"
    printf '{"argv":[%s],"error":"timeout","message":"%s: timed out after 15 s"}\\n' "$argv" "$(json "$1")" > "$ROOT/cmd/$k.json"
    return 0
  fi
  printf '{"argv":[%s],"exitCode":%d,"stderr":"%s","durationMs":0}\\n' "$argv" "$code" "$(json "$(head -c 4000 "$WORK/stderr")")" > "$ROOT/cmd/$k.json"
}

# A file at its real path; nothing when it cannot be read (as nicdoctor reads "no data").
file() {
  [ -f "$1" ] && [ -r "$1" ] || return 0
  mkdir -p "$FS$(dirname "$1")"
  if ! $TIMEOUT cat "$1" > "$FS$1" 2>/dev/null; then rm -f "$FS$1"; fi
}

# A symbolic link as a link (sysfs is made of them): /sys/class/net/eth0 -> ../../devices/...
link() {
  [ -L "$1" ] || return 0
  mkdir -p "$FS$(dirname "$1")"
  [ -L "$FS$1" ] || ln -s "$(readlink "$1")" "$FS$1"
}

# A directory's entries, for a listing nicdoctor reads (the snapshot holds only what was read).
listing() {
  [ -d "$1" ] || return 0
  mkdir -p "$FS$1"
  ls -A "$1" 2>/dev/null | sed -e 's/\\\\/\\\\\\\\/g' -e 's/"/\\\\"/g' | awk 'BEGIN { ORS = ""; print "[" } { if (NR > 1) print ","; print "\\"" $0 "\\"" } END { print "]" }' > "$FS$1/${LISTING_FILE}"
}

real() { readlink -f "$1" 2>/dev/null || printf '%s' "$1"; }
`;
}

/** The end of every collection script: README, the tar.gz built privately, written with O_EXCL. */
export function writeArchive(): string {
  return `printf 'A nicdoctor snapshot. Analyse it anywhere with: nicdoctor analyze <the .tar.gz>\\n' > "$ROOT/README.txt"

# The archive is built in the private directory, then copied through a descriptor opened with
# noclobber (set -C: O_EXCL), so a file or link planted at the name since the check above makes
# the write fail instead of going through it.
if ! tar -czf "$WORK/archive.tar.gz" -C "$WORK" "$NAME"; then
  echo "collect.sh: could not build the archive" >&2
  exit 1
fi
set -C
if ! { command exec 3> "$OUT"; } 2>/dev/null; then
  echo "collect.sh: cannot create $OUT (a file or link appeared at that name, or the directory is not writable)" >&2
  exit 2
fi
set +C
if ! cat "$WORK/archive.tar.gz" >&3; then
  exec 3>&-
  rm -f "$OUT"
  echo "collect.sh: could not write $OUT" >&2
  exit 1
fi
exec 3>&-
echo "collect.sh: wrote $OUT — send it; analyse it with: nicdoctor analyze $OUT" >&2
`;
}

export function collectScript(): string {
  const sysctlPaths = SYSCTL_NET_KEYS.map((key) => `/proc/sys/${key.replace(/\./g, '/')}`);
  const ethtoolRuns = ETHTOOL_FLAGS.map((flags) => `  run ethtool ${flags.join(' ')}${flags.length ? ' ' : ''}"$i"`).join('\n');
  return `#!/bin/sh
# nicdoctor ${VERSION} collection script: reads what nicdoctor's checks read and writes one
# .tar.gz for \`nicdoctor analyze FILE\`. Read-only: it changes nothing on this host and writes
# only a temporary directory (removed at exit) and the archive.
#
#   sh collect.sh [OUTPUT.tar.gz]
#
# Default output: ./nicdoctor-collect-<host>-<time>.tar.gz. Runs under sh, dash and busybox sh;
# as root it also reads what only root may (lspci capabilities, some ethtool queries).
${shellHelpers()}
echo "collect.sh: reading network interfaces, PCIe links, IRQs, CPU and TCP settings..." >&2

# Interfaces (/sys/class/net): attributes, statistics, queues, PCI function, IRQs, ethtool, tc.
mkdir -p "$FS/sys/class/net"
for path in /sys/class/net/*; do
  [ -e "$path" ] || continue
  i=\${path##*/}
  [ "$i" = bonding_masters ] && continue
  link "$path"
  n=$(real "$path")
  for a in ${words(NET_ATTRIBUTES)}; do file "$n/$a"; done
  file "$n/bonding/slaves"
  link "$n/device"
  link "$n/master"
  if [ -d "$n/statistics" ]; then for s in "$n"/statistics/*; do file "$s"; done; fi
  if [ -d "$n/queues" ]; then
    for q in "$n"/queues/*; do mkdir -p "$FS$q"; file "$q/rps_cpus"; done
  fi
  [ "$i" = lo ] && continue
${ethtoolRuns}
  run tc -s class show dev "$i"
  if [ -L "$n/device" ]; then
    d=$(real "$n/device")
    link "$d/driver"
    # The nearest PCI function on the device path (a virtio device sits below its PCI function):
    # NUMA node, local CPUs, MSI vectors, driver; then every bridge above it.
    pci=""
    p=$d
    while [ "$p" != / ] && [ -n "$p" ]; do
      b=\${p##*/}
      case "$b" in
        [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:[0-9a-f][0-9a-f]:[0-9a-f][0-9a-f].[0-7])
          if [ -z "$pci" ]; then
            pci=$p
            for a in ${words(PCI_ATTRIBUTES)}; do file "$p/$a"; done
            link "$p/driver"
            link "$p/physfn"
            if [ -d "$p/msi_irqs" ]; then
              for m in "$p"/msi_irqs/*; do [ -e "$m" ] && file "$m"; done
              listing "$p/msi_irqs"
            fi
          else
            for a in current_link_speed current_link_width max_link_speed max_link_width; do file "$p/$a"; done
          fi
          # lspci where sysfs has no link attributes (older kernels), once per address.
          [ -f "$ROOT/cmd/$(key lspci -vv -s "$b")" ] || run lspci -vv -s "$b"
          ;;
      esac
      p=\${p%/*}
    done
  fi
done

# PCI network functions, for the ones with no interface (bound to vfio-pci or igb_uio for DPDK or
# passthrough, or to no driver): each function's class, and for network ones their driver, whether
# they are a VF, their interfaces, the PCIe link attributes and lspci (interfaces.ts, pcie-link.ts).
listing /sys/bus/pci/devices
for p in /sys/bus/pci/devices/*; do
  [ -L "$p" ] || continue
  d=$(real "$p")
  mkdir -p "$FS$d"
  link "$p"
  file "$d/class"
  case "$(cat "$d/class" 2>/dev/null)" in
    0x02*) ;;
    *) continue ;;
  esac
  link "$d/physfn"
  link "$d/driver"
  listing "$d/net"
  for a in numa_node local_cpulist vendor device current_link_speed current_link_width max_link_speed max_link_width; do file "$d/$a"; done
  b=\${p##*/}
  [ -f "$ROOT/cmd/$(key lspci -vv -s "$b")" ] || run lspci -vv -s "$b"
done

# Host: interrupts, softnet, the network sysctls, CPUs, NUMA nodes, irqbalance, tools.
file /proc/interrupts
file /proc/net/softnet_stat
file /proc/net/dev
file /proc/net/snmp
file /proc/net/netstat
# Bonds: the bonding driver's view of each bond and its members (check bonding).
listing /proc/net/bonding
for b in /proc/net/bonding/*; do [ -f "$b" ] && file "$b"; done
# The rest of the stack: socket memory and its limits, connection tracking, the uptime that turns
# counters since boot into rates.
file /proc/net/sockstat
file /proc/uptime
for s in /proc/sys/net/ipv4/tcp_mem /proc/sys/net/ipv4/udp_mem /proc/sys/net/netfilter/nf_conntrack_count /proc/sys/net/netfilter/nf_conntrack_max; do file "$s"; done
# Sysctl files boot applies, and the running value of every network key they set.
file /etc/sysctl.conf
for d in ${SYSCTL_DIRS.join(' ')}; do
  listing "$d"
  for f in "$d"/*.conf; do file "$f"; done
done
for f in /etc/sysctl.conf ${SYSCTL_DIRS.map((dir) => `${dir}/*.conf`).join(' ')}; do
  [ -f "$f" ] || continue
  awk -F= 'NF > 1 && $1 !~ /^[[:space:]]*[#;]/ { k = $1; sub(/^[[:space:]]*-?[[:space:]]*/, "", k); sub(/[[:space:]]*$/, "", k); if (k ~ "^net[./][A-Za-z0-9_.:@/-]*$") print k }' "$f" | head -n 500 | tr . / | while read -r k; do file "/proc/sys/$k"; done
done
# IRQ affinity of every interrupt: NIC vectors are also found by name in /proc/interrupts.
for irq in /proc/irq/[0-9]*; do
  [ -d "$irq" ] || continue
  file "$irq/smp_affinity_list"
  file "$irq/effective_affinity_list"
done
for s in ${words(sysctlPaths)}; do file "$s"; done
file /sys/devices/system/cpu/online
file /sys/devices/system/cpu/smt/active
file /sys/devices/system/cpu/smt/control
for c in /sys/devices/system/cpu/cpu[0-9]*; do
  [ -d "$c" ] || continue
  for a in ${words(CPU_TOPOLOGY)}; do file "$c/topology/$a"; done
  for a in ${words(CPU_FREQ)}; do file "$c/cpufreq/$a"; done
done
file /sys/devices/system/node/online
for node in /sys/devices/system/node/node[0-9]*; do
  [ -d "$node" ] || continue
  for a in cpulist meminfo distance; do file "$node/$a"; done
done
for pid in $(ls /proc 2>/dev/null); do
  case "$pid" in *[!0-9]*) continue ;; esac
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = irqbalance ]; then file "/proc/$pid/comm"; fi
done
mkdir -p "$FS/proc"
for f in ${words(IRQBALANCE_CONFIG)}; do file "$f"; done
for dir in ${words(STANDARD_DIRS)}; do listing "$dir"; done
run tc -s qdisc show
run ip -d -s link show
run dmesg
run iperf3 -v
run numactl --hardware

# What the report says about the host (HostInventory).
uid=$(id -u)
os=$(sed -n 's/^PRETTY_NAME="\\{0,1\\}\\([^"]*\\)"\\{0,1\\}$/\\1/p' /etc/os-release 2>/dev/null | head -n 1)
machine=$(uname -m)
case "$machine" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; i?86) arch=ia32 ;; ppc64le) arch=ppc64 ;; *) arch=$machine ;; esac
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
logical=$(grep -c '^processor' /proc/cpuinfo 2>/dev/null || echo 0)
cores=$(awk -F: '/^physical id/ { p = $2 } /^core id/ { print p ":" $2 }' /proc/cpuinfo 2>/dev/null | sort -u | wc -l | tr -d ' ')
[ "\${cores:-0}" -gt 0 ] || cores=$logical
virt=null
if command -v systemd-detect-virt >/dev/null 2>&1; then
  v=$(systemd-detect-virt 2>/dev/null)
  [ -n "$v" ] && [ "$v" != none ] && virt="\\"$(json "$v")\\""
fi
cat > "$ROOT/snapshot.json" <<EOF
{
  "format": "${SNAPSHOT_FORMAT}",
  "version": ${SNAPSHOT_VERSION},
  "createdAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "tool": { "name": "nicdoctor collect.sh", "version": "${VERSION}" },
  "description": "collected by the nicdoctor collection script (POSIX sh) as uid $uid",
  "inventory": {
    "hostname": "$(json "$(uname -n)")",
    "kernel": "$(json "$(uname -r)")",
    "os": "$(json "\${os:-unknown}")",
    "arch": "$(json "$arch")",
    "cpuModel": "$(json "\${model:-unknown}")",
    "logicalCpus": \${logical:-0},
    "physicalCores": \${cores:-0},
    "virtualization": $virt,
    "uid": $uid
  }
}
EOF
${writeArchive()}if [ "$uid" -ne 0 ]; then
  echo "collect.sh: not run as root: PCIe link capabilities (lspci), and on some drivers ethtool -S/-g/-l, need root; run it with sudo for the full picture" >&2
fi
exit 0
`;
}
