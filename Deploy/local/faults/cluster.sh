# Helpers of the Redis Cluster fault scenarios (reshard, primary-kill): a private cluster per
# scenario, who serves which slot, moving a slot by hand, a stream of requests, and the
# counts the verdicts need. Sourced by faults.sh after its own helpers (scenario_env,
# start_worker, start_gateway, figure, verdict); not run on its own.

# A private cluster NAME (3 primaries + 3 replicas, lib.sh) and the environment of a scenario
# on it: scenario_env's, plus redis.cluster_nodes naming every node. Sets cluster_ports.
cluster_scenario_env() { # NAME
  braid_start_redis_cluster "$1"
  mapfile -t cluster_ports <"$BRAID_RUN_DIR/cluster-$1/ports"
  scenario_env "$1" "${cluster_ports[0]}"
  local nodes
  nodes="$(printf 'redis://127.0.0.1:%s,' "${cluster_ports[@]}")"
  env_vars+=(BRAID_REDIS_CLUSTER_NODES="${nodes%,}")
}

# Ports of the nodes that answer as primaries right now.
cluster_primaries() {
  local port
  for port in "${cluster_ports[@]}"; do
    [ "$(redis-cli -p "$port" role 2>/dev/null | head -1)" = master ] && echo "$port"
  done
  return 0
}

# The port of the primary serving SLOT, as the first answering primary sees it.
slot_owner() { # SLOT
  local seed
  # Not `| head -1`: under pipefail the next port's echo would die of SIGPIPE.
  seed="$(cluster_primaries)"
  seed="${seed%%$'\n'*}"
  redis-cli -p "$seed" cluster nodes | awk -v slot="$1" '
    $3 ~ /master/ && $3 !~ /fail/ {
      for (i = 9; i <= NF; i++) {
        if ($i ~ /^\[/) continue  # [slot->-id] / [slot-<-id]: a migration in progress
        n = split($i, range, "-"); low = range[1] + 0; high = (n == 2 ? range[2] : range[1]) + 0
        if (slot + 0 >= low && slot + 0 <= high) { split($2, address, "[:@]"); print address[2]; exit }
      }
    }'
}

node_id() { redis-cli -p "$1" cluster myid; }

# The slot of the current snapshot pointer of a query of the `featured` ranking.
query_slot() { # QUERY
  local key
  key="$(env "${env_vars[@]}" "$BRAID" ops snapshot show featured "$1" --json --documents 0 2>>"$BRAID_RUN_DIR/$scenario-ops.log" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["pointer_key"])')" || return 1
  redis-cli -p "${cluster_ports[0]}" cluster keyslot "$key"
}

# Moves SLOT from the primary on SOURCE to the one on TARGET the way an operator does by
# hand: IMPORTING on the target, MIGRATING on the source, MIGRATE of its keys, SETSLOT NODE
# on every primary. PAUSE seconds before and after the keys move, so that clients meet the
# slot half-moved (ASK, TRYAGAIN) under load, not only the final MOVED.
move_slot() { # SLOT SOURCE TARGET PAUSE
  local slot="$1" source="$2" target="$3" pause="$4" source_id target_id keys port
  source_id="$(node_id "$source")"
  target_id="$(node_id "$target")"
  redis-cli -p "$target" cluster setslot "$slot" importing "$source_id" >/dev/null
  redis-cli -p "$source" cluster setslot "$slot" migrating "$target_id" >/dev/null
  sleep "$pause"
  while true; do
    mapfile -t keys < <(redis-cli -p "$source" cluster getkeysinslot "$slot" 100)
    ((${#keys[@]} > 0)) && [ -n "${keys[0]}" ] || break
    redis-cli -p "$source" migrate 127.0.0.1 "$target" "" 0 5000 keys "${keys[@]}" >/dev/null
  done
  sleep "$pause"
  for port in "$target" "$source" $(cluster_primaries); do
    redis-cli -p "$port" cluster setslot "$slot" node "$target_id" >/dev/null
  done
}

# Waits until `redis-cli --cluster check` finds every node agreeing and no slot open.
wait_cluster_agreed() { # TIMEOUT
  local deadline=$((SECONDS + $1))
  until redis-cli --cluster check "127.0.0.1:$(cluster_primaries | head -1)" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# Snapshot pointers under the scenario's prefix, over every primary.
cluster_pointers() {
  local port total=0
  for port in $(cluster_primaries); do
    total=$((total + $(redis-cli -p "$port" --scan --pattern "$scenario:{rank:*}:cur" | wc -l)))
  done
  echo "$total"
}

wait_for_cluster_pointers() { # COUNT TIMEOUT
  local deadline=$((SECONDS + $2))
  until (($(cluster_pointers) >= $1)); do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# Messages in the scenario's dead-letter topic.
dead_letters() {
  kcat -C -b "127.0.0.1:$kafka_port" -t "$scenario.dlq" -o beginning -e -q -f 'x\n' 2>/dev/null | wc -l
}

# Publishes BATCHES batches, one every INTERVAL seconds: PER_BATCH requests for new distinct
# queries "<PREFIX> <n>" and one refresh of each hot query (a new version of a snapshot
# that sessions are walking). Each batch is written just before it is sent, so its
# requested_at is newer than the snapshots it refreshes. Exits non-zero if a publish failed.
publish_stream() { # PREFIX BATCHES PER_BATCH INTERVAL HOT_QUERY...
  local prefix="$1" batches="$2" per_batch="$3" interval="$4" batch status=0
  shift 4
  for ((batch = 0; batch < batches; batch++)); do
    python3 - "$prefix" "$((batch * per_batch))" "$per_batch" "$@" >"$BRAID_RUN_DIR/$scenario-batch.jsonl" <<'PY'
import datetime, json, sys, uuid
prefix, start, count, hot = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
queries = [f"{prefix} {n}" for n in range(start, start + count)] + hot
for query in queries:
    print(json.dumps({"schema": "braid.request/v1", "id": str(uuid.uuid4()), "kind": "ranking",
                      "ranking": {"id": "featured", "query": query, "size": 20}, "requested_at": now}))
PY
    env "${env_vars[@]}" "$BRAID" publish --file "$BRAID_RUN_DIR/$scenario-batch.jsonl" >>"$BRAID_RUN_DIR/$scenario-publish.log" 2>&1 ||
      status=1
    sleep "$interval"
  done
  return "$status"
}

# A value of the walker's JSON totals.
total() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

hot_queries=(curry pasta salmon cake soup bread tomato egg)

# Pages of the hot queries, one each: the gateway computes their snapshots inline.
warm_hot_queries() { # GATEWAY_PORT
  local query
  for query in "${hot_queries[@]}"; do
    curl -sf "http://127.0.0.1:$1/v1/search?q=$query&per_page=10" >/dev/null || braid_die "warm-up page for '$query' failed"
  done
}
