#!/usr/bin/env bash
# Runs N runtime instances on one machine, on consecutive ports, sharing one Redis: a local
# stand-in for several instances behind a load balancer.
#
#   npm run build && bash scripts/run-instances.sh 3            # ports 8787, 8788, 8789
#   BASE_PORT=9000 REDIS_URL=redis://127.0.0.1:6380 bash scripts/run-instances.sh 2
#
# Every other setting (ADMIN_KEY, RELEASE_DIR, RELEASE_POLL_MS, …) is passed through from the
# environment. Ctrl-C (or SIGTERM) drains every instance gracefully.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT="${1:-3}"
BASE_PORT="${BASE_PORT:-8787}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
SERVER="${SERVER:-dist/server/index.mjs}"
[ -f "$SERVER" ] || { echo "no $SERVER: run 'npm run build' first" >&2; exit 1; }
case "$COUNT" in ''|*[!0-9]*) echo "usage: $0 [instances]" >&2; exit 2 ;; esac

pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait
}
trap stop INT TERM

for i in $(seq 0 $((COUNT - 1))); do
  port=$((BASE_PORT + i))
  # Each instance keeps its own DATA_DIR only as a fallback; shared state lives in Redis.
  PORT="$port" DATA_DIR="${DATA_DIR:-./data}/instance-$i" node "$SERVER" > >(sed -u "s/^/[instance $i :$port] /") 2>&1 &
  pids+=("$!")
  echo "instance $i on http://127.0.0.1:$port (state: $REDIS_URL)"
done
wait
