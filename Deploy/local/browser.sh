#!/usr/bin/env bash
# `make browser`: drives the console (/console/) in headless Chromium (Debian's chromium and
# chromium-driver, through Selenium from .venv) against a real `braid gateway` and `braid
# worker` on a redis-server and Kafka broker started here on free loopback ports, with a small
# seeded corpus and demo requests (as `make run` publishes them), one invalid request (a dead
# letter) and team-draft clicks (an experiment). Checks what each page draws (Deploy/local/
# browser.py), saves one screenshot per page under .run/console/, and fails on any JavaScript
# console error. Stops everything it started.
#
# Environment: BRAID (a braid binary to use instead of building the debug one),
# BRAID_BROWSER_PARTITIONS (3).
set -euo pipefail
BRAID_SCRIPT=browser
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BRAID_ROOT"

[ -n "${BRAID:-}" ] || "$BRAID_ROOT/Deploy/local/bootstrap.sh"
export BRAID_RUN_DIR="$BRAID_ROOT/.run/browser-$$"
mkdir -p "$BRAID_RUN_DIR"
partitions="${BRAID_BROWSER_PARTITIONS:-3}"
redis_port="" kafka_port=""
service_pids=()
cleanup() {
  local pid
  for pid in "${service_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${service_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -n "$redis_port" ] && braid_stop_servers "$redis_port" "$kafka_port"
  rm -rf "$BRAID_RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${BRAID:-}" ]; then
  braid="$BRAID"
else
  swift build --product braid
  braid="$(swift build --show-bin-path)/braid"
fi
[ -x "$braid" ] || braid_die "no braid binary at $braid"
for tool in chromium chromedriver; do
  command -v "$tool" >/dev/null || braid_die "$tool is not installed; run Deploy/local/bootstrap.sh"
done

redis_port="$(braid_free_port)"
kafka_port="$(braid_free_port)"
gateway_port="$(braid_free_port)"
braid_start_redis "$redis_port"
braid_start_broker "$kafka_port" "$partitions"

corpus="$BRAID_RUN_DIR/corpus.sqlite"
"$braid" seed --docs 2000 --users 50 --db "$corpus" >/dev/null
# Two arms, one of them team-draft (the experiments page), and samples every second.
cat >"$BRAID_RUN_DIR/braid.yaml" <<YAML
interleaving:
  arms:
    - {name: control, weight: 50}
    - {name: draft, weight: 50, mode: team_draft}
console:
  sample_interval_ms: 1000
YAML
export BRAID_REDIS_URL="redis://127.0.0.1:$redis_port" BRAID_KAFKA_BROKERS="127.0.0.1:$kafka_port"
export BRAID_SEARCH_SQLITE_PATH="$corpus" BRAID_GATEWAY_PORT="$gateway_port" BRAID_WORKER_METRICS_PORT=0
export BRAID_GATEWAY_LIVE_TIMEOUT_MS=10000 BRAID_WORKER_RETRY_BACKOFF_MS=50

"$braid" worker --config "$BRAID_RUN_DIR/braid.yaml" >>"$BRAID_RUN_DIR/worker.log" 2>&1 &
service_pids+=($!)
"$braid" gateway --config "$BRAID_RUN_DIR/braid.yaml" >>"$BRAID_RUN_DIR/gateway.log" 2>&1 &
service_pids+=($!)
braid_wait_until 60 "${service_pids[1]}" "the gateway on port $gateway_port" curl -sf "http://127.0.0.1:$gateway_port/healthz"

# Demo content as `make run` publishes it, for user u00002 and the home and profile feeds.
for query in "curry rice" "chicken" "pasta"; do "$braid" publish --ranking featured --query "$query" >/dev/null; done
for type in recommended_recipes followed_authors_new recommended_creators user_stats; do
  "$braid" publish --feed home --type "$type" --user u00002 >/dev/null
done
for type in profile_header profile_tabs profile_recipes profile_cooksnaps; do
  "$braid" publish --feed profile --type "$type" --user u00002 >/dev/null
done
for type in carousel new_arrivals banner interleaved_recipes; do "$braid" publish --feed home --type "$type" --segment all >/dev/null; done
# One request a worker cannot read: it lands in the dead-letter topic with its reason.
printf 'this is not a request\n' | kcat -P -b "127.0.0.1:$kafka_port" -t braid.requests -k console-browser-test 2>>"$BRAID_RUN_DIR/kcat.log"

status=0
"$BRAID_ROOT/.venv/bin/python" "$BRAID_ROOT/Deploy/local/browser.py" \
  --base-url "http://127.0.0.1:$gateway_port" --out "$BRAID_ROOT/.run/console" --partitions "$partitions" || status=$?
if ((status != 0)); then
  braid_log "FAILED; last lines of the gateway and worker logs:"
  tail -n 20 "$BRAID_RUN_DIR/gateway.log" "$BRAID_RUN_DIR/worker.log" >&2 || true
else
  braid_log "passed; screenshots in .run/console/"
fi
exit "$status"
