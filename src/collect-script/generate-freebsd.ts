import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from '../hostio/snapshot-layout.js';
import { VERSION } from '../util/version.js';
import { shellHelpers, writeArchive } from './generate.js';

/**
 * `nicdoctor collect --script --os freebsd`: the collection script for FreeBSD hosts (TrueNAS
 * CORE, OPNsense, pfSense, OneFS). It runs what nicdoctor reads of a FreeBSD host — ifconfig,
 * pciconf, each NIC's sysctl tree, the socket-buffer sysctls, vmstat -i, netstat -m and the boot
 * messages — and writes the same archive layout as the Linux script (cmd/<key> with
 * cmd/<key>.json, snapshot.json whose inventory names FreeBSD), which `nicdoctor analyze` reads
 * as the text of those outputs.
 *
 * Same rules as the Linux script: POSIX sh (FreeBSD's /bin/sh, dash), read-only, `timeout` on
 * every command where it exists (FreeBSD 10.3 and later), works without root.
 */

/** Host-wide sysctls: socket-buffer limits, CPUs, NUMA domains, mbuf limits. */
const HOST_SYSCTLS = [
  'kern.ipc.maxsockbuf',
  'net.inet.tcp.sendbuf_max',
  'net.inet.tcp.recvbuf_max',
  'net.inet.tcp.sendspace',
  'net.inet.tcp.recvspace',
  'net.inet.tcp.cc.algorithm',
  'net.inet.ip.forwarding',
  'kern.ipc.nmbclusters',
  'hw.ncpu',
  'hw.model',
  'vm.ndomains',
];

export function collectScriptFreebsd(): string {
  return `#!/bin/sh
# nicdoctor ${VERSION} collection script for FreeBSD (TrueNAS CORE, OPNsense, pfSense, OneFS):
# reads what nicdoctor's checks read and writes one .tar.gz for \`nicdoctor analyze FILE\`.
# Read-only: it changes nothing on this host and writes only a temporary directory (removed at
# exit) and the archive.
#
#   sh collect-freebsd.sh [OUTPUT.tar.gz]
#
${shellHelpers()}
echo "collect.sh: reading network interfaces, PCIe links, NIC sysctls, interrupts and TCP settings..." >&2

run uname -a
run freebsd-version
run ifconfig -a -m -v
run pciconf -lvc
# Each interface's driver tree: ix0 -> sysctl dev.ix.0 (queues, rings, counters, firmware, flow control).
for i in $(ifconfig -l 2>/dev/null); do
  case "$i" in
    lo[0-9]*|pflog[0-9]*|pfsync[0-9]*|enc[0-9]*|gif[0-9]*|stf[0-9]*|bridge[0-9]*|lagg[0-9]*|tap[0-9]*|tun[0-9]*|epair[0-9]*|wg[0-9]*|ovpn[a-z]*[0-9]*|*.*|*_*) continue ;;
  esac
  driver=$(printf '%s' "$i" | sed 's/[0-9]*$//')
  unit=$(printf '%s' "$i" | sed 's/^[a-z_]*//')
  [ -n "$driver" ] && [ -n "$unit" ] || continue
  run sysctl "dev.$driver.$unit"
done
run sysctl ${HOST_SYSCTLS.join(' ')}
run vmstat -i
run netstat -m
run netstat -s -p tcp
run netstat -i -d -b -n
run netstat -Q
run cat /var/run/dmesg.boot
run iperf3 -v

# What the report says about the host (HostInventory).
uid=$(id -u)
version=$(freebsd-version 2>/dev/null || uname -r)
machine=$(uname -m)
case "$machine" in amd64) arch=x64 ;; arm64|aarch64) arch=arm64 ;; i386) arch=ia32 ;; *) arch=$machine ;; esac
model=$(sysctl -n hw.model 2>/dev/null)
logical=$(sysctl -n hw.ncpu 2>/dev/null || echo 0)
virt=null
v=$(sysctl -n kern.vm_guest 2>/dev/null)
[ -n "$v" ] && [ "$v" != none ] && virt="\\"$(json "$v")\\""
cat > "$ROOT/snapshot.json" <<EOF
{
  "format": "${SNAPSHOT_FORMAT}",
  "version": ${SNAPSHOT_VERSION},
  "createdAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "tool": { "name": "nicdoctor collect.sh", "version": "${VERSION}" },
  "description": "collected by the nicdoctor collection script for FreeBSD (POSIX sh) as uid $uid",
  "inventory": {
    "hostname": "$(json "$(uname -n)")",
    "kernel": "$(json "$(uname -r)")",
    "os": "FreeBSD $(json "$version")",
    "arch": "$(json "$arch")",
    "cpuModel": "$(json "\${model:-unknown}")",
    "logicalCpus": \${logical:-0},
    "physicalCores": \${logical:-0},
    "virtualization": $virt,
    "uid": $uid
  }
}
EOF
${writeArchive()}if [ "$uid" -ne 0 ]; then
  echo "collect.sh: not run as root: some drivers' sysctl counters and pciconf capabilities need root; run it with sudo (or as root) for the full picture" >&2
fi
exit 0
`;
}
