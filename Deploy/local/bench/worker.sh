# Worker throughput, in two parts. Sourced by bench.sh.
#
# 1. CPU-bound (SQLite source): ranking materializations per second through Kafka and one
#    `braid worker` ÷ the same work (source query + Redis write, same requests, same
#    concurrency) done directly in one process without Kafka. Measured in ROUNDS rounds in
#    alternating order (direct then Kafka, Kafka then direct, ...) so drift on the shared
#    machine hits both sides alike; RATIO is the median of the rounds' ratios. Also prints
#    the rate with 2 workers (once).
# 2. I/O-bound (an HTTP ranking source that answers after 5 ms): one partition, one worker,
#    worker.concurrency 16, worker.ordering key ÷ partition, same requests; ORDER_ROUNDS
#    rounds in alternating order, RATIO the median of the rounds' ratios.
#
# The Kafka side's clock runs from the first materialization a poll of the workers' metrics
# sees to the last: throughput once the work flows, without the publisher's start-up.
requests="${BRAID_BENCH_WORKER_REQUESTS:-5000}"
rounds="${BRAID_BENCH_WORKER_ROUNDS:-5}"
order_requests="${BRAID_BENCH_WORKER_ORDER_REQUESTS:-3000}"
order_rounds="${BRAID_BENCH_WORKER_ORDER_ROUNDS:-3}"
corpus="$BRAID_RUN_DIR/worker-corpus.sqlite"
"$BRAID" seed --docs 20000 --users 200 --db "$corpus" >/dev/null 2>&1 || braid_die "braid seed failed"
# Passed per process rather than exported, so nothing leaks into the groups sourced after this.
worker_env=(
  BRAID_REDIS_URL="$BRAID_BENCH_REDIS_URL" BRAID_KAFKA_BROKERS="$BRAID_BENCH_KAFKA_BROKERS"
  BRAID_SEARCH_SQLITE_PATH="$corpus" BRAID_LOGGING_LEVEL=warning
)

median() { python3 -c 'import statistics, sys; print(f"{statistics.median(float(x) for x in sys.argv[1:]):.3f}")' "$@"; }

# Sum of braid_worker_processed_total over the metrics ports given.
processed() {
  local port total=0 n
  for port in "$@"; do
    n="$(curl -s "127.0.0.1:$port/metrics" | awk '/^braid_worker_processed_total/ {s += $2} END {print s + 0}')"
    total=$((total + ${n%.*}))
  done
  echo "$total"
}

# Starts `braid worker` NAME on TOPIC in GROUP with extra VAR=VALUE settings; prints its
# metrics port once it has been assigned a partition of TOPIC.
start_worker() { # NAME TOPIC GROUP [VAR=VALUE...]
  local name="$1" topic="$2" group="$3"; shift 3
  local port log="$BRAID_RUN_DIR/bench-worker-$name.log"
  port="$(braid_free_port)"
  env "${worker_env[@]}" BRAID_LOGGING_LEVEL=info BRAID_KAFKA_REQUESTS_TOPIC="$topic" BRAID_KAFKA_CONSUMER_GROUP="$group" \
    BRAID_KAFKA_EVENTS_CONSUMER_GROUP="$group-events" BRAID_WORKER_METRICS_PORT="$port" "$@" "$BRAID" worker >"$log" 2>&1 &
  echo "$!" >"$BRAID_RUN_DIR/bench-worker-$name.pid"
  # Not timed: joining the group (about 3 s per join on the local broker).
  local deadline=$((SECONDS + 60))
  until grep "partitions assigned" "$log" | grep -q "$topic\["; do
    ((SECONDS < deadline)) || { tail -n 20 "$log" >&2; braid_die "worker $name was not assigned within 60 s"; }
    sleep 0.2
  done
  echo "$port"
}

stop_worker() { # NAME
  braid_stop_pidfile "$BRAID_RUN_DIR/bench-worker-$1.pid"
}

# Publishes N requests to TOPIC (with Redis key prefix PREFIX) and prints the workers'
# materializations per second, first to last, read from the metrics PORTS.
through_kafka() { # TOPIC PREFIX N PORT...
  local topic="$1" prefix="$2" n="$3"; shift 3
  local base target now count first_t="" first_c=0 end_t
  base="$(processed "$@")"
  target=$((base + n))
  env "${worker_env[@]}" BRAID_KAFKA_REQUESTS_TOPIC="$topic" BRAID_REDIS_KEY_PREFIX="$prefix" \
    "$BRAID" bench worker-publish --requests "$n" &
  local publisher=$!
  local deadline=$((SECONDS + 600))
  while ((SECONDS < deadline)); do
    count="$(processed "$@")"
    now="$(date +%s.%N)"
    if [ -z "$first_t" ] && ((count > base)); then first_t="$now"; first_c=$((count - base)); fi
    ((count >= target)) && { end_t="$now"; break; }
    sleep 0.02
  done
  wait "$publisher" || braid_die "publishing failed"
  [ -n "${end_t:-}" ] || braid_die "the workers processed $((count - base)) of $n within 600 s"
  python3 -c "print(round(($n - $first_c) / ($end_t - $first_t)))"
}

# 1. CPU-bound: direct vs through Kafka, alternating.
cpu_topic="bench.requests.$$.cpu"
braid_create_topic "$BRAID_BENCH_KAFKA_PORT" "$cpu_topic" 6 || braid_die "could not create $cpu_topic"
cpu_port="$(start_worker cpu "$cpu_topic" "bench-workers-$$-cpu" BRAID_REDIS_KEY_PREFIX="bench-kafka-$$")"
direct_once() {
  env "${worker_env[@]}" BRAID_REDIS_KEY_PREFIX="bench-direct-$$" "$BRAID" bench worker-direct --requests "$requests" \
    | awk '/^FIGURE worker.direct.materializations_per_s/ {print $3}'
}
ratios=()
for round in $(seq 1 "$rounds"); do
  if ((round % 2 == 1)); then
    direct="$(direct_once)"; kafka="$(through_kafka "$cpu_topic" "bench-kafka-$$" "$requests" "$cpu_port")"
  else
    kafka="$(through_kafka "$cpu_topic" "bench-kafka-$$" "$requests" "$cpu_port")"; direct="$(direct_once)"
  fi
  [ -n "$direct" ] || braid_die "braid bench worker-direct printed no figure"
  echo "FIGURE worker.round$round.direct.materializations_per_s $direct"
  echo "FIGURE worker.round$round.kafka_1_worker.materializations_per_s $kafka"
  ratios+=("$(python3 -c "print($kafka / $direct)")")
done
stop_worker cpu
# Two workers on the same two cores, once (CPU-bound: the broker and the publisher share them).
two_topic="bench.requests.$$.two"
braid_create_topic "$BRAID_BENCH_KAFKA_PORT" "$two_topic" 6 || braid_die "could not create $two_topic"
two_a="$(start_worker two-a "$two_topic" "bench-workers-$$-two" BRAID_REDIS_KEY_PREFIX="bench-two-$$")"
two_b="$(start_worker two-b "$two_topic" "bench-workers-$$-two" BRAID_REDIS_KEY_PREFIX="bench-two-$$")"
sleep 2  # a late join would rebalance once more
two="$(through_kafka "$two_topic" "bench-two-$$" "$requests" "$two_a" "$two_b")"
stop_worker two-a
stop_worker two-b
echo "FIGURE worker.kafka.2_workers.materializations_per_s $two"
echo "RATIO worker.materialize.vs_direct $(median "${ratios[@]}")"

# 2. I/O-bound: key-ordered vs partition-ordered, one partition, one worker each.
source_port="$(braid_free_port)"
"$BRAID" bench ranking-service --port "$source_port" --delay-ms 5 --documents 30 >"$BRAID_RUN_DIR/bench-ranking-service.log" 2>&1 &
echo "$!" >"$BRAID_RUN_DIR/bench-ranking-service.pid"
braid_wait_until 30 "$(cat "$BRAID_RUN_DIR/bench-ranking-service.pid")" "braid bench ranking-service" \
  curl -sf -X POST -d '{}' "http://127.0.0.1:$source_port/rank"
order_env=(BRAID_SEARCH_SOURCE=http BRAID_SEARCH_HTTP_URL="http://127.0.0.1:$source_port/rank" BRAID_WORKER_CONCURRENCY=16)
for mode in partition key; do
  braid_create_topic "$BRAID_BENCH_KAFKA_PORT" "bench.requests.$$.$mode" 1 || braid_die "could not create the $mode topic"
done
partition_port="$(start_worker partition "bench.requests.$$.partition" "bench-workers-$$-partition" \
  "${order_env[@]}" BRAID_WORKER_ORDERING=partition BRAID_REDIS_KEY_PREFIX="bench-partition-$$")"
key_port="$(start_worker key "bench.requests.$$.key" "bench-workers-$$-key" \
  "${order_env[@]}" BRAID_WORKER_ORDERING=key BRAID_REDIS_KEY_PREFIX="bench-key-$$")"
order_ratios=()
for round in $(seq 1 "$order_rounds"); do
  if ((round % 2 == 1)); then
    partition="$(through_kafka "bench.requests.$$.partition" "bench-partition-$$" "$order_requests" "$partition_port")"
    key="$(through_kafka "bench.requests.$$.key" "bench-key-$$" "$order_requests" "$key_port")"
  else
    key="$(through_kafka "bench.requests.$$.key" "bench-key-$$" "$order_requests" "$key_port")"
    partition="$(through_kafka "bench.requests.$$.partition" "bench-partition-$$" "$order_requests" "$partition_port")"
  fi
  echo "FIGURE worker.round$round.partition_ordered.materializations_per_s $partition"
  echo "FIGURE worker.round$round.key_ordered.materializations_per_s $key"
  order_ratios+=("$(python3 -c "print($key / $partition)")")
done
stop_worker partition
stop_worker key
braid_stop_pidfile "$BRAID_RUN_DIR/bench-ranking-service.pid"
echo "RATIO worker.key_ordered.vs_partition_ordered $(median "${order_ratios[@]}")"
