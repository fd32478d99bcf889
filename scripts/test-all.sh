#!/usr/bin/env bash
# The whole test suite on a fresh Debian/Ubuntu machine: system tools, npm packages, build,
# unit tests, then the network-namespace lab (one file at a time; needs root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh --tests
npm ci --no-audit --no-fund
npm run build
npx vitest run --project unit
npx vitest run --project lab
