# Redis GET throughput: our client vs redis-benchmark, 50 requests in flight, no pipelining
# flag on either, against the same server in the same run. Sourced by bench.sh.
requests="${BRAID_BENCH_REDIS_REQUESTS:-200000}"
baseline="$(redis-benchmark -h 127.0.0.1 -p "$BRAID_BENCH_REDIS_PORT" -t get -c 50 -n "$requests" -d 3 --csv -q \
  | awk -F'"' '/"GET"/ {print $4}')"
[ -n "$baseline" ] || braid_die "redis-benchmark printed no GET figure"
echo "FIGURE redis.get.redis_benchmark.ops_per_s ${baseline%.*}"
output="$("$BRAID" bench redis-get --url "$BRAID_BENCH_REDIS_URL" --clients 50 --requests "$requests")"
echo "$output"
ours="$(awk '/^FIGURE redis.get.ops_per_s/ {print $3}' <<<"$output")"
[ -n "$ours" ] || braid_die "braid bench redis-get printed no figure"
python3 -c "print(f'RATIO redis.get.vs_redis_benchmark {$ours / $baseline:.3f}')"
