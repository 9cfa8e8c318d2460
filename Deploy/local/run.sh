#!/usr/bin/env bash
# `make run`: installs what is missing, builds the release binary and runs the whole system
# locally on its embedded defaults. Ctrl-C or SIGTERM stops everything it started.
#
# Ports (environment): BRAID_REDIS_PORT (6379), BRAID_KAFKA_PORT (9092),
# BRAID_WORKER_METRICS_PORT (9464), BRAID_GATEWAY_PORT (8080), BRAID_PARTITIONS (6,
# partitions of every topic).
# BRAID_DOCS (20000): recipes of the demo corpus, seeded on first run into .run/local/.
set -euo pipefail
BRAID_SCRIPT=run
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BRAID_ROOT"

redis_port="${BRAID_REDIS_PORT:-6379}"
kafka_port="${BRAID_KAFKA_PORT:-9092}"
partitions="${BRAID_PARTITIONS:-6}"
metrics_port="${BRAID_WORKER_METRICS_PORT:-9464}"
gateway_port="${BRAID_GATEWAY_PORT:-8080}"
docs="${BRAID_DOCS:-20000}"

"$BRAID_ROOT/Deploy/local/bootstrap.sh"
# Fail on a taken port before a long build, not after it.
braid_require_free_port "$redis_port" redis-server
braid_require_free_port "$kafka_port" "the Kafka broker"
braid_require_free_port "$metrics_port" "the worker's /metrics"
braid_require_free_port "$gateway_port" "the gateway"

swift build -c release --product braid
braid="$(swift build -c release --show-bin-path)/braid"
"$braid" version

export BRAID_RUN_DIR="$BRAID_ROOT/.run/local"
mkdir -p "$BRAID_RUN_DIR"
service_pids=()
stopping=0
cleanup() {
  stopping=1
  local pid
  # Services first (they drain into Redis and Kafka), then the servers.
  for pid in "${service_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${service_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  braid_stop_servers "$redis_port" "$kafka_port"
  braid_log "stopped"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

braid_start_redis "$redis_port"
braid_start_broker "$kafka_port" "$partitions"

export BRAID_REDIS_URL="redis://127.0.0.1:$redis_port"
export BRAID_KAFKA_BROKERS="127.0.0.1:$kafka_port"

export BRAID_WORKER_METRICS_PORT="$metrics_port" BRAID_GATEWAY_PORT="$gateway_port"
export BRAID_SEARCH_SQLITE_PATH="${BRAID_SEARCH_SQLITE_PATH:-$BRAID_RUN_DIR/corpus.sqlite}"

if [ ! -f "$BRAID_SEARCH_SQLITE_PATH" ]; then
  "$braid" seed --docs "$docs" --users 500 --db "$BRAID_SEARCH_SQLITE_PATH"
fi

"$braid" worker >>"$BRAID_RUN_DIR/worker.log" 2>&1 &
service_pids+=($!)
braid_log "worker started (pid ${service_pids[-1]}, log $BRAID_RUN_DIR/worker.log, metrics http://127.0.0.1:$metrics_port/metrics)"

"$braid" gateway >>"$BRAID_RUN_DIR/gateway.log" 2>&1 &
service_pids+=($!)
braid_log "gateway started (pid ${service_pids[-1]}, log $BRAID_RUN_DIR/gateway.log)"

# Demo content: snapshots for a few queries and feed components for a few users.
for query in "curry rice" "カレー" "chicken" "miso soup" "pasta" "cake"; do
  "$braid" publish --ranking featured --query "$query" >/dev/null
done
# Users u00001-u00003 of the seeded corpus (authors too, so their profiles have content).
for user in u00001 u00002 u00003; do
  for type in recommended_recipes followed_authors_new recommended_creators user_stats; do
    "$braid" publish --feed home --type "$type" --user "$user" >/dev/null
  done
  for type in profile_header profile_tabs profile_recipes profile_cooksnaps; do
    "$braid" publish --feed profile --type "$type" --user "$user" >/dev/null
  done
done
"$braid" publish --feed home --type popular_in_category --category dessert >/dev/null
for type in carousel new_arrivals banner interleaved_recipes; do
  "$braid" publish --feed home --type "$type" --segment all >/dev/null
done
braid_log "published demo requests; see them with: redis-cli -p $redis_port --scan --pattern 'braid:*'"

until curl -sf "http://127.0.0.1:$gateway_port/healthz" >/dev/null; do
  kill -0 "${service_pids[-1]}" 2>/dev/null || braid_die "the gateway exited; see $BRAID_RUN_DIR/gateway.log"
  sleep 0.2
done
braid_log "running: gateway at http://127.0.0.1:$gateway_port, Redis at $BRAID_REDIS_URL, Kafka at $BRAID_KAFKA_BROKERS"
braid_log "try: curl 'http://127.0.0.1:$gateway_port/v1/search?q=curry+rice&per_page=5'"
braid_log "console: http://127.0.0.1:$gateway_port/console/ (search and feed previews, experiments, workers)"
braid_log "Ctrl-C stops everything"
# Wait for a signal, or for a service to die (then stop the rest).
while :; do
  sleep 1 &
  wait $! || true
  for pid in "${service_pids[@]}" $(cat "$BRAID_RUN_DIR"/*.pid 2>/dev/null); do
    kill -0 "$pid" 2>/dev/null || { braid_log "process $pid exited; stopping"; exit 1; }
  done
done
