# Scenario `reshard` of faults.sh (sourced): slots move between primaries of a private Redis
# Cluster while the gateway serves paginated sessions and workers materialize a stream of
# requests. First the slots of the hot queries' snapshots move by hand, each held half-moved
# for a second (ASK and TRYAGAIN under load); then `redis-cli --cluster reshard` moves 2,000
# more slots (most of the stream's keys with them). Checked: every page a 200, every session
# walked during the moves without a duplicate or a gap, every request materialized, nothing
# dead-lettered.

cluster_scenario_env reshard
start_worker w1 >/dev/null
sleep 4  # the local broker rebalances poorly when members join in the same instant
start_worker w2 >/dev/null
gateway_port="$(braid_free_port)"
start_gateway "$gateway_port"
warm_hot_queries "$gateway_port"

# Where the hot snapshots live, and a primary to move them to.
declare -A hot_slots=()
for query in "${hot_queries[@]}"; do
  slot="$(query_slot "$query")" || braid_die "no snapshot of '$query' after its first page"
  hot_slots[$slot]="$(slot_owner "$slot")"
done
mapfile -t primaries < <(cluster_primaries)

batches=20 per_batch=50
python3 "$BRAID_ROOT/Deploy/local/faults/session_walk.py" "$gateway_port" 120 "$BRAID_RUN_DIR/reshard-pages.jsonl" "${hot_queries[@]}" \
  --stop "$BRAID_RUN_DIR/reshard-walk.stop" \
  >"$BRAID_RUN_DIR/reshard-walk.json" 2>"$BRAID_RUN_DIR/reshard-walk.err" &
walk_pid=$!
publish_stream "moved stream" "$batches" "$per_batch" 1 "${hot_queries[@]}" &
publish_pid=$!
sleep 3

moved_by_hand=0
for slot in "${!hot_slots[@]}"; do
  source="${hot_slots[$slot]}"
  target=""
  for port in "${primaries[@]}"; do
    if [ "$port" != "$source" ]; then target="$port"; break; fi
  done
  move_slot "$slot" "$source" "$target" 1
  moved_by_hand=$((moved_by_hand + 1))
done
figure slots_moved_by_hand "$moved_by_hand"
wait_cluster_agreed 20 || braid_die "the cluster did not agree on the slots after the moves by hand"
reshard_started=$SECONDS
redis-cli --cluster reshard "127.0.0.1:${primaries[0]}" --cluster-from "$(node_id "${primaries[0]}")" \
  --cluster-to "$(node_id "${primaries[1]}")" --cluster-slots 2000 --cluster-yes >"$BRAID_RUN_DIR/reshard-redis-cli.log" 2>&1 ||
  braid_die "redis-cli --cluster reshard failed; see $BRAID_RUN_DIR/reshard-redis-cli.log"
figure slots_moved_by_redis_cli 2000
figure seconds_for_redis_cli_reshard "$((SECONDS - reshard_started))"

publish_ok=0; wait "$publish_pid" || publish_ok=$?
sleep 2  # sessions after the last move, then the walkers finish theirs
touch "$BRAID_RUN_DIR/reshard-walk.stop"
wait "$walk_pid"
requests=$((batches * per_batch + ${#hot_queries[@]}))
lost=0
wait_for_cluster_pointers "$requests" 120 || lost=$((requests - $(cluster_pointers)))
dead="$(dead_letters)"
walk="$BRAID_RUN_DIR/reshard-walk.json"
figure pages "$(total "$walk" pages)"
figure non_200_pages "$(total "$walk" non_200)"
figure degraded_pages "$(total "$walk" degraded)"
figure sessions "$(total "$walk" sessions)"
figure interleaved_sessions "$(total "$walk" interleaved_sessions)"
figure sessions_with_duplicates "$(total "$walk" sessions_with_duplicates)"
figure sessions_with_gaps "$(total "$walk" sessions_with_gaps)"
figure requests "$requests"
figure lost_requests "$lost"
figure dead_lettered "$dead"
ok=$(($(total "$walk" non_200) != 0 || $(total "$walk" sessions_with_duplicates) != 0 || $(total "$walk" sessions_with_gaps) != 0 ||
  $(total "$walk" interleaved_sessions) == 0 || lost != 0 || dead != 0 || publish_ok != 0))
verdict "$ok" "see the figures above (publish exit $publish_ok)"
((ok == 0)) || sed 's/^/  walk: /' "$BRAID_RUN_DIR/reshard-walk.err" | head -5 >&2
for f in "$BRAID_RUN_DIR"/reshard-*.pid; do braid_stop_pidfile "$f"; done
braid_stop_redis_cluster reshard
