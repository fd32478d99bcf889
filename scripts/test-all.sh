#!/usr/bin/env bash
# The whole test suite on a fresh Debian/Ubuntu machine, in three stages:
#   setup  system tools (apt, needs root) and the npm packages (npm ci: the one install)
#   fast   typecheck of src and tests, lint, formatting (prettier --check), unit tests: no root needed
#   full   the single executable and .deb (npm run package, which builds) and their tests, then the
#          network-namespace lab (one file at a time; needs root)
# With no argument it runs all three in that order (the README's test command); with stage names
# it runs those only (.ci/run calls them one by one). Each vitest run writes a JSON report; under
# CI=true a skipped test fails the run (scripts/check-skips.mjs says which and why).
set -euo pipefail
cd "$(dirname "$0")/.."

REPORTS="${NICDOCTOR_TEST_REPORTS:-dist/test-reports}"

# vitest with the usual console output plus a JSON report named $1, then the skip check on it.
run_vitest() {
  local name="$1"
  shift
  mkdir -p "$REPORTS"
  rm -f "$REPORTS/$name.json"
  npx vitest run --reporter=default --reporter=json --outputFile.json="$REPORTS/$name.json" "$@"
  node scripts/check-skips.mjs "$REPORTS/$name.json"
}

stage_setup() {
  bash scripts/install-system-deps.sh --tests
  npm ci --no-audit --no-fund
}

stage_fast() {
  # The build is the typecheck of src (and writes dist/rules.json, which tests read). The tests
  # are TypeScript too: a renamed field in a fixture or helper fails here, not at run time.
  npm run build
  # The tests' typecheck and ESLint are each one single-threaded process: side by side they use
  # both cores of a 2-core runner. Its output is printed after lint's, and either failing fails.
  local typecheck_log status=0
  typecheck_log="$(mktemp)"
  npx tsc -p tsconfig.test.json --noEmit >"$typecheck_log" 2>&1 &
  local typecheck=$!
  npm run lint || status=$?
  [ "$status" -ne 0 ] || npm run format:check || status=$?
  wait "$typecheck" || status=$?
  cat "$typecheck_log"
  rm -f "$typecheck_log"
  [ "$status" -eq 0 ] || return "$status"
  run_vitest unit --project unit
}

stage_full() {
  # The single executable and the .deb: built, checked, and the CLI tests run again with the
  # executable and no node on PATH; the lab's Ansible fleet test ships this executable.
  # `npm run package` is `npm run build` then scripts/package.mjs: after the fast stage's build
  # (dist/ still the build of these sources, scripts/dist-fresh.mjs) only the packaging runs.
  if node scripts/dist-fresh.mjs >/dev/null; then
    node scripts/package.mjs
  else
    npm run package
  fi
  run_vitest package --project package
  NICDOCTOR_SKIP_BUILD=1 NICDOCTOR_EXECUTABLE="dist/package/nicdoctor-$(node -p 'require("./package.json").version')-linux-x64" \
    run_vitest unit-executable --project unit test/cli/reports.test.ts test/fleet test/reporters/node-exporter.test.ts
  run_vitest lab --project lab
}

stages=("$@")
[ "${#stages[@]}" -gt 0 ] || stages=(setup fast full)
for stage in "${stages[@]}"; do
  case "$stage" in
    setup | fast | full)
      echo "=== test-all.sh: stage $stage ===" >&2
      "stage_$stage"
      ;;
    *)
      echo "test-all.sh: unknown stage '$stage' (expected setup, fast or full)" >&2
      exit 2
      ;;
  esac
done
