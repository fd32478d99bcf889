#!/usr/bin/env bash
# Installs the system tools nicdoctor's checks read, on Debian/Ubuntu; with --tests also what
# only the tests use: iptables (lab packet loss), Chromium (the HTML report's browser test),
# dash and busybox (the collect --script lab test runs the script under both), and for the
# packaging and fleet tests: binutils (strip), lintian, rpm (rpmbuild, rpm2cpio), cpio and rpmlint
# (the .rpm), ansible-core and openssh-server (the Ansible test's namespace hosts),
# prometheus-node-exporter (textfile scrape).
# Safe to run again: it only installs what is missing.
set -euo pipefail
packages=(iperf3 ethtool pciutils iproute2 numactl procps util-linux)
[ "${1:-}" = "--tests" ] && packages+=(iptables chromium dash busybox binutils lintian rpm cpio rpmlint ansible-core openssh-server prometheus-node-exporter)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "Installing: ${missing[*]}" >&2
$SUDO apt-get update -qq
# iperf3's package asks whether to start a daemon; answer no without a prompt.
echo "iperf3 iperf3/start_daemon boolean false" | $SUDO debconf-set-selections
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
