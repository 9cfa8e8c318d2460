# Scenario `primary-kill` of faults.sh (sourced): the primary serving the hottest snapshot
# of a private Redis Cluster (cluster-node-timeout 1000 ms) gets SIGKILL while the gateway
# serves paginated sessions and workers materialize a stream of requests; its replica takes
# over. Checked: no 5xx (pages on the dead primary's slots are degraded, live-only), pages
# interleave again after the failover without a restart, every request materialized,
# nothing dead-lettered (the workers' writes in the window are retried).

BRAID_CLUSTER_NODE_TIMEOUT=1000 cluster_scenario_env primary-kill
start_worker w1 >/dev/null
sleep 4
start_worker w2 >/dev/null
gateway_port="$(braid_free_port)"
start_gateway "$gateway_port"
warm_hot_queries "$gateway_port"

victim_slot="$(query_slot "${hot_queries[0]}")" || braid_die "no snapshot of '${hot_queries[0]}' after its first page"
victim="$(slot_owner "$victim_slot")"
# The hot queries whose snapshots the kill takes away until the failover.
on_victim=()
for query in "${hot_queries[@]}"; do
  if [ "$(slot_owner "$(query_slot "$query")")" = "$victim" ]; then on_victim+=("$query"); fi
done
figure hot_queries_on_killed_primary "${#on_victim[@]}"
# Its replica is in sync before the crash.
braid_wait_until 20 "$(cat "$BRAID_RUN_DIR/redis-cluster-$victim.pid")" "the replica of $victim" \
  sh -c "redis-cli -p $victim info replication | grep -q 'slave0:.*state=online'"

batches=20 per_batch=50
python3 "$BRAID_ROOT/Deploy/local/faults/session_walk.py" "$gateway_port" 120 "$BRAID_RUN_DIR/primary-kill-pages.jsonl" \
  "${hot_queries[@]}" --stop "$BRAID_RUN_DIR/primary-kill-walk.stop" \
  >"$BRAID_RUN_DIR/primary-kill-walk.json" 2>"$BRAID_RUN_DIR/primary-kill-walk.err" &
walk_pid=$!
publish_stream "killed primary stream" "$batches" "$per_batch" 1 "${hot_queries[@]}" &
publish_pid=$!
sleep 5

killed_at="$(date +%s.%N)"
kill -KILL "$(cat "$BRAID_RUN_DIR/redis-cluster-$victim.pid")"
# The replica's promotion, as the other primaries see it.
promoted=""
for _ in $(seq 1 300); do
  owner="$(slot_owner "$victim_slot")"
  if [ -n "$owner" ] && [ "$owner" != "$victim" ]; then promoted="$owner"; break; fi
  sleep 0.1
done
[ -n "$promoted" ] || braid_die "no replica took over slot $victim_slot within 30 s"
figure seconds_until_replica_promoted "$(awk -v a="$killed_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"

publish_ok=0; wait "$publish_pid" || publish_ok=$?
sleep 2
touch "$BRAID_RUN_DIR/primary-kill-walk.stop"
wait "$walk_pid"
requests=$((batches * per_batch + ${#hot_queries[@]}))
lost=0
wait_for_cluster_pointers "$requests" 120 || lost=$((requests - $(cluster_pointers)))
dead="$(dead_letters)"
walk="$BRAID_RUN_DIR/primary-kill-walk.json"
# From the page log: when the last degraded page was served, and the first interleaved page
# after it (both from the kill).
read -r degraded_after_kill recovered < <(python3 - "$BRAID_RUN_DIR/primary-kill-pages.jsonl" "$killed_at" <<'PY'
import json, sys
killed = float(sys.argv[2])
pages = [json.loads(line) for line in open(sys.argv[1])]
degraded = [p["t"] for p in pages if p["degraded"]]
last = max(degraded, default=killed)
after = [p["t"] for p in pages if p["t"] > last and not p["degraded"] and p["snapshot"]]
print(len(degraded), f"{min(after) - killed:.1f}" if after else "never")
PY
)
figure pages "$(total "$walk" pages)"
figure degraded_pages "$degraded_after_kill"
figure seconds_until_interleaved_again "$recovered"
figure status_5xx "$(total "$walk" status_5xx)"
figure non_200_pages "$(total "$walk" non_200)"
figure sessions "$(total "$walk" sessions)"
figure sessions_with_duplicates "$(total "$walk" sessions_with_duplicates)"
figure sessions_with_gaps "$(total "$walk" sessions_with_gaps)"
figure requests "$requests"
figure lost_requests "$lost"
figure dead_lettered "$dead"
ok=$(($(total "$walk" non_200) != 0 || lost != 0 || dead != 0 || publish_ok != 0))
[ "$recovered" != never ] || ok=1
verdict "$ok" "see the figures above (publish exit $publish_ok)"
((ok == 0)) || sed 's/^/  walk: /' "$BRAID_RUN_DIR/primary-kill-walk.err" | head -5 >&2
for f in "$BRAID_RUN_DIR"/primary-kill-*.pid; do braid_stop_pidfile "$f"; done
braid_stop_redis_cluster primary-kill
