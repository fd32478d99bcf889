#!/usr/bin/env bash
# The whole test suite on a fresh Debian/Ubuntu machine: system tools, npm packages, build,
# unit tests, the single executable and .deb (npm run package) and their tests, then the
# network-namespace lab (one file at a time; needs root).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-deps.sh --tests
npm ci --no-audit --no-fund
npm run build
# The tests are TypeScript too: a renamed field in a fixture or helper fails here, not at run time.
npx tsc -p tsconfig.test.json --noEmit
npx vitest run --project unit
# The single executable and the .deb: built, checked, and the CLI tests run again with the
# executable and no node on PATH; the lab's Ansible fleet test ships this executable.
npm run package
npx vitest run --project package
NICDOCTOR_SKIP_BUILD=1 NICDOCTOR_EXECUTABLE="dist/package/nicdoctor-$(node -p 'require("./package.json").version')-linux-x64" \
  npx vitest run --project unit test/cli/reports.test.ts test/fleet test/reporters/node-exporter.test.ts
npx vitest run --project lab
