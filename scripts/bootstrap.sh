# Sourced by start.sh and test.sh: brings a machine that has only Node 20 and npm up to what the
# project needs. Every step is idempotent, so a second run costs a few seconds.
set -euo pipefail

PNPM_VERSION=10.34.9

ensure_pnpm() {
  if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
    echo "bootstrap: installing pnpm $PNPM_VERSION with npm"
    npm install -g "pnpm@$PNPM_VERSION" >/dev/null
  fi
}

ensure_deps() {
  echo "bootstrap: installing the locked dependencies"
  CI=true pnpm install --frozen-lockfile --reporter=silent
}

# Debian's Chromium for the end-to-end tests: Playwright's own browser download cannot work here.
ensure_chromium() {
  if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then return 0; fi
  echo "bootstrap: installing Debian's chromium with apt-get"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
}
