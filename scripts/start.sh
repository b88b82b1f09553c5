#!/usr/bin/env bash
# Starts Sponge: the API and the built web app on http://localhost:${PORT:-3000} (HOST 127.0.0.1), on embedded libSQL
# files in ./data (created with demo data on first start), plus the purge worker and the hosted
# runtime (the agent that answers the owners' questions) beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
ensure_pnpm
ensure_deps
pnpm turbo run build --output-logs=errors-only

export DATA_DIR="${DATA_DIR:-$PWD/data}"
# Owner-only (the API tightens an existing folder too, SPEC §6c).
mkdir -p -m 700 "$DATA_DIR"
export PORT="${PORT:-3000}"

# The purge worker is its own process with its own credential (SPEC §8); it stops with the API.
# Started with node, not through pnpm: pnpm runs a script through `sh -c`, and a TERM sent to pnpm
# never reaches the node process below it, which would be left running.
node apps/api/dist/bin/purge-main.js &
purge_pid=$!
# So is the hosted runtime (SPEC §7b): it waits for the API's health check and for the runtime key
# the API writes into DATA_DIR, then answers turns until it is stopped with the others.
# Where the API listens (HOST, default 127.0.0.1): every interface is reached on loopback.
case "${HOST:-127.0.0.1}" in
  0.0.0.0 | :: ) api_host=127.0.0.1 ;;
  *:*) api_host="[$HOST]" ;;
  *) api_host="${HOST:-127.0.0.1}" ;;
esac
export SPONGE_API_URL="${SPONGE_API_URL:-http://$api_host:$PORT}"
node packages/agent/dist/runtime/main.js &
runtime_pid=$!
trap 'kill $purge_pid $runtime_pid 2>/dev/null || true' EXIT INT TERM

echo "Sponge: http://localhost:$PORT (data in $DATA_DIR); MCP for your own agent: http://localhost:$PORT/mcp (docs/mcp.md)"
pnpm --silent --filter @sponge/api start
