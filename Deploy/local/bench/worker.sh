# Worker throughput: ranking materializations per second through Kafka and `braid worker`
# processes ÷ the same work (source query + Redis write, same requests, same concurrency)
# done directly in one process without Kafka. Also prints the rate with 1 and 2 workers.
# Sourced by bench.sh.
requests="${BRAID_BENCH_WORKER_REQUESTS:-5000}"
corpus="$BRAID_RUN_DIR/worker-corpus.sqlite"
"$BRAID" seed --docs 20000 --users 200 --db "$corpus" >/dev/null 2>&1 || braid_die "braid seed failed"
export BRAID_REDIS_URL="$BRAID_BENCH_REDIS_URL" BRAID_KAFKA_BROKERS="$BRAID_BENCH_KAFKA_BROKERS"
export BRAID_SEARCH_SQLITE_PATH="$corpus" BRAID_LOGGING_LEVEL=warning

direct="$(BRAID_REDIS_KEY_PREFIX="bench-direct-$$" "$BRAID" bench worker-direct --requests "$requests" \
  | awk '/^FIGURE worker.direct.materializations_per_s/ {print $3}')"
[ -n "$direct" ] || braid_die "braid bench worker-direct printed no figure"
echo "FIGURE worker.direct.materializations_per_s $direct"

# Materializations/s through Kafka with N worker processes: the workers join first (not
# timed), then the requests are published and the clock runs until the last one is done.
through_kafka() { # WORKERS
  local workers="$1" topic="bench.requests.$$.$1" i ports=() pids=()
  braid_create_topic "$BRAID_BENCH_KAFKA_PORT" "$topic" 6 || braid_die "could not create $topic"
  export BRAID_KAFKA_REQUESTS_TOPIC="$topic" BRAID_KAFKA_CONSUMER_GROUP="bench-workers-$$-$workers"
  export BRAID_REDIS_KEY_PREFIX="bench-kafka-$$-$workers"
  for i in $(seq 1 "$workers"); do
    ports+=("$(braid_free_port)")
    BRAID_LOGGING_LEVEL=info BRAID_WORKER_METRICS_PORT="${ports[-1]}" "$BRAID" worker \
      >"$BRAID_RUN_DIR/bench-worker-$workers-$i.log" 2>&1 &
    pids+=($!)
    echo "${pids[-1]}" >"$BRAID_RUN_DIR/bench-worker-$workers-$i.pid"
  done
  # Not timed: joining the group (about 3 s per join on the local broker).
  local deadline=$((SECONDS + 60))
  # Each worker also joins the events group: count assignments of the requests topic only.
  until (($(cat "$BRAID_RUN_DIR"/bench-worker-"$workers"-*.log | grep "partitions assigned" | grep -c "$topic\[") >= workers)); do
    ((SECONDS < deadline)) || { echo "workers did not join within 60 s" >&2; return 1; }
    sleep 0.2
  done
  sleep 2  # a late join would rebalance once more
  local start end
  start="$(date +%s.%N)"
  "$BRAID" bench worker-publish --requests "$requests" || braid_die "publishing failed"
  deadline=$((SECONDS + 300))
  local done=0
  while ((SECONDS < deadline)); do
    done=0
    for port in "${ports[@]}"; do
      local n
      n="$(curl -s "127.0.0.1:$port/metrics" | awk '/^braid_worker_processed_total/ {s += $2} END {print s + 0}')"
      done=$((done + ${n%.*}))
    done
    ((done >= requests)) && break
    sleep 0.05
  done
  end="$(date +%s.%N)"
  ((done >= requests)) || { echo "$workers worker(s) processed $done of $requests within 300 s" >&2; return 1; }
  for pid in "${pids[@]}"; do kill -TERM "$pid"; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  python3 -c "print(round($requests / ($end - $start)))"
}

one="$(through_kafka 1)" || braid_die "worker benchmark with 1 worker failed"
echo "FIGURE worker.kafka.1_worker.materializations_per_s $one"
two="$(through_kafka 2)" || braid_die "worker benchmark with 2 workers failed"
echo "FIGURE worker.kafka.2_workers.materializations_per_s $two"
python3 -c "print(f'RATIO worker.materialize.vs_direct {$one / $direct:.3f}')"
python3 -c "print(f'FIGURE worker.kafka.2_over_1_workers {$two / $one:.3f}')"
