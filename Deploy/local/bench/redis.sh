# Redis GET throughput: our client vs redis-benchmark, 50 requests in flight, no pipelining
# flag on either, against the same server in the same run. Sourced by bench.sh. Three
# figures: the plaintext server bench.sh started; a TLS-only server (both sides over TLS,
# certificates made here); a Redis Cluster of 3 primaries + 3 replicas (redis-benchmark
# --cluster, ours in cluster mode), both started here and stopped by bench.sh.
requests="${BRAID_BENCH_REDIS_REQUESTS:-200000}"

# redis_bench_ratio NAME BASELINE_ARGS -- OURS_ARGS: prints the two figures and the ratio.
redis_bench_ratio() {
  local name="$1" baseline ours output args=()
  shift
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  baseline="$(redis-benchmark "${args[@]}" -t get -c 50 -n "$requests" -d 3 --csv -q | awk -F'"' '/"GET"/ {print $4}')"
  [ -n "$baseline" ] || braid_die "redis-benchmark printed no GET figure for $name"
  echo "FIGURE $name.redis_benchmark.ops_per_s ${baseline%.*}"
  output="$("$BRAID" bench redis-get --clients 50 --requests "$requests" --figure "$name" "$@")"
  echo "$output"
  ours="$(awk "/^FIGURE $name.ops_per_s/ {print \$3}" <<<"$output")"
  [ -n "$ours" ] || braid_die "braid bench redis-get printed no figure for $name"
  python3 -c "print(f'RATIO $name.vs_redis_benchmark {$ours / $baseline:.3f}')"
}

redis_bench_ratio redis.get -h 127.0.0.1 -p "$BRAID_BENCH_REDIS_PORT" -- --url "$BRAID_BENCH_REDIS_URL"

tls_dir="$BRAID_RUN_DIR/tls"
tls_port="$(braid_free_port)"
braid_make_tls_files "$tls_dir"
braid_start_redis_tls "$tls_port" "$tls_dir"
redis_bench_ratio redis.tls_get --tls --cacert "$tls_dir/ca.crt" -h 127.0.0.1 -p "$tls_port" -- \
  --url "rediss://127.0.0.1:$tls_port" --ca-file "$tls_dir/ca.crt"
braid_stop_pidfile "$BRAID_RUN_DIR/redis-$tls_port.pid"

braid_start_redis_cluster bench
seed="$(head -1 "$BRAID_RUN_DIR/cluster-bench/ports")"
redis_bench_ratio redis.cluster_get --cluster -h 127.0.0.1 -p "$seed" -- --url "redis://127.0.0.1:$seed" --cluster
braid_stop_redis_cluster bench
