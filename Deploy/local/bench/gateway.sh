# Gateway throughput under wrk on loopback: three `braid gateway` processes on the same Redis,
# Kafka and corpus: one interleaving (the defaults), one with interleaving.enabled=false
# (live-only pages that never touch Redis; the baseline) and a cold one (near-cache and pointer
# cache off, so every page reads its snapshot from Redis). Measured, one after the other:
#   - search page 1 (per_page=20, six queries in turn): interleaved ÷ live-only requests/s and
#     p99 latency; every snapshot exists and sits in the near-cache before the clock runs;
#   - one cache-hit component (first page), and a batchGet of 6 cache-hit components, each
#     ÷ GET /healthz, all on the interleaved gateway (requests/s, p99 reported);
#   - search page 1 on the cold gateway ÷ the live-only gateway, median latency with one
#     connection (the critical path of one page: snapshot read and live query in series or
#     in parallel), COLD_CONNECTIONS (1), each query on its own for COLD_SECONDS (2) in
#     COLD_ROUNDS (9) rounds; the ratio is of the sums over queries of the median p50s;
#   - the interleaved gateway's peak RSS (VmHWM) after all of that load.
# Each pair is measured in ROUNDS rounds in alternating order (A B, B A, ...) so drift on the
# shared machine hits both sides alike; the ratios compare the means. Sourced by bench.sh.
secs="${BRAID_BENCH_GATEWAY_SECONDS:-10}"
warmup_secs="${BRAID_BENCH_GATEWAY_WARMUP_SECONDS:-3}"
connections="${BRAID_BENCH_GATEWAY_CONNECTIONS:-16}"
rounds="${BRAID_BENCH_GATEWAY_ROUNDS:-2}"
cold_connections="${BRAID_BENCH_GATEWAY_COLD_CONNECTIONS:-1}"
# Nine, not five: with five, one query's median moved by up to 15 % between runs in either
# direction (BENCHMARKS.md, 2026-11-25), which moved the ratio by ±0.05.
cold_rounds="${BRAID_BENCH_GATEWAY_COLD_ROUNDS:-9}"
cold_secs="${BRAID_BENCH_GATEWAY_COLD_SECONDS:-2}"
command -v wrk >/dev/null || braid_die "wrk is not installed (apt-get install wrk)"
corpus="$BRAID_RUN_DIR/gateway-corpus.sqlite"
"$BRAID" seed --docs 20000 --users 200 --db "$corpus" >/dev/null 2>&1 || braid_die "braid seed failed"

# A feed of 6 components (the defaults have 5); the file's `feeds` replaces the default map.
config="$BRAID_RUN_DIR/gateway-bench.yaml"
# Every key of a component and a variant is required in a file (no per-key defaults there).
cat >"$config" <<'YAML'
feeds:
  bench:
    components:
      recommended: {type: recommended_recipes, title: Recommended for you, style: horizontal_list,
        orthogonal_scroll: true, width: 160, height: 220, page_size: 10, scope: user, ttl_seconds: 21600}
      following: {type: followed_authors_new, title: New from people you follow, style: horizontal_list,
        orthogonal_scroll: true, width: 160, height: 220, page_size: 10, scope: user, ttl_seconds: 21600}
      popular-dessert: {type: popular_in_category, title: Popular desserts, style: grid, orthogonal_scroll: false,
        width: 180, height: 240, page_size: 10, scope: category, category: dessert, ttl_seconds: 21600}
      carousel: {type: carousel, title: "Today's picks", style: carousel, orthogonal_scroll: true,
        auto_scroll_interval_ms: 5000, width: 360, height: 200, page_size: 5, scope: segment, ttl_seconds: 21600}
      new-arrivals: {type: new_arrivals, title: New arrivals, style: vertical_list, orthogonal_scroll: false,
        width: 360, height: 120, page_size: 20, scope: segment, ttl_seconds: 21600}
      recipes: {type: profile_recipes, title: Recipes, style: tabs, orthogonal_scroll: false,
        width: 180, height: 240, page_size: 12, scope: user, ttl_seconds: 21600}
    variants:
      - {name: default, weight: 100, prefetch: 2,
         components: [recommended, following, popular-dessert, carousel, new-arrivals, recipes]}
YAML
bench_components='["recommended","following","popular-dessert","carousel","new-arrivals","recipes"]'
bench_queries=("curry" "pasta" "chicken" "cake" "miso soup" "salmon")

# Passed per process rather than exported, so nothing leaks into the groups sourced after this.
gateway_env=(
  BRAID_REDIS_URL="$BRAID_BENCH_REDIS_URL" BRAID_KAFKA_BROKERS="$BRAID_BENCH_KAFKA_BROKERS"
  BRAID_SEARCH_SQLITE_PATH="$corpus" BRAID_REDIS_KEY_PREFIX="bench-gateway-$$"
  BRAID_KAFKA_REQUESTS_TOPIC=braid.requests BRAID_KAFKA_CONSUMER_GROUP="bench-gateway-$$" BRAID_LOGGING_LEVEL=info
)

# braid_wait_until, but a failure shows the end of the log (cleanup deletes $BRAID_RUN_DIR).
wait_for() { # TIMEOUT PID LOG CMD...
  local timeout="$1" pid="$2" log="$3" deadline=$((SECONDS + $1)); shift 3
  until "$@" >/dev/null 2>&1; do
    kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)) && { sleep 0.1; continue; }
    tail -n 20 "$log" >&2
    braid_die "$(basename "$log" .log) did not start within ${timeout}s"
  done
}

start_gateway() { # NAME PORT [VAR=VALUE...]
  local name="$1" port="$2"; shift 2
  env "${gateway_env[@]}" BRAID_GATEWAY_PORT="$port" "$@" "$BRAID" gateway --config "$config" \
    >"$BRAID_RUN_DIR/bench-gateway-$name.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$BRAID_RUN_DIR/bench-gateway-$name.pid"
  wait_for 60 "$pid" "$BRAID_RUN_DIR/bench-gateway-$name.log" curl -sf "http://127.0.0.1:$port/healthz"
}

interleaved_port="$(braid_free_port)"
start_gateway interleaved "$interleaved_port"
live_port="$(braid_free_port)"
start_gateway live-only "$live_port" BRAID_INTERLEAVING_ENABLED=false
cold_port="$(braid_free_port)"
start_gateway cold "$cold_port" BRAID_GATEWAY_NEAR_CACHE_BYTES=0 BRAID_GATEWAY_POINTER_CACHE_MS=0
interleaved_pid="$(cat "$BRAID_RUN_DIR/bench-gateway-interleaved.pid")"

# Cache-hit components: a worker materializes the six (not timed), then leaves before the load.
worker_metrics_port="$(braid_free_port)"
env "${gateway_env[@]}" BRAID_WORKER_METRICS_PORT="$worker_metrics_port" "$BRAID" worker --config "$config" \
  >"$BRAID_RUN_DIR/bench-gateway-worker.log" 2>&1 &
worker_pid=$!
echo "$worker_pid" >"$BRAID_RUN_DIR/bench-gateway-worker.pid"
wait_for 60 "$worker_pid" "$BRAID_RUN_DIR/bench-gateway-worker.log" grep -q "partitions assigned" "$BRAID_RUN_DIR/bench-gateway-worker.log"
publish() { env "${gateway_env[@]}" "$BRAID" publish --config "$config" --feed bench "$@" >/dev/null || braid_die "braid publish $* failed"; }
publish --type recommended_recipes --user u1
publish --type followed_authors_new --user u1
publish --type profile_recipes --user u1
publish --type popular_in_category --category dessert
publish --type carousel --segment all
publish --type new_arrivals --segment all

batch_body="{\"user\":\"u1\",\"components\":$bench_components,\"timeout_ms\":2000}"
batch_url="http://127.0.0.1:$interleaved_port/v1/feeds/bench/components:batchGet"
all_cached() { # exits 0 when every entry of a batchGet is ready and came from the cache
  curl -sf -X POST -H 'Content-Type: application/json' -d "$batch_body" "$batch_url" >"$BRAID_RUN_DIR/gateway-batch.json" &&
    python3 - "$BRAID_RUN_DIR/gateway-batch.json" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))["components"]
sys.exit(0 if len(entries) == 6 and all(e.get("status") == "ready" and e.get("source") == "cached" for e in entries) else 1)
PY
}
deadline=$((SECONDS + 60))
until all_cached; do
  ((SECONDS < deadline)) || braid_die "batchGet entries not all cached after 60 s: $(cat "$BRAID_RUN_DIR/gateway-batch.json" 2>/dev/null | head -c 600)"
  sleep 0.2
done
braid_stop_pidfile "$BRAID_RUN_DIR/bench-gateway-worker.pid"

# Search pages: every query once on both gateways (the interleaved one computes and stores each
# snapshot inline, then keeps it in its near-cache), checked to be interleaved or live-only.
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote_plus(sys.argv[1]))' "$1"; }
search_paths=()
for q in "${bench_queries[@]}"; do search_paths+=("/v1/search?q=$(urlencode "$q")&per_page=20"); done
check_page() { # PORT PATH interleaved|live
  curl -sf "http://127.0.0.1:$1$2" | python3 -c '
import json, sys
page = json.load(sys.stdin)
want = sys.argv[1]
snapshot = page["interleaving"]["snapshot"]
sources = {item["source"] for item in page["items"]}
ok = len(page["items"]) == 20 and (
    (want == "interleaved" and snapshot is not None and sources == {"live", "cached"})
    or (want == "live" and snapshot is None and sources == {"live"}))
sys.exit(0 if ok else 1)' "$3"
}
for path in "${search_paths[@]}"; do
  check_page "$interleaved_port" "$path" interleaved || braid_die "GET $path on the interleaved gateway is not an interleaved page of 20"
  check_page "$live_port" "$path" live || braid_die "GET $path on the live-only gateway is not a live-only page of 20"
  check_page "$cold_port" "$path" interleaved || braid_die "GET $path on the cold gateway is not an interleaved page of 20"
done

search_lua="$BRAID_RUN_DIR/gateway-search.lua"
{
  printf 'local paths = {'
  for path in "${search_paths[@]}"; do printf '"%s", ' "$path"; done
  printf '}\n'
  cat <<'LUA'
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA
} >"$search_lua"
component_url="http://127.0.0.1:$interleaved_port/v1/feeds/bench/components/recommended?user=u1"
curl -sf "$component_url" | python3 -c '
import json, sys
entry = json.load(sys.stdin)
sys.exit(0 if entry.get("source") == "cached" and len(entry.get("items", [])) == 10 else 1)' ||
  braid_die "GET $component_url is not a cached first page of 10: $(curl -s "$component_url" | head -c 600)"
batch_lua="$BRAID_RUN_DIR/gateway-batch.lua"
cat >"$batch_lua" <<LUA
wrk.method = "POST"
wrk.body = '$batch_body'
wrk.headers["Content-Type"] = "application/json"
LUA

# Runs wrk and prints "requests/s p99-ms requests p50-ms"; any non-2xx response or socket error
# fails the run. WRK_CONNECTIONS overrides the connection count (one thread per connection, at
# most two).
run_wrk() { # NAME SECONDS URL [LUA]
  local name="$1" duration="$2" url="$3" script=() out="$BRAID_RUN_DIR/wrk-$1.txt"
  local c="${WRK_CONNECTIONS:-$connections}" t=2
  ((c < 2)) && t=1
  [ -n "${4:-}" ] && script=(-s "$4")
  wrk -t"$t" -c"$c" -d"${duration}s" --latency "${script[@]}" "$url" >"$out" 2>&1 || braid_die "wrk failed: $(cat "$out")"
  python3 - "$out" <<'PY' || braid_die "wrk run $name: $(cat "$out")"
import re, sys
text = open(sys.argv[1]).read()
if re.search(r"Non-2xx or 3xx responses|Socket errors", text):
    sys.exit(1)
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
def percentile(p):
    value, unit = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
count = int(re.search(r"(\d+) requests in", text).group(1))
print(f"{rps:.1f} {percentile(99):.3f} {count} {percentile(50):.3f}")
PY
}

# Not timed: warm-up with the same settings (connections, code paths, allocator).
live_url="http://127.0.0.1:$live_port"
interleaved_url="http://127.0.0.1:$interleaved_port"
run_wrk warmup-live "$warmup_secs" "$live_url/" "$search_lua" >/dev/null
run_wrk warmup-interleaved "$warmup_secs" "$interleaved_url/" "$search_lua" >/dev/null
run_wrk warmup-batch "$warmup_secs" "$batch_url" "$batch_lua" >/dev/null
run_wrk warmup-hello "$warmup_secs" "$interleaved_url/healthz" >/dev/null
run_wrk warmup-component "$warmup_secs" "$component_url" >/dev/null
cold_url="http://127.0.0.1:$cold_port"
WRK_CONNECTIONS="$cold_connections" run_wrk warmup-cold "$warmup_secs" "$cold_url/" "$search_lua" >/dev/null

# One measurement: prints its FIGURE lines and appends "name rps p99 requests" to $results.
results="$BRAID_RUN_DIR/gateway-results.txt"
: >"$results"
measure() { # NAME URL [LUA]
  local name="$1" result
  result="$(run_wrk "$name" "$secs" "$2" "${3:-}")" || exit 1
  echo "$name $result" >>"$results"
  read -r rps p99 _ p50 <<<"$result"
  echo "FIGURE gateway.$name.rps $rps"
  echo "FIGURE gateway.$name.p99_ms $p99"
  echo "FIGURE gateway.$name.p50_ms $p50"
}
mean() { awk -v n="$1" -v f="$2" '$1 == n {s += $f; c++} END {printf "%.3f", s / c}' "$results"; } # NAME FIELD
total() { awk -v n="$1" '$1 == n {s += $4} END {print s + 0}' "$results"; } # NAME: requests
# A counter of the interleaved gateway's /metrics (summed over labels).
metric() { curl -sf "$interleaved_url/metrics" | awk -v m="$1" 'index($1, m) == 1 && ($1 == m || substr($1, length(m) + 1, 1) == "{") {s += $2} END {printf "%d", s}'; }
counters=(braid_gateway_near_cache_misses_total braid_gateway_component_cache_misses_total
  braid_gateway_component_cache_hits_total braid_gateway_degraded_pages_total)
declare -A before
for c in "${counters[@]}"; do before[$c]="$(metric "$c")"; done

# Rounds in alternating order (A B, B A, ...), so drift on the shared machine hits both alike.
for r in $(seq 1 "$rounds"); do
  if ((r % 2)); then
    measure search_live_only "$live_url/" "$search_lua"
    measure search_interleaved "$interleaved_url/" "$search_lua"
  else
    measure search_interleaved "$interleaved_url/" "$search_lua"
    measure search_live_only "$live_url/" "$search_lua"
  fi
done
for r in $(seq 1 "$rounds"); do
  if ((r % 2)); then
    measure hello "$interleaved_url/healthz"
    measure component "$component_url"
    measure batchget "$batch_url" "$batch_lua"
  else
    measure batchget "$batch_url" "$batch_lua"
    measure component "$component_url"
    measure hello "$interleaved_url/healthz"
  fi
done
# Cold pages: one connection, so the median is the latency of one page's critical path. Each
# query on its own: a p50 over six queries in turn falls between cheap and expensive queries'
# latencies and jumps between rounds. COLD_ROUNDS rounds, each query's two sides in
# alternating order; the ratio compares the sums over queries of the rounds' median p50s.
cold_results="$BRAID_RUN_DIR/gateway-cold-results.txt"
: >"$cold_results"
cold_once() { # SIDE URL QUERY-INDEX
  local result rps p99 requests p50
  result="$(WRK_CONNECTIONS="$cold_connections" run_wrk "$1-$3" "$cold_secs" "$2${search_paths[$3]}")" || exit 1
  read -r rps p99 requests p50 <<<"$result"
  echo "$1 $3 $p50 $requests" >>"$cold_results"
}
cold_before="$(curl -sf "$cold_url/metrics" | awk '$1 == "braid_gateway_near_cache_misses_total" {s += $2} END {printf "%d", s}')"
for r in $(seq 1 "$cold_rounds"); do
  for q in "${!search_paths[@]}"; do
    if (((r + q) % 2)); then
      cold_once cold_live_only "$live_url" "$q"
      cold_once cold "$cold_url" "$q"
    else
      cold_once cold "$cold_url" "$q"
      cold_once cold_live_only "$live_url" "$q"
    fi
  done
done
cold_pages="$(awk '$1 == "cold" {s += $4} END {print s + 0}' "$cold_results")"
cold_misses=$(($(curl -sf "$cold_url/metrics" | awk '$1 == "braid_gateway_near_cache_misses_total" {s += $2} END {printf "%d", s}') - cold_before))
((cold_misses >= cold_pages)) ||
  braid_die "the cold gateway read only $cold_misses snapshots from Redis for $cold_pages pages"

# What was measured is what was meant: snapshots from the near-cache, components from Redis,
# no page degraded to live-only by a Redis error.
declare -A delta
for c in "${counters[@]}"; do delta[$c]=$(($(metric "$c") - before[$c])); done
((delta[braid_gateway_near_cache_misses_total] == 0)) ||
  braid_die "the interleaved gateway missed its near-cache ${delta[braid_gateway_near_cache_misses_total]} times under load"
((delta[braid_gateway_component_cache_misses_total] == 0)) ||
  braid_die "${delta[braid_gateway_component_cache_misses_total]} components were not in Redis under load"
((delta[braid_gateway_degraded_pages_total] == 0)) ||
  braid_die "${delta[braid_gateway_degraded_pages_total]} search pages degraded to live-only under load"
((delta[braid_gateway_component_cache_hits_total] >= 6 * $(total batchget) + $(total component))) ||
  braid_die "only ${delta[braid_gateway_component_cache_hits_total]} component cache hits for $(total batchget) batchGets of 6 and $(total component) components"
all_cached || braid_die "after the load, batchGet entries are not all cached: $(head -c 600 "$BRAID_RUN_DIR/gateway-batch.json")"
peak_kib="$(awk '/^VmHWM:/ {print $2}' "/proc/$interleaved_pid/status")"
[ -n "$peak_kib" ] || braid_die "no VmHWM for the interleaved gateway (pid $interleaved_pid)"
for log in "$BRAID_RUN_DIR"/bench-gateway-{interleaved,live-only,cold}.log; do
  if grep -Eq "(warning|error|critical)" "$log"; then
    braid_log "$(basename "$log") has warnings or errors:"; grep -E "(warning|error|critical)" "$log" | head -5 >&2
  fi
done

echo "FIGURE gateway.search_live_only.mean_rps $(mean search_live_only 2)"
echo "FIGURE gateway.search_interleaved.mean_rps $(mean search_interleaved 2)"
echo "FIGURE gateway.search_live_only.mean_p99_ms $(mean search_live_only 3)"
echo "FIGURE gateway.search_interleaved.mean_p99_ms $(mean search_interleaved 3)"
echo "FIGURE gateway.hello.mean_rps $(mean hello 2)"
echo "FIGURE gateway.batchget.mean_rps $(mean batchget 2)"
echo "FIGURE gateway.batchget.mean_p99_ms $(mean batchget 3)"
echo "FIGURE gateway.component.mean_rps $(mean component 2)"
echo "FIGURE gateway.component.mean_p99_ms $(mean component 3)"
python3 - "$cold_results" "${bench_queries[@]}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
queries = sys.argv[2:]
medians = {side: [statistics.median(float(r[2]) for r in rows if r[0] == side and int(r[1]) == q) for q in range(len(queries))]
           for side in ("cold", "cold_live_only")}
for q, query in enumerate(queries):
    name = query.replace(" ", "_")
    print(f"FIGURE gateway.cold.{name}.median_p50_ms {medians['cold'][q]:.3f}")
    print(f"FIGURE gateway.cold_live_only.{name}.median_p50_ms {medians['cold_live_only'][q]:.3f}")
for side in medians:
    print(f"FIGURE gateway.{side}.sum_median_p50_ms {sum(medians[side]):.3f}")
print(f"RATIO gateway.cold_p50.vs_live_only {sum(medians['cold']) / sum(medians['cold_live_only']):.3f}")
PY
python3 -c "print(f'FIGURE gateway.peak_rss_mib {$peak_kib / 1024:.1f}')"
python3 -c "print(f'RATIO gateway.interleaved_rps.vs_live_only {$(mean search_interleaved 2) / $(mean search_live_only 2):.3f}')"
python3 -c "print(f'RATIO gateway.interleaved_p99.vs_live_only {$(mean search_interleaved 3) / $(mean search_live_only 3):.3f}')"
python3 -c "print(f'RATIO gateway.batchget_rps.vs_hello {$(mean batchget 2) / $(mean hello 2):.3f}')"
python3 -c "print(f'RATIO gateway.component_rps.vs_hello {$(mean component 2) / $(mean hello 2):.3f}')"
braid_stop_pidfile "$BRAID_RUN_DIR/bench-gateway-interleaved.pid"
braid_stop_pidfile "$BRAID_RUN_DIR/bench-gateway-live-only.pid"
braid_stop_pidfile "$BRAID_RUN_DIR/bench-gateway-cold.pid"
