#!/usr/bin/env bash
# Starts Sponge: the API and the built web app on http://localhost:${PORT:-3000}, on embedded libSQL
# files in ./data (created with demo data on first start), plus the purge worker beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
ensure_pnpm
ensure_deps
pnpm turbo run build --output-logs=errors-only

export DATA_DIR="${DATA_DIR:-$PWD/data}"
mkdir -p "$DATA_DIR"
export PORT="${PORT:-3000}"

# The purge worker is its own process with its own credential (SPEC §8); it stops with the API.
pnpm --silent --filter @sponge/api purge &
purge_pid=$!
trap 'kill $purge_pid 2>/dev/null || true' EXIT INT TERM

echo "Sponge: http://localhost:$PORT (data in $DATA_DIR)"
pnpm --silent --filter @sponge/api start
