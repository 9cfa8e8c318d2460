#!/usr/bin/env bash
# `make faults`: reliability evidence on loopback, bounded in time (a few minutes). Each
# scenario runs real processes (redis-server, the broker, `braid worker`s, `braid gateway`)
# with its own topics, consumer group and Redis key prefix, injects one fault, and checks the
# outcome. Prints `FAULT <scenario> <figure> <value>` lines and `PASS`/`FAIL` per scenario;
# exits non-zero if any scenario fails. Results are recorded in RELIABILITY.md.
#
#   broker-freeze   broker SIGSTOPped for 10 s under gateway load and publishing
#   worker-kill     one of 3 workers SIGKILLed during a 2,000-request run
#   redis-restart   Redis stopped and restarted under gateway load
#   hostile         1,000 malformed and hostile messages
#   reshard         slots of a Redis Cluster moved under paginated sessions and a request stream
#   primary-kill    a Redis Cluster primary SIGKILLed under the same load; its replica takes over
#
# `make faults ONLY=<scenario>` runs one; a name not listed here is an error. `BRAID=<path>`
# runs that braid binary instead of the release build.
set -euo pipefail
BRAID_SCRIPT=faults
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/faults/cluster.sh"
cd "$BRAID_ROOT"
only="${1:-all}"
# Every scenario below, in order; an ONLY that is not one of them is an error (before
# anything is built or started), not a run of nothing that passes.
scenarios=(broker-freeze worker-kill redis-restart hostile reshard primary-kill)
is_scenario() { local s; for s in "${scenarios[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
if [ "$only" != all ] && ! is_scenario "$only"; then
  braid_die "no fault scenario '$only' (have: ${scenarios[*]}; or all)"
fi

"$BRAID_ROOT/Deploy/local/bootstrap.sh"
# BRAID=<path> uses that binary instead of building the release one (iterating on a scenario
# with the debug build); RELIABILITY.md says which build its figures come from.
if [ -z "${BRAID:-}" ]; then
  swift build -c release --product braid
  BRAID="$(swift build -c release --show-bin-path)/braid"
fi
"$BRAID" version

export BRAID_RUN_DIR="$BRAID_ROOT/.run/faults-$$"
mkdir -p "$BRAID_RUN_DIR"
redis_port="$(braid_free_port)"
kafka_port="$(braid_free_port)"
cleanup() {
  local f job
  # Load and publishing loops a failed scenario left running.
  for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done
  for f in "$BRAID_RUN_DIR"/*.pid; do [ -e "$f" ] && braid_stop_pidfile "$f"; done
  braid_stop_servers "$redis_port" "$kafka_port"
  rm -rf "$BRAID_RUN_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

braid_start_redis "$redis_port"
braid_start_broker "$kafka_port" 6
broker_pid="$(cat "$BRAID_RUN_DIR/broker-$kafka_port.pid")"
corpus="$BRAID_RUN_DIR/corpus.sqlite"
"$BRAID" seed --docs 5000 --users 100 --db "$corpus" >/dev/null 2>&1 || braid_die "braid seed failed"
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)"

failures=0
figure() { echo "FAULT $scenario $1 $2"; }
verdict() { # OK? MESSAGE
  if [ "$1" = 0 ]; then echo "FAULT $scenario PASS"; else echo "FAULT $scenario FAIL: $2"; failures=$((failures + 1)); fi
}

# The environment of one scenario's processes: own topics, group and key prefix.
scenario_env() { # NAME [REDIS_PORT]
  local name="$1" port="${2:-$redis_port}"
  local topic
  for topic in "$name.requests" "$name.dlq" "$name.events"; do braid_create_topic "$kafka_port" "$topic" 6; done
  scenario="$name"
  env_vars=(
    BRAID_REDIS_URL="redis://127.0.0.1:$port" BRAID_REDIS_KEY_PREFIX="$name"
    BRAID_KAFKA_BROKERS="127.0.0.1:$kafka_port" BRAID_KAFKA_REQUESTS_TOPIC="$name.requests"
    BRAID_KAFKA_DEAD_LETTER_TOPIC="$name.dlq" BRAID_KAFKA_EVENTS_TOPIC="$name.events"
    BRAID_KAFKA_CONSUMER_GROUP="$name-workers" BRAID_KAFKA_EVENTS_CONSUMER_GROUP="$name-events"
    BRAID_SEARCH_SQLITE_PATH="$corpus" BRAID_WORKER_METRICS_PORT=0 BRAID_WORKER_RETRY_BACKOFF_MS=100
    BRAID_LOGGING_LEVEL=info
  )
}

start_worker() { # NAME → prints the pid; waits until it owns partitions of the requests topic
  local log="$BRAID_RUN_DIR/$scenario-$1.log"
  env "${env_vars[@]}" "$BRAID" worker >"$log" 2>&1 &
  local pid=$!
  echo "$pid" >"$BRAID_RUN_DIR/$scenario-$1.pid"
  braid_wait_until 60 "$pid" "worker $1" sh -c "grep 'partitions assigned' '$log' | grep -q '$scenario.requests\['"
  echo "$pid"
}

start_gateway() { # PORT [VAR=VALUE...]
  local port="$1"; shift
  env "${env_vars[@]}" BRAID_GATEWAY_PORT="$port" "$@" "$BRAID" gateway >"$BRAID_RUN_DIR/$scenario-gateway.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$BRAID_RUN_DIR/$scenario-gateway.pid"
  braid_wait_until 60 "$pid" "the gateway" curl -sf "http://127.0.0.1:$port/healthz"
}

# Snapshot pointers written under the scenario's prefix: one per distinct materialized query.
pointers() { # [REDIS_PORT]
  redis-cli -p "${1:-$redis_port}" --scan --pattern "$scenario:{rank:*}:cur" | wc -l
}

wait_for_pointers() { # COUNT TIMEOUT → prints seconds waited, fails on timeout
  local want="$1" deadline=$((SECONDS + $2)) start=$SECONDS
  until (($(pointers) >= want)); do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
  echo $((SECONDS - start))
}

# JSON Lines of COUNT ranking requests for distinct queries "<PREFIX> <n>".
requests_file() { # PREFIX COUNT FILE
  python3 - "$1" "$2" >"$3" <<'PY'
import json, sys, uuid, datetime
prefix, count = sys.argv[1], int(sys.argv[2])
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
for n in range(count):
    print(json.dumps({"schema": "braid.request/v1", "id": str(uuid.uuid4()), "kind": "ranking",
                      "ranking": {"id": "featured", "query": f"{prefix} {n}", "size": 20}, "requested_at": now}))
PY
}

# GETs page 1 of COUNT distinct queries "<PREFIX> <n>", one after the other, and prints
# "<requests> <non-200> <degraded>"; runs for at least SECONDS.
page_load() { # PORT PREFIX COUNT SECONDS
  python3 - "$@" <<'PY'
import json, sys, time, urllib.request, urllib.error, urllib.parse
port, prefix, count, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
done = bad = degraded = 0
start = time.monotonic()
n = 0
while n < count or time.monotonic() - start < seconds:
    query = urllib.parse.quote(f"{prefix} {n % max(count, 1)}")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/search?q={query}&per_page=10", timeout=10) as response:
            page = json.load(response)
            degraded += bool(page.get("degraded"))
    except urllib.error.HTTPError as error:
        bad += 1
        print(f"HTTP {error.code}: {error.read()[:200]!r}", file=sys.stderr)
    except Exception as error:
        bad += 1
        print(f"request failed: {error}", file=sys.stderr)
    done += 1
    n += 1
    time.sleep(0.005)
print(done, bad, degraded)
PY
}

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

ran=0
run_scenario() { # NAME: whether to run it (and counts it)
  is_scenario "$1" || braid_die "scenario '$1' is missing from the scenarios list"
  if [ "$only" = all ] || [ "$only" = "$1" ]; then ran=$((ran + 1)); return 0; fi
  return 1
}

# --- broker frozen for 10 s -------------------------------------------------------------
if run_scenario broker-freeze; then
  scenario_env broker-freeze
  start_worker w1 >/dev/null
  sleep 4  # the local broker rebalances poorly when members join in the same instant
  start_worker w2 >/dev/null
  gateway_port="$(braid_free_port)"
  # async misses: every new query publishes a request through the gateway's producer.
  start_gateway "$gateway_port" BRAID_INTERLEAVING_MISS_POLICY=async
  requests_file "published during the freeze" 500 "$BRAID_RUN_DIR/freeze.jsonl"
  kill -STOP "$broker_pid"
  frozen_at=$SECONDS
  page_load "$gateway_port" "asked during the freeze" 200 10 >"$BRAID_RUN_DIR/freeze-pages.txt" 2>"$BRAID_RUN_DIR/freeze-pages.err" &
  load_pid=$!
  sleep 4
  env "${env_vars[@]}" "$BRAID" publish --file "$BRAID_RUN_DIR/freeze.jsonl" >"$BRAID_RUN_DIR/freeze-publish.txt" 2>&1 &
  publish_pid=$!
  sleep $((10 - (SECONDS - frozen_at)))
  kill -CONT "$broker_pid"
  resumed_at=$SECONDS
  publish_ok=0; wait "$publish_pid" || publish_ok=$?
  wait "$load_pid"
  read -r pages bad degraded <"$BRAID_RUN_DIR/freeze-pages.txt"
  figure pages_during_freeze "$pages"
  figure non_200_pages "$bad"
  figure publish "$(tail -n1 "$BRAID_RUN_DIR/freeze-publish.txt" | tr ' ' '_')"
  # 200 queries asked through the gateway + 500 published: 700 distinct snapshots.
  if drained="$(wait_for_pointers 700 180)"; then
    figure seconds_to_materialize_backlog_after_resume "$((SECONDS - resumed_at))"
    figure snapshots "$(pointers)"
    ok=$(( bad != 0 || publish_ok != 0 ))
    verdict "$ok" "non-200 pages $bad, publish exit $publish_ok"
  else
    figure snapshots "$(pointers)"
    verdict 1 "only $(pointers) of 700 snapshots within 180 s after the broker resumed"
  fi
  for f in "$BRAID_RUN_DIR"/broker-freeze-*.pid; do braid_stop_pidfile "$f"; done
fi

# --- worker SIGKILL during 2,000 requests -------------------------------------------------
if run_scenario worker-kill; then
  scenario_env worker-kill
  start_worker w1 >/dev/null
  sleep 4
  start_worker w2 >/dev/null
  sleep 4
  victim="$(start_worker w3)"
  requests_file "killed worker" 2000 "$BRAID_RUN_DIR/kill.jsonl"
  env "${env_vars[@]}" "$BRAID" publish --file "$BRAID_RUN_DIR/kill.jsonl" >/dev/null 2>&1 || braid_die "publishing failed"
  until (($(pointers) >= 400)); do sleep 0.1; done
  kill -KILL "$victim"
  figure snapshots_when_killed "$(pointers)"
  killed_at=$SECONDS
  if wait_for_pointers 2000 240 >/dev/null; then
    figure seconds_to_finish_after_kill "$((SECONDS - killed_at))"
    figure snapshots "$(pointers)"
    verdict 0 ""
  else
    figure snapshots "$(pointers)"
    verdict 1 "only $(pointers) of 2000 snapshots within 240 s of the kill"
  fi
  for f in "$BRAID_RUN_DIR"/worker-kill-*.pid; do braid_stop_pidfile "$f"; done
fi

# --- Redis restarted under gateway load ---------------------------------------------------
if run_scenario redis-restart; then
  private_redis="$(braid_free_port)"
  braid_start_redis "$private_redis"
  scenario_env redis-restart "$private_redis"
  gateway_port="$(braid_free_port)"
  start_gateway "$gateway_port"
  page_load "$gateway_port" "curry" 1 3 >/dev/null 2>&1  # a snapshot to interleave with
  page_load "$gateway_port" "curry" 1 20 >"$BRAID_RUN_DIR/redis-pages.txt" 2>"$BRAID_RUN_DIR/redis-pages.err" &
  load_pid=$!
  sleep 5
  braid_stop_pidfile "$BRAID_RUN_DIR/redis-$private_redis.pid"
  sleep 5
  braid_start_redis "$private_redis" restart
  restarted_at="$(date +%s.%N)"
  # Recovered without a restart of the gateway: a page is interleaved again (while the load runs).
  recovered=1
  for _ in $(seq 1 100); do
    page="$(curl -s "http://127.0.0.1:$gateway_port/v1/search?q=curry&per_page=10")"
    if python3 -c 'import json,sys; p=json.loads(sys.argv[1]); sys.exit(0 if not p["degraded"] and p["interleaving"]["snapshot"] else 1)' "$page"; then
      recovered=0; break
    fi
    sleep 0.1
  done
  figure seconds_until_interleaved_again "$(awk -v a="$restarted_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
  wait "$load_pid"
  read -r pages bad degraded <"$BRAID_RUN_DIR/redis-pages.txt"
  figure pages "$pages"
  figure non_200_pages "$bad"
  figure degraded_pages "$degraded"
  ok=$(( bad != 0 || degraded == 0 || recovered != 0 ))
  verdict "$ok" "non-200 $bad, degraded $degraded, recovered $((1 - recovered))"
  for f in "$BRAID_RUN_DIR"/redis-restart-*.pid; do braid_stop_pidfile "$f"; done
  braid_stop_pidfile "$BRAID_RUN_DIR/redis-$private_redis.pid"
fi

# --- 1,000 malformed and hostile messages ---------------------------------------------------
if run_scenario hostile; then
  scenario_env hostile
  w1="$(start_worker w1)"
  sleep 4
  w2="$(start_worker w2)"
  requests_file "warm up" 200 "$BRAID_RUN_DIR/warm.jsonl"
  env "${env_vars[@]}" "$BRAID" publish --file "$BRAID_RUN_DIR/warm.jsonl" >/dev/null 2>&1 || braid_die "publishing failed"
  wait_for_pointers 200 60 >/dev/null || braid_die "warm-up requests were not materialized"
  rss_before=$(( $(rss_kib "$w1") + $(rss_kib "$w2") ))
  python3 - "$BRAID_RUN_DIR/hostile.txt" <<'PY'
import json, random, sys
random.seed(7)
valid = {"schema": "braid.request/v1", "id": "00000000-0000-4000-8000-000000000000", "kind": "ranking",
         "ranking": {"id": "featured", "query": "curry"}, "requested_at": "2026-11-22T10:00:00Z"}
def variant(i):
    kind = i % 10
    if kind == 0: return "{not json at all"
    if kind == 1: return json.dumps({**valid, "schema": "braid.request/v9"})
    if kind == 2: return json.dumps({**valid, "kind": "teleport"})
    if kind == 3: return json.dumps({**valid, "ranking": {"id": "featured", "query": "x" * 60000}})
    if kind == 4: return "[" * 5000 + "]" * 5000
    if kind == 5: return json.dumps({**valid, "ranking": {"id": "no-such-ranking", "query": "curry"}})
    if kind == 6: return json.dumps({**valid, "requested_at": "yesterday"})
    if kind == 7: return json.dumps({**valid, "ranking": {"id": "featured", "query": "curry", "size": 10**30}})
    if kind == 8: return json.dumps({"schema": "braid.request/v1"})
    return json.dumps({**valid, "id": "\u0000" * 10, "kind": None})
with open(sys.argv[1], "w") as out:
    for i in range(1000):
        out.write(variant(i) + "\n")
PY
  kcat -P -b "127.0.0.1:$kafka_port" -t hostile.requests -K '\t' -l <(awk '{print "hostile-" NR "\t" $0}' "$BRAID_RUN_DIR/hostile.txt") \
    || braid_die "kcat could not produce the hostile messages"
  deadline=$((SECONDS + 180))
  dead=0
  while ((SECONDS < deadline)); do
    dead="$(kcat -C -b "127.0.0.1:$kafka_port" -t hostile.dlq -o beginning -e -q -f '%k\n' 2>/dev/null | grep -c '^hostile-' || true)"
    ((dead >= 1000)) && break
    sleep 1
  done
  figure dead_lettered "$dead"
  with_reason="$(kcat -C -b "127.0.0.1:$kafka_port" -t hostile.dlq -o beginning -e -q -f '%h\n' 2>/dev/null | grep -c 'braid-dlq-reason=' || true)"
  figure with_reason_header "$with_reason"
  kcat -C -b "127.0.0.1:$kafka_port" -t hostile.dlq -o beginning -e -q -f '%h\n' 2>/dev/null \
    | grep -o 'braid-dlq-reason=[^,]*' | cut -c18-80 | sort | uniq -c | sort -rn | head -12 | sed 's/^/  reason: /'
  alive=0; kill -0 "$w1" 2>/dev/null && kill -0 "$w2" 2>/dev/null || alive=1
  rss_after=$(( $(rss_kib "$w1" 2>/dev/null || echo 0) + $(rss_kib "$w2" 2>/dev/null || echo 0) ))
  figure workers_rss_mib_before "$((rss_before / 1024))"
  figure workers_rss_mib_after "$((rss_after / 1024))"
  growth=$(( (rss_after - rss_before) / 1024 ))
  ok=$(( dead != 1000 || with_reason < 1000 || alive != 0 || growth > 32 ))
  verdict "$ok" "dead-lettered $dead, with reason $with_reason, workers alive $((1 - alive)), RSS growth ${growth} MiB"
  for f in "$BRAID_RUN_DIR"/hostile-*.pid; do braid_stop_pidfile "$f"; done
fi

# --- Redis Cluster: slots moved, a primary killed (each on a cluster of its own) -----------
if run_scenario reshard; then source "$BRAID_ROOT/Deploy/local/faults/reshard.sh"; fi
if run_scenario primary-kill; then source "$BRAID_ROOT/Deploy/local/faults/primary-kill.sh"; fi

((ran > 0)) || braid_die "no scenario ran (ONLY=$only)"
((failures == 0)) || braid_die "$failures scenario(s) failed"
braid_log "every scenario passed"
