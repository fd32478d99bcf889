#!/usr/bin/env bash
# Sets nicdoctor up on this machine: the system tools its checks read (ethtool, lspci, iperf3,
# numactl, ...), its npm packages, the build, and a `nicdoctor` command on PATH (npm link).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  echo "nicdoctor needs Node.js 20 or newer (node -v: $(node -v 2>/dev/null || echo none))" >&2
  exit 3
fi
bash scripts/install-system-deps.sh
npm ci --no-audit --no-fund
npm run build
if [ "$(id -u)" -eq 0 ]; then npm link --no-audit --no-fund; else sudo npm link --no-audit --no-fund; fi
echo "nicdoctor $(nicdoctor --version) is installed: run 'nicdoctor scan' (as root to read every fact)" >&2
