# Sourced by start.sh and test.sh: brings a machine that has only Node and npm up to what the
# project needs. Every step is idempotent, so a second run costs a few seconds.
set -euo pipefail

PNPM_VERSION=10.34.9
NODE_MAJOR=24
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Node 24 LTS. Where the machine's Node is older, the exact version locked in tools/node (the npm
# package `node`, which carries the official binary) is installed once into tools/node/node_modules
# and put first on PATH, so every script, test, worker and child process below runs on it.
ensure_node() {
  local major
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$major" -ge "$NODE_MAJOR" ]; then return 0; fi
  local bin="$ROOT/tools/node/node_modules/node/bin"
  if [ ! -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" != "$NODE_MAJOR" ]; then
    echo "bootstrap: installing Node.js $NODE_MAJOR from npm into tools/node (a download of about 50 MB, once)"
    npm ci --prefix "$ROOT/tools/node" --no-audit --no-fund --loglevel=error >/dev/null
  fi
  export PATH="$bin:$PATH"
}

ensure_pnpm() {
  ensure_node
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
